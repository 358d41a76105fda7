package rest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// part is a piece of a generated body: s, then n bytes 'x'.
type part struct {
	s string
	n int
}

// genPage is a page of a list made as it is read, so that it costs the
// heap next to nothing: items of the thing list, each padded to about pad
// bytes, then its pagination.
type genPage struct {
	parts []part
	i     int // the part being read
	off   int // into it
}

func newGenPage(page, perPage, pages, pad int) *genPage {
	g := &genPage{parts: []part{{s: `{"things":[`}}}
	for j := range perPage {
		sep := ","
		if j == 0 {
			sep = ""
		}
		g.parts = append(g.parts, part{s: fmt.Sprintf(`%s{"id":"p%03d-%03d","pad":"`, sep, page, j), n: pad}, part{s: `"}`})
	}
	if page+1 < pages {
		g.parts = append(g.parts, part{s: `],"pagination":{"nextCursor":"` + strconv.Itoa(page+1) + `","hasNextPage":true}}`})
	} else {
		g.parts = append(g.parts, part{s: `],"pagination":{"nextCursor":null,"hasNextPage":false}}`})
	}
	return g
}

func (g *genPage) size() (n int) {
	for _, p := range g.parts {
		n += len(p.s) + p.n
	}
	return n
}

func (g *genPage) Read(b []byte) (int, error) {
	k := 0
	for k < len(b) && g.i < len(g.parts) {
		p := g.parts[g.i]
		switch {
		case g.off < len(p.s):
			c := copy(b[k:], p.s[g.off:])
			k += c
			g.off += c
		case g.off < len(p.s)+p.n:
			c := min(len(b)-k, len(p.s)+p.n-g.off)
			for i := range c {
				b[k+i] = 'x'
			}
			k += c
			g.off += c
		default:
			g.i, g.off = g.i+1, 0
		}
	}
	if k == 0 && g.i >= len(g.parts) {
		return 0, io.EOF
	}
	return k, nil
}

func (g *genPage) Close() error { return nil }

// genPages answers the list's pages, generated, with their length.
type genPages struct{ perPage, pages, pad int }

func (p genPages) RoundTrip(r *http.Request) (*http.Response, error) {
	page := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		page, _ = strconv.Atoi(c)
	}
	g := newGenPage(page, p.perPage, p.pages, p.pad)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: g, Request: r, ContentLength: int64(g.size())}, nil
}

// TestPeakHeapOfListPages measures the peak heap of walking a list of
// 2,500 items of about 20 KB, 100 a page (25 pages of 2 MB, 50 MB in all):
// the iterator holds one page at a time, List the whole list. A page
// read costs about two pages of heap (its body, then its items decoded),
// and the collector lets garbage grow to about as much again before it
// runs, so the iterator's peak is checked to stay under eight pages
// whatever the list's length, and List's to be above the list. It prints
// the figures with
//
//	RUNPODGO_PEAKHEAP=1 go test -run TestPeakHeapOfListPages -count=1 -v ./internal/rest/
func TestPeakHeapOfListPages(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100 MB of pages")
	}
	if raceDetector {
		t.Skip("the race detector's allocations distort the heap: run without -race (the command above)")
	}
	const items, perPage, pad = 2500, 100, 20000
	pages := items / perPage
	pageBytes := uint64(newGenPage(0, perPage, pages, pad).size())
	tr := transport.New(option.Config{APIKey: secret.NewString("k"), BaseURL: "https://api.test",
		HTTPClient: &http.Client{Transport: genPages{perPage: perPage, pages: pages, pad: pad}}})
	at := At(thingsRoute)

	n := 0
	var err error
	peakAll := testkit.PeakHeap(func() {
		for v, e := range All(t.Context(), tr, at, nil, thingPage) {
			if e != nil {
				err = e
				break
			}
			if len(v.Pad) == pad {
				n++
			}
		}
	})
	require.NoError(t, err)
	require.Equal(t, items, n)

	var got thingList
	peakList := testkit.PeakHeap(func() { got, err = List(t.Context(), tr, at, nil, thingPage) })
	require.NoError(t, err)
	require.Len(t, got.Things, items)
	got = thingList{}

	const mb = 1000 * 1000
	if os.Getenv("RUNPODGO_PEAKHEAP") != "" {
		t.Logf("page %.1f MB, list %.1f MB: iterator peak heap %.1f MB (%.2f pages), List %.1f MB (%.2f pages)",
			float64(pageBytes)/mb, float64(pageBytes)*float64(pages)/mb,
			float64(peakAll)/mb, float64(peakAll)/float64(pageBytes), float64(peakList)/mb, float64(peakList)/float64(pageBytes))
	}
	require.Less(t, peakAll, 8*pageBytes, "the iterator holds a page at a time: peak heap %d bytes, a page %d", peakAll, pageBytes)
	require.Greater(t, peakList, uint64(pages-1)*pageBytes, "List holds the whole list")
}
