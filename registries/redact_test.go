package registries_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/registries"
)

// TestPasswordCutByExcerpt: a text/plain 400 that echoes the password at
// byte 470 to 520 of its body, where the 512-byte excerpt is cut, leaves
// no 8 bytes of it in Error(), %v, %+v or a log line (issue 26, item 2).
func TestPasswordCutByExcerpt(t *testing.T) {
	const pw = "Pa55word-0123456789-abcdefghijklmnopqrstuvwxyz"
	var off int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		assert.Contains(t, string(b), pw, "the password is sent")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, strings.Repeat("x", off)+pw+" is not a valid password")
	}))
	t.Cleanup(srv.Close)
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	for off = 470; off <= 520; off++ {
		_, err := rp.Registries.Create(t.Context(), registries.CreateRegistryRequest{Name: "n", Username: "u", Password: pw})
		require.Error(t, err)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		var logged bytes.Buffer
		slog.New(slog.NewTextHandler(&logged, nil)).Error("x", "err", err, "l", []any{err})
		slog.New(slog.NewJSONHandler(&logged, nil)).Error("x", "err", err, "m", map[string]any{"e": err})
		for _, out := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), logged.String(), string(apiErr.Body), apiErr.Excerpt} {
			for i := 0; i+8 <= len(pw); i++ {
				require.NotContains(t, out, pw[i:i+8], "offset %d", off)
			}
		}
	}
}
