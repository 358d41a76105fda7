package pods_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// routes is a middleware that records the method and route template of
// every call.
type routes struct {
	mu  sync.Mutex
	got []string
}

func (r *routes) record(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	r.mu.Lock()
	r.got = append(r.got, req.Method+" "+option.Route(req.Context()))
	r.mu.Unlock()
	return next(req)
}

// TestNewFromConfig: the service built from a Config alone, as a program
// that uses package pods without runpod.NewClient builds it, creates,
// reads and lists pods, and names each call's route.
func TestNewFromConfig(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	var rs routes
	cfg, err := option.NewConfig(option.WithAPIKey(srv.APIKey), option.WithBaseURL(srv.URL),
		option.WithHTTPClient(srv.Client()), option.WithMiddleware(rs.record))
	require.NoError(t, err)
	svc := pods.NewFromConfig(cfg)
	ctx := t.Context()

	p, err := svc.Create(ctx, newPod())
	require.NoError(t, err)
	got, err := svc.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, p.ID, got.ID)
	assert.Equal(t, "notebook", got.Name)
	list, err := svc.List(ctx, pods.ListPodsParams{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, p.ID, list[0].ID)

	assert.Equal(t, []string{"POST /v2/pods", "GET /v2/pods/{podId}", "GET /v2/pods"}, rs.got)
	assert.Equal(t, 3, srv.Count("*"))
}

// TestNewFromConfigInvalid: a Config built by hand without a key gives a
// service whose every call fails with errs.ErrNoAPIKey before anything is
// sent.
func TestNewFromConfigInvalid(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	svc := pods.NewFromConfig(option.Config{BaseURL: srv.URL, HTTPClient: srv.Client()})
	ctx := t.Context()
	const id = "abc123"

	calls := map[string]func() error{
		"List": func() error { _, err := svc.List(ctx, pods.ListPodsParams{}); return err },
		"Get":  func() error { _, err := svc.Get(ctx, id); return err },
		"Create": func() error {
			_, err := svc.Create(ctx, newPod())
			return err
		},
		"Update": func() error {
			_, err := svc.Update(ctx, id, pods.UpdatePodRequest{Name: runpod.Ptr("renamed")})
			return err
		},
		"Delete":    func() error { return svc.Delete(ctx, id) },
		"Start":     func() error { _, err := svc.Start(ctx, id); return err },
		"Stop":      func() error { _, err := svc.Stop(ctx, id); return err },
		"Restart":   func() error { _, err := svc.Restart(ctx, id); return err },
		"Terminate": func() error { return svc.Terminate(ctx, id) },
		"TCPAddress": func() error {
			_, err := svc.TCPAddress(ctx, id, 22)
			return err
		},
		"WaitForTCP": func() error {
			_, err := svc.WaitForTCP(ctx, id, 22, option.Poll[*pods.Pod]{})
			return err
		},
		"Logs": func() error {
			for _, err := range svc.Logs(ctx, id, pods.GetPodLogsParams{}) {
				return err
			}
			return nil
		},
	}
	for name, call := range calls {
		assert.ErrorIs(t, call(), errs.ErrNoAPIKey, name)
	}
	assert.Zero(t, srv.Count("*"), "nothing was sent")
}
