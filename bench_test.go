package runpod_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
)

// benchBody is a realistic small REST v2 answer.
const benchBody = `{"keys":["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com","ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOj3r2m7tq0pD1m9H0cUq3e0Hk7Yx9N2L4b8s6W1vJ3K ci@example.com"]}`

// benchServer answers every request as the platform does: JSON plus the
// RateLimit headers it sends on every response.
func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("RateLimit", `"minute";r=59;t=12, "hour";r=2999;t=1812, "day";r=49999;t=45012`)
		h.Set("RateLimit-Policy", `"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400`)
		_, _ = io.WriteString(w, benchBody)
	}))
	b.Cleanup(srv.Close)
	return srv
}

const benchKey = "rpa_0123456789ABCDEF0123456789ABCDEF"

// BenchmarkGet puts one authenticated GET + JSON decode through the SDK
// beside the floor: the same call in plain net/http + encoding/json,
// against the same server, in the same run.
func BenchmarkGet(b *testing.B) {
	srv := benchServer(b)
	type keys struct {
		Keys []string `json:"keys"`
	}

	b.Run("floor", func(b *testing.B) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 256
		hc := &http.Client{Transport: tr}
		defer tr.CloseIdleConnections()
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(b.Context(), "GET", srv.URL+"/v2/account/ssh-keys", nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+benchKey)
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var out keys
			err = json.NewDecoder(resp.Body).Decode(&out)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(out.Keys) != 2 {
				b.Fatal(err, resp.StatusCode)
			}
		}
	})

	b.Run("sdk", func(b *testing.B) {
		rp, err := runpod.NewClient(option.WithAPIKey(benchKey), option.WithBaseURL(srv.URL))
		if err != nil {
			b.Fatal(err)
		}
		defer rp.CloseIdleConnections()
		b.ReportAllocs()
		for b.Loop() {
			var out keys
			if err := rp.Do(b.Context(), "GET", "/v2/account/ssh-keys", nil, &out); err != nil || len(out.Keys) != 2 {
				b.Fatal(err)
			}
		}
	})
}
