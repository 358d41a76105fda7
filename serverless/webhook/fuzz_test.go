package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/serverless/webhook"
)

// FuzzVerify: whatever query string and body reach a receiver, Verify
// never panics, refuses with an *Error, and accepts (or reports a
// duplicate) only with a token signed with the secret for the path (as
// the test computes it, independently), and only a job with an id and a
// finished status.
func FuzzVerify(f *testing.F) {
	signer, _ := newSigner(f, webhook.WithMaxBody(1<<12))
	var queries []string
	for _, opts := range [][]webhook.URLOption{nil, {webhook.ForEndpoint("ep-1")}} {
		u, err := url.Parse(mustURL(f, signer, "https://hooks.example.com/hook", opts...))
		if err != nil {
			f.Fatal(err)
		}
		queries = append(queries, u.RawQuery)
	}
	forged, _ := signer.ForgedURL("https://hooks.example.com/hook")
	forgedURL, _ := url.Parse(forged)
	bodies := []string{
		`{"id":"job-1","status":"COMPLETED","output":{"text":"HELLO"},"delayTime":12,"executionTime":340}`,
		`{"id":"job-2","status":"FAILED","error":"{\"error_message\":\"boom\"}"}`,
		`{"id":"job-3","status":"IN_PROGRESS"}`, `{"status":"COMPLETED"}`, `{`, `[]`, ``, `null`,
	}
	for _, q := range append(queries, forgedURL.RawQuery, "", "runpod_token=", "runpod_token=v1.1.A.B.C", "runpod_token=%zz&x=;") {
		for _, b := range bodies {
			f.Add(q, []byte(b))
		}
	}
	f.Add(queries[0]+"&"+queries[1], []byte(bodies[0]))
	f.Add(strings.Replace(queries[0], "v1.", "v1.9", 1), []byte(bodies[0]))

	f.Fuzz(func(t *testing.T, query string, body []byte) {
		r := (&http.Request{
			Method: http.MethodPost, URL: &url.URL{Path: "/hook", RawQuery: query}, Header: http.Header{},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		}).WithContext(context.Background())
		job, err := signer.Verify(r)
		var refused *webhook.Error
		if err != nil && !errors.As(err, &refused) {
			t.Fatalf("not an *Error: %v", err)
		}
		if err != nil && refused.Reason != webhook.ReasonDuplicate && refused.Reason != webhook.ReasonInProgress {
			if job != nil {
				t.Fatalf("a refusal (%v) returned a job", err)
			}
			return
		}
		tokens := r.URL.Query()[webhook.DefaultParam]
		if len(tokens) != 1 || !signedForHook(tokens[0]) {
			t.Fatalf("accepted without a minted token: query %q", query)
		}
		if job == nil || job.ID == "" || !job.Status.Terminal() {
			t.Fatalf("accepted a job without an id or a finished status: %+v", job)
		}
	})
}

// signedForHook reports whether tok is v1.<expiry>.<nonce>.<endpoint>.<mac>
// with mac the HMAC-SHA256 under testSecret of what Signer.URL documents
// it signs, for the path /hook.
func signedForHook(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 5 || parts[0] != "v1" {
		return false
	}
	h := hmac.New(sha256.New, testSecret)
	h.Write([]byte("runpod-go webhook v1\x00" + parts[1] + "\x00" + parts[2] + "\x00" + parts[3] + "\x00/hook"))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)) == parts[4]
}
