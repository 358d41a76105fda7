package serverless_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// serving creates an endpoint of restSpec with a worker always on, whose
// template runs h, and submits a job; it returns once h has signalled on
// started that it runs the job.
func serving(t *testing.T, srv *runpodtest.Server, rp *runpod.Client, h worker.Handler, started <-chan struct{}) (*serverless.Endpoint, *serverless.Queue, *serverless.Job) {
	t.Helper()
	srv.HandleTemplate("tmpl-1", h)
	spec := restSpec()
	spec.Workers.Min = runpod.Ptr(1)
	ep, err := rp.Serverless.Endpoints.Create(t.Context(), spec)
	require.NoError(t, err)
	q := rp.Serverless.Queue(ep.ID)
	job, err := q.Run(t.Context(), serverless.RunParams{Input: 1})
	require.NoError(t, err)
	<-started
	return ep, q, job
}

// TestDeleteNow: DeleteNow deletes a serving endpoint (workers min 1, max
// 4) with one DELETE and nothing read first; the platform (the fake,
// following the REST v2 document) stops the running job's handler and
// cancels it and the job queued behind it, which Status then reads as
// CANCELLED; the endpoint is gone. A second DeleteNow finds nothing.
func TestDeleteNow(t *testing.T) {
	srv, rp := epFake(t)
	started, stopped := make(chan struct{}, 1), make(chan struct{})
	ep, q, running := serving(t, srv, rp, func(ctx context.Context, job *worker.Job) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}, started)
	queued, err := q.Run(t.Context(), serverless.RunParams{Input: 2})
	require.NoError(t, err)
	gets := countRoute(srv, routeGet)

	require.NoError(t, rp.Serverless.Endpoints.DeleteNow(t.Context(), ep.ID))
	assert.Equal(t, 1, countRoute(srv, routeDelete))
	assert.Equal(t, gets, countRoute(srv, routeGet), "nothing read first")
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the running job's handler was not stopped")
	}
	for _, id := range []string{running.ID, queued.ID} {
		job, err := q.Status(t.Context(), id)
		require.NoError(t, err, id)
		assert.Equal(t, serverless.JobStatusCancelled, job.Status, id)
	}
	_, err = rp.Serverless.Endpoints.Get(t.Context(), ep.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
	assert.Empty(t, srv.Endpoints())

	err = rp.Serverless.Endpoints.DeleteNow(t.Context(), ep.ID)
	require.ErrorIs(t, err, errs.ErrNotFound)
}

// TestDeleteNowChecksTheID: a bad id is a *errs.ValidationError naming the
// field, and nothing is sent.
func TestDeleteNowChecksTheID(t *testing.T) {
	srv, rp := epFake(t)
	for _, id := range []string{"", "ep/../x", "ep 1"} {
		err := rp.Serverless.Endpoints.DeleteNow(t.Context(), id)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, id)
		assert.Equal(t, "endpointID", ve.Field, id)
	}
	assert.Empty(t, srv.Requests())
}
