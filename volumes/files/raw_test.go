package files_test

import (
	"bytes"
	"cmp"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// rawS3 is an S3 API answered by hand, for what the fake never sends:
// listings of keys a hostile server chose, answers that do not decode,
// a GET that waits for the test. It serves ListObjectsV2 with listing as
// is, and HEAD and GET (ranges, If-Match) of the files in files, each
// modified at rawModTime; anything else is a 404 NoSuchKey.
type rawS3 struct {
	listing  string
	listType string // the listing's Content-Type; application/xml when ""
	files    map[string][]byte
	// hold, when set, is called before a GET of a file is answered, in the
	// server's goroutine: it may block until the test lets it go on.
	hold func(r *http.Request)
	// gets counts the GETs of files.
	gets atomic.Int32
}

// rawModTime is the modification time of rawS3's files.
var rawModTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// rawSecret is the S3 secret the clients of rawS3 sign with.
const rawSecret = "rps_raw-test-secret-0123456789"

// volume serves r and returns the files of the test volume through it.
func (r *rawS3) volume(t *testing.T, opts ...files.Option) *files.Volume {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	testkit.RegisterSecret(rawSecret)
	cfg, err := option.NewConfig(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"),
		option.WithS3URL(srv.URL), option.WithS3Credentials("user_raw", rawSecret),
		option.WithBackoff(time.Millisecond, 2*time.Millisecond), option.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	vol, err := files.New(cfg, volumeID, "EU-RO-1", opts...)
	require.NoError(t, err)
	return vol
}

func (r *rawS3) serve(w http.ResponseWriter, req *http.Request) {
	key := strings.TrimPrefix(strings.TrimPrefix(req.URL.Path, "/"+volumeID), "/")
	body, ok := r.files[key]
	switch {
	case req.Method == http.MethodGet && req.URL.Query().Get("list-type") == "2":
		w.Header().Set("Content-Type", cmp.Or(r.listType, "application/xml"))
		_, _ = io.WriteString(w, r.listing)
	case ok && (req.Method == http.MethodGet || req.Method == http.MethodHead):
		if req.Method == http.MethodGet {
			r.gets.Add(1)
			if r.hold != nil {
				r.hold(req)
			}
		}
		sum := md5.Sum(body)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		http.ServeContent(w, req, "", rawModTime, bytes.NewReader(body))
	default:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`)
	}
}

// listingOf is a ListObjectsV2 answer listing keys in order, as they are,
// a NUL or a ".." included (only &, < and > are escaped); a key ending in
// "/" is an empty directory, the others have the size files gives them.
func listingOf(files map[string][]byte, keys ...string) string {
	keys = slices.Sorted(slices.Values(keys))
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>%s</Name><Prefix></Prefix><KeyCount>%d</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>`, volumeID, len(keys))
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for _, k := range keys {
		fmt.Fprintf(&b, `<Contents><Key>%s</Key><LastModified>%s</LastModified><ETag>"%s"</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>`,
			esc.Replace(k), rawModTime.Format(time.RFC3339), "d41d8cd98f00b204e9800998ecf8427e", len(files[k]))
	}
	b.WriteString(`</ListBucketResult>`)
	return b.String()
}
