package volumes_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/volumes"
)

// TestNewFromConfig: the service built from a Config alone, as a program
// that uses package volumes without runpod.NewClient builds it, creates,
// reads and lists volumes, and names each call's route.
func TestNewFromConfig(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	var (
		mu     sync.Mutex
		routes []string
	)
	record := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		mu.Lock()
		routes = append(routes, req.Method+" "+option.Route(req.Context()))
		mu.Unlock()
		return next(req)
	}
	cfg, err := option.NewConfig(option.WithAPIKey(srv.APIKey), option.WithBaseURL(srv.URL),
		option.WithHTTPClient(srv.Client()), option.WithMiddleware(record))
	require.NoError(t, err)
	svc := volumes.NewFromConfig(cfg)
	ctx := t.Context()

	v, err := svc.Create(ctx, newVolume())
	require.NoError(t, err)
	got, err := svc.Get(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, *v, *got)
	list, err := svc.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []volumes.NetworkVolume{*v}, list)

	assert.Equal(t, []string{"POST /v2/network-volumes", "GET /v2/network-volumes/{networkVolumeId}", "GET /v2/network-volumes"}, routes)
	assert.Equal(t, 3, srv.Count("*"))
}

// TestNewFromConfigInvalid: a Config built by hand without a key gives a
// service whose every call fails with errs.ErrNoAPIKey before anything is
// sent.
func TestNewFromConfigInvalid(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	svc := volumes.NewFromConfig(option.Config{BaseURL: srv.URL, HTTPClient: srv.Client()})
	ctx := t.Context()
	const id = "vol123"

	_, err := svc.List(ctx)
	assert.ErrorIs(t, err, errs.ErrNoAPIKey, "List")
	_, err = svc.Get(ctx, id)
	assert.ErrorIs(t, err, errs.ErrNoAPIKey, "Get")
	_, err = svc.Create(ctx, newVolume())
	assert.ErrorIs(t, err, errs.ErrNoAPIKey, "Create")
	_, err = svc.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(100)})
	assert.ErrorIs(t, err, errs.ErrNoAPIKey, "Update")
	assert.ErrorIs(t, svc.Delete(ctx, id), errs.ErrNoAPIKey, "Delete")
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}
