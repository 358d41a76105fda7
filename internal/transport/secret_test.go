package transport

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeyCutByExcerpt: a text/plain 400 echoing the API key (as sent or
// with every character \u-escaped) at byte 470 to 520, where the excerpt
// is cut, leaves no 8 bytes of it in the error or the log (issue 26,
// item 2).
func TestKeyCutByExcerpt(t *testing.T) {
	var off int
	var echo string
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, strings.Repeat("z", off)+echo+" is not a key")
	})
	tr, lines := overServer(t, srv)
	var escaped strings.Builder
	for _, r := range testKey {
		fmt.Fprintf(&escaped, `\u%04x`, r)
	}
	for _, e := range []string{testKey, escaped.String()} {
		echo = e
		for off = 470; off <= 520; off++ {
			err := tr.DoJSON(t.Context(), &Request{Method: "POST", URL: tr.BaseURL("/v2/x"), Body: []byte(`{}`)}, nil)
			require.Error(t, err)
			for _, out := range []string{err.Error(), fmt.Sprintf("%+v", err), lines.String()} {
				norm := strings.ReplaceAll(out, `\\`, `\`) // %q doubles the backslashes
				for i := 0; i+8 <= len(testKey); i++ {
					require.NotContains(t, out, testKey[i:i+8], "offset %d", off)
					require.NotContains(t, norm, escaped.String()[6*i:6*(i+8)], "offset %d: the key \\u-escaped", off)
				}
			}
		}
	}
}
