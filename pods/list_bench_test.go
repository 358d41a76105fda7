package pods_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Pages of the benchmark: 2,500 pods, 100 a page.
const (
	benchPods    = 2500
	benchPerPage = 100
	benchKey     = "rpa_0123456789ABCDEF0123456789ABCDEF"
)

// benchPages renders the pages of a listing of benchPods pods as the
// platform sends them: pods as runpodtest renders them (GPU pods with
// ports, env and runtime), benchPerPage a page, each page's pagination
// naming the next page's number as its cursor.
func benchPages(b *testing.B) [][]byte {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	for i := range benchPerPage {
		srv.AddPod(runpodtest.Pod{ID: fmt.Sprintf("pod%011d", i), Name: fmt.Sprintf("worker-%d", i), Image: "runpod/pytorch:2.4.0",
			GPU: "NVIDIA GeForce RTX 4090", Ports: []string{"8888/http", "22/tcp"}, Env: map[string]string{"JUPYTER_PASSWORD": "pw", "MODE": "train"}})
	}
	req, _ := http.NewRequest("GET", srv.URL+"/v2/pods", nil)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var first struct {
		Pods []json.RawMessage `json:"pods"`
	}
	err = json.NewDecoder(resp.Body).Decode(&first)
	_ = resp.Body.Close()
	if err != nil || len(first.Pods) != benchPerPage {
		b.Fatal(err, len(first.Pods))
	}
	n := benchPods / benchPerPage
	pages := make([][]byte, n)
	for p := range n {
		var buf bytes.Buffer
		buf.WriteString(`{"pods":[`)
		for i, pod := range first.Pods {
			if i > 0 {
				buf.WriteByte(',')
			}
			// A distinct id per page: pod<page><index>.
			buf.Write(bytes.Replace(pod, []byte(fmt.Sprintf(`"pod%011d"`, i)), []byte(fmt.Sprintf(`"pod%05d%06d"`, p, i)), 1))
		}
		if p+1 < n {
			buf.WriteString(`],"pagination":{"nextCursor":"` + strconv.Itoa(p+1) + `","hasNextPage":true}}`)
		} else {
			buf.WriteString(`],"pagination":{"nextCursor":null,"hasNextPage":false}}`)
		}
		pages[p] = buf.Bytes()
	}
	return pages
}

// benchPageServer serves pages as GET /v2/pods, the page a cursor names,
// with the headers the platform sends on every answer.
func benchPageServer(b *testing.B, pages [][]byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := 0
		if c := r.URL.Query().Get("cursor"); c != "" {
			p, _ = strconv.Atoi(c)
		}
		if r.URL.Query().Get("limit") != strconv.Itoa(benchPerPage) || p < 0 || p >= len(pages) {
			http.Error(w, "bad page", http.StatusUnprocessableEntity)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("RateLimit", `"minute";r=59;t=12, "hour";r=2999;t=1812, "day";r=49999;t=45012`)
		h.Set("RateLimit-Policy", `"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400`)
		_, _ = w.Write(pages[p])
	}))
	b.Cleanup(srv.Close)
	return srv
}

// floorPage is what the floor decodes a page into: the SDK's Pod, and
// the pagination envelope.
type floorPage struct {
	Pods       []pods.Pod `json:"pods"`
	Pagination *struct {
		NextCursor  *string `json:"nextCursor"`
		HasNextPage bool    `json:"hasNextPage"`
	} `json:"pagination"`
}

// BenchmarkListPages reads a listing of 2,500 pods in 25 pages of 100,
// following the cursors, four ways against the same local server:
//
//   - floor: plain net/http + encoding/json, each page decoded into the
//     SDK's pods.Pod and appended to one slice;
//   - sdk: Pods.List (the whole list);
//   - floor-iter: the floor, a page at a time, nothing kept;
//   - sdk-iter: Pods.All.
func BenchmarkListPages(b *testing.B) {
	srv := benchPageServer(b, benchPages(b))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	floor := func(b *testing.B, each func([]pods.Pod)) {
		cursor := ""
		for {
			u := srv.URL + "/v2/pods?limit=" + strconv.Itoa(benchPerPage)
			if cursor != "" {
				u += "&cursor=" + cursor
			}
			req, err := http.NewRequestWithContext(b.Context(), "GET", u, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+benchKey)
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var page floorPage
			err = json.NewDecoder(resp.Body).Decode(&page)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if err != nil || resp.StatusCode != 200 {
				b.Fatal(err, resp.StatusCode)
			}
			each(page.Pods)
			if page.Pagination == nil || !page.Pagination.HasNextPage {
				return
			}
			cursor = *page.Pagination.NextCursor
		}
	}
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var all []pods.Pod
			floor(b, func(p []pods.Pod) { all = append(all, p...) })
			if len(all) != benchPods {
				b.Fatal(len(all))
			}
		}
	})
	b.Run("floor-iter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			floor(b, func(p []pods.Pod) {
				for range p {
					n++
				}
			})
			if n != benchPods {
				b.Fatal(n)
			}
		}
	})
	client := func(b *testing.B) *runpod.Client {
		rp, err := runpod.NewClient(option.WithAPIKey(benchKey), option.WithBaseURL(srv.URL), option.WithPageSize(benchPerPage))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(rp.CloseIdleConnections)
		return rp
	}
	b.Run("sdk", func(b *testing.B) {
		rp := client(b)
		b.ReportAllocs()
		for b.Loop() {
			all, err := rp.Pods.List(b.Context(), pods.ListPodsParams{})
			if err != nil || len(all) != benchPods {
				b.Fatal(err, len(all))
			}
		}
	})
	b.Run("sdk-iter", func(b *testing.B) {
		rp := client(b)
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range rp.Pods.All(b.Context(), pods.ListPodsParams{}) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != benchPods {
				b.Fatal(n)
			}
		}
	})
}
