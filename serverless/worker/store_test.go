package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunJobsForgottenOverHTTP: many large /run jobs, run by /status, leave
// only the bounded results behind: inputs are gone once run, the oldest
// results are forgotten past the bound and answer 404 like unknown ids.
func TestRunJobsForgottenOverHTTP(t *testing.T) {
	const jobs, keep, size = 6, 2, 1 << 20
	srvc := make(chan *localServer, 1)
	h := func(_ context.Context, job *Job) (any, error) { return len(job.Input), nil } // a small result
	base := serve(t, h, nil, WithResultRetention(time.Hour, keep), withHooks(&hooks{server: func(s *localServer) { srvc <- s }}))
	var s *localServer
	select {
	case s = <-srvc:
	case <-time.After(guard):
		t.Fatal("the local server never started")
	}
	var ids []string
	for range jobs {
		_, m := call(t, "POST", base+"/run", `{"input":"`+strings.Repeat("i", size)+`"}`)
		ids = append(ids, m["id"].(string))
	}
	_, _, queued := s.q.Retained()
	assert.GreaterOrEqual(t, queued, int64(jobs*size), "queued inputs are held until run")
	for _, id := range ids {
		_, m := call(t, "GET", base+"/status/"+id, "")
		require.Equal(t, "COMPLETED", m["status"])
		assert.Equal(t, float64(size+2), m["output"])
	}
	kept, resultBytes, queued := s.q.Retained()
	assert.Equal(t, keep, kept)
	assert.Equal(t, int64(keep*len("1048578")), resultBytes, "only the kept results are held")
	assert.Zero(t, queued, "no input is held once its job ran")
	for i, id := range ids {
		code, m := call(t, "GET", base+"/status/"+id, "")
		if i < jobs-keep {
			assert.Equal(t, 404, code, "forgotten: %s", id)
			assert.Equal(t, "Job ID not found", m["error"])
		} else {
			assert.Equal(t, 200, code)
			assert.Equal(t, "COMPLETED", m["status"])
		}
	}
}
