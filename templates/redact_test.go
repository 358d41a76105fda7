package templates_test

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
	"github.com/runpodkit/runpod-go/templates"
)

// TestEnvValueCutByExcerpt: a text/plain 400 that echoes an Env value at
// byte 470 to 520 of its body, where the 512-byte excerpt is cut, leaves
// no 8 bytes of it in Error(), %v, %+v or a log line, for Create and
// Update (issue 26, item 2).
func TestEnvValueCutByExcerpt(t *testing.T) {
	const value = "hf_0123456789abcdefghijklmnopqrstuvwxyz<&>TOKEN"
	var off int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		assert.Contains(t, string(b), value, "the value is sent")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, strings.Repeat("y", off)+value+" is refused")
	}))
	t.Cleanup(srv.Close)
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	env := map[string]string{"HF_TOKEN": value}
	calls := map[string]func() error{
		"Create": func() error {
			_, err := rp.Templates.Create(t.Context(), templates.CreateTemplateRequest{Name: "n", Image: "img", Env: env})
			return err
		},
		"Update": func() error {
			_, err := rp.Templates.Update(t.Context(), "tpl1", templates.UpdateTemplateRequest{Env: env})
			return err
		},
	}
	for name, call := range calls {
		for off = 470; off <= 520; off++ {
			err := call()
			require.Error(t, err, name)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			var logged bytes.Buffer
			slog.New(slog.NewTextHandler(&logged, nil)).Error("x", "err", err, "l", []any{err})
			slog.New(slog.NewJSONHandler(&logged, nil)).Error("x", "err", err, "m", map[string]any{"e": err})
			for _, out := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), logged.String(), string(apiErr.Body), apiErr.Excerpt} {
				for i := 0; i+8 <= len(value); i++ {
					require.NotContains(t, out, value[i:i+8], "%s, offset %d", name, off)
				}
			}
		}
	}
}
