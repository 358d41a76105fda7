package runpodotel

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/runpodkit/runpod-go/internal/jobstatus"
)

// jobEndpoint reports whether path (escaped) is a route of the job API
// that answers with a job, and returns its endpoint: it ends in
// /v2/{endpointId}/runsync, /v2/{endpointId}/run,
// /v2/{endpointId}/status/{jobId} or /v2/{endpointId}/status-sync/{jobId}
// (after any prefix of the host's).
func jobEndpoint(path string) (string, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	n := len(segs)
	var ep string
	switch {
	case n >= 3 && segs[n-3] == "v2" && (segs[n-1] == "runsync" || segs[n-1] == "run"):
		ep = segs[n-2]
	case n >= 4 && segs[n-4] == "v2" && (segs[n-2] == "status" || segs[n-2] == "status-sync") && segs[n-1] != "":
		ep = segs[n-3]
	default:
		return "", false
	}
	ep, err := url.PathUnescape(ep)
	if err != nil || ep == "" {
		return "", false
	}
	return ep, true
}

// job is the part of the job API's answer the metrics read; delayTime
// and executionTime are milliseconds.
type job struct {
	ID            string   `json:"id"`
	Status        string   `json:"status"`
	DelayTime     *float64 `json:"delayTime"`
	ExecutionTime *float64 `json:"executionTime"`
}

// final reports whether status is one a job ends in.
func final(status string) bool { return jobstatus.Status(status).Terminal() }

// parseJob returns the job body b holds, when it is one in a final
// status with an id and a time.
func parseJob(b []byte) (job, bool) {
	var j job
	if err := json.Unmarshal(b, &j); err != nil {
		return job{}, false
	}
	if j.ID == "" || !final(j.Status) || (j.DelayTime == nil && j.ExecutionTime == nil) {
		return job{}, false
	}
	return j, true
}

// jsonBody reports whether a response of this Content-Type may be JSON
// (no Content-Type at all is tried).
func jsonBody(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// recordJob records the times of the job resp's body holds, once per job:
// it reads at most maxJobBody+1 bytes of a JSON body and leaves resp.Body
// reading the same bytes as before.
func (t *telemetry) recordJob(ctx context.Context, resp *http.Response, endpoint string) {
	if !t.delay.Enabled(ctx) && !t.execution.Enabled(ctx) {
		return
	}
	if resp.ContentLength > t.maxJobBody || !jsonBody(resp.Header.Get("Content-Type")) {
		return
	}
	orig := resp.Body
	b, err := io.ReadAll(io.LimitReader(orig, t.maxJobBody+1))
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(b), orig), orig}
	if err != nil || int64(len(b)) > t.maxJobBody {
		return
	}
	j, ok := parseJob(b)
	if !ok || !t.jobs.add(endpoint+"/"+j.ID) {
		return
	}
	set := metric.WithAttributeSet(attribute.NewSet(EndpointIDKey.String(endpoint), JobStatusKey.String(j.Status)))
	if j.DelayTime != nil && *j.DelayTime >= 0 {
		t.delay.Record(ctx, *j.DelayTime/1000, set)
	}
	if j.ExecutionTime != nil && *j.ExecutionTime >= 0 {
		t.execution.Record(ctx, *j.ExecutionTime/1000, set)
	}
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// jobSet remembers the last size jobs recorded.
type jobSet struct {
	mu   sync.Mutex
	seen map[string]struct{}
	ring []string
	next int
}

func newJobSet(size int) *jobSet {
	return &jobSet{seen: make(map[string]struct{}, size), ring: make([]string, size)}
}

// add reports whether id is new, and remembers it, forgetting the oldest.
func (s *jobSet) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[id]; ok {
		return false
	}
	if old := s.ring[s.next]; old != "" {
		delete(s.seen, old)
	}
	s.ring[s.next], s.seen[id] = id, struct{}{}
	s.next = (s.next + 1) % len(s.ring)
	return true
}
