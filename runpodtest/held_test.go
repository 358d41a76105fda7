package runpodtest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/internal/apispec/ops"
)

// TestHeldWriter: a held answer is sent as written, or replaced by a 500
// when the check names what is wrong with it; a stream passes through
// unchecked.
func TestHeldWriter(t *testing.T) {
	op := ops.Op{Method: "GET", Path: "/v2/billing/serverless"}
	refuse := func(int, http.Header, []byte) []string { return []string{"$.records: wrong"} }

	rec := httptest.NewRecorder()
	cw := newHeldWriter(rec)
	cw.Header().Set("Content-Type", "application/json")
	_, _ = cw.Write([]byte(`{"records":[]}`))
	assert.Equal(t, http.StatusOK, cw.finish(op, nil))
	assert.Equal(t, `{"records":[]}`, rec.Body.String())

	rec = httptest.NewRecorder()
	cw = newHeldWriter(rec)
	cw.Header().Set("Content-Type", "application/json")
	_, _ = cw.Write([]byte(`{"records":"not a list"}`))
	assert.Equal(t, http.StatusInternalServerError, cw.finish(op, refuse))
	assert.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
	assert.Contains(t, rec.Body.String(), "$.records: wrong")

	rec = httptest.NewRecorder()
	cw = newHeldWriter(rec)
	cw.Header().Set("Content-Type", "text/event-stream")
	_, _ = cw.Write([]byte("data: {}\n\n"))
	cw.Flush()
	assert.Equal(t, http.StatusOK, cw.finish(ops.Op{Method: "GET", Path: "/v2/pods/{id}/logs"}, refuse))
	assert.Equal(t, "data: {}\n\n", rec.Body.String(), "a stream is passed through as written")
}
