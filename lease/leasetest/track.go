// Package leasetest holds what the tests of a suite that runs against
// the real platform use from package lease: Track, which deletes what a
// test created when it ends and leases it in case the test process dies
// first. It imports package testing, which package lease does not.
package leasetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
)

// Defaults of TrackOptions.
const (
	// DefaultTrackTTL is the lease Track puts on what a test creates.
	DefaultTrackTTL = time.Hour
	// DefaultCleanupTimeout bounds the deletes of Track's cleanup.
	DefaultCleanupTimeout = 5 * time.Minute
)

// TrackOptions tunes Track.
type TrackOptions struct {
	// TTL is the lease Track puts on the name of each create request
	// whose name has none, from the moment it is sent by Now; zero means
	// DefaultTrackTTL. It must not be negative. It is what a later lease.Reap
	// goes by when the test process dies before its cleanup runs.
	TTL time.Duration
	// Now is the clock the lease starts from; nil means time.Now, the
	// local clock (a clock that is behind shortens the lease by as much;
	// lease.Reap compares it with the platform's).
	Now func() time.Time
	// CleanupTimeout bounds the cleanup's deletes together; zero means
	// DefaultCleanupTimeout. It must not be negative.
	CleanupTimeout time.Duration
}

// Track returns a request option for the tests of a suite that run
// against the real platform: a middleware that records the id of every
// pod, sandbox, serverless endpoint, network volume, template and cluster
// a create request made through it returns (a 2xx POST /v2/pods,
// /v2/sandboxes, /v2/serverless, /v2/network-volumes, /v2/templates or
// /v2/clusters), and a t.Cleanup, registered now, that deletes them with
// rp when the test ends, even after a failure or a panic: pods first, then
// sandboxes (terminated), endpoints (scaled to zero workers, then
// deleted), clusters, network volumes and templates. A
// resource already gone counts as deleted; every other failure is
// reported with t.Errorf.
//
// Give it to the calls that create, or to a client that makes them (rp
// itself does not need it; its calls are what the cleanup uses):
//
//	rp, err := runpod.NewClient()
//	tracked, err := runpod.NewClient(leasetest.Track(t, rp, leasetest.TrackOptions{}))
//	pod, err := tracked.Pods.Create(ctx, req) // deleted when t ends
//
// The middleware also leases what it creates: a create request whose
// name carries no lease is sent with lease.Name(name, Now()+TTL) (a sandbox
// create without a name is sent with the name "sandbox", leased), so that if the
// test process is killed and its cleanup never runs, a later lease.Reap deletes
// the resource. A name that carries a lease already is sent as it is
// (serverless.Endpoints.Apply finds an endpoint by the name it is given:
// give it a name made with lease.Name when its client is tracked).
// When the platform answers with a name whose lease no longer parses,
// Track reports it with t.Errorf: lease.Reap could not find that resource.
//
// The create calls of the GraphQL API (graphqlendpoints.Service) are not
// tracked. A create whose outcome is unknown (the platform may have acted
// but did not answer) is not tracked either: its lease is what finds it.
//
// A nil t or rp, or a negative duration in o, makes every call given the
// option fail with a *errs.ValidationError before anything is sent.
func Track(t testing.TB, rp *runpod.Client, o TrackOptions) option.RequestOption {
	var bad error
	switch {
	case t == nil:
		bad = fail.Invalid("t", "is nil")
	case rp == nil:
		bad = fail.Invalid("rp", "is nil")
	case o.TTL < 0:
		bad = fail.Invalid("TrackOptions.TTL", "must not be negative, got %s", o.TTL)
	case o.CleanupTimeout < 0:
		bad = fail.Invalid("TrackOptions.CleanupTimeout", "must not be negative, got %s", o.CleanupTimeout)
	}
	if bad != nil {
		return func(*option.Config) error { return bad }
	}
	tr := &tracker{t: t, rp: rp, o: o}
	tr.o.TTL = orDefault(o.TTL, DefaultTrackTTL)
	tr.o.CleanupTimeout = orDefault(o.CleanupTimeout, DefaultCleanupTimeout)
	if tr.o.Now == nil {
		tr.o.Now = time.Now
	}
	t.Cleanup(tr.cleanup)
	return option.WithMiddleware(tr.middleware)
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// createRoutes maps the route of each create request Track watches to
// the kind it creates.
var createRoutes = map[string]lease.Kind{
	"/v2/pods":            lease.KindPod,
	"/v2/sandboxes":       lease.KindSandbox,
	"/v2/serverless":      lease.KindEndpoint,
	"/v2/clusters":        lease.KindCluster,
	"/v2/network-volumes": lease.KindNetworkVolume,
	"/v2/templates":       lease.KindTemplate,
}

// createKind returns the kind req creates, and false for a request that
// creates nothing Track watches.
func createKind(req *http.Request) (lease.Kind, bool) {
	if req.Method != http.MethodPost {
		return "", false
	}
	if k, ok := createRoutes[option.Route(req.Context())]; ok {
		return k, true
	}
	for route, k := range createRoutes { // a call made with runpod.Client.Do
		if strings.HasSuffix(strings.TrimSuffix(req.URL.Path, "/"), route) {
			return k, true
		}
	}
	return "", false
}

// tracker is what one Track records.
type tracker struct {
	t  testing.TB
	rp *runpod.Client
	o  TrackOptions

	mu      sync.Mutex
	created []lease.Resource
}

// middleware leases the name of a create request and records what a 2xx
// answer created.
func (tr *tracker) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	kind, ok := createKind(req)
	if !ok {
		return next(req)
	}
	if err := tr.lease(req, kind); err != nil {
		return nil, err
	}
	resp, err := next(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var got struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(body, &got); err != nil || got.ID == "" {
		tr.t.Errorf("leasetest.Track: cannot read the id of the %s just created, so it will not be deleted: %v", kind, err)
		return resp, nil
	}
	res := lease.Resource{Kind: kind, ID: got.ID, Name: got.Name}
	res.Base, res.Deadline, ok = lease.Parse(got.Name)
	if !ok {
		tr.t.Errorf("leasetest.Track: %s %s was created as %q, whose lease does not parse: lease.Reap will not find it if this test's cleanup does not run", kind, got.ID, got.Name)
	}
	tr.mu.Lock()
	tr.created = append(tr.created, res)
	tr.mu.Unlock()
	return resp, nil
}

// createRequests names the request type of each kind's create, for the
// field of an error.
var createRequests = map[lease.Kind]string{
	lease.KindPod:           "CreatePodRequest",
	lease.KindSandbox:       "CreateSandboxRequest",
	lease.KindEndpoint:      "CreateEndpointRequest",
	lease.KindCluster:       "CreateClusterRequest",
	lease.KindNetworkVolume: "CreateNetworkVolumeRequest",
	lease.KindTemplate:      "CreateTemplateRequest",
}

// lease rewrites the name of req's JSON body, which creates a k, to carry
// a lease, unless it carries one already or the body has no name.
func (tr *tracker) lease(req *http.Request, k lease.Kind) error {
	if req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return err
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	var fields map[string]json.RawMessage
	var name string
	if json.Unmarshal(body, &fields) != nil {
		return nil
	}
	if _, ok := fields["name"]; !ok && k == lease.KindSandbox {
		// A sandbox's name is optional (the platform makes one up), and
		// only a name carries a lease.
		fields["name"] = json.RawMessage(`"sandbox"`)
	}
	if json.Unmarshal(fields["name"], &name) != nil || lease.Leased(name) {
		return nil
	}
	leased, err := lease.Name(name, tr.o.Now().Add(tr.o.TTL))
	if err != nil {
		var v *errs.ValidationError
		if errors.As(err, &v) && v.Field == "base" {
			v.Field = createRequests[k] + ".Name"
		}
		return err
	}
	if fields["name"], err = json.Marshal(leased); err != nil {
		return err
	}
	if body, err = json.Marshal(fields); err != nil {
		return err
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return nil
}

// cleanup deletes what the test created, in the order of lease.AllKinds.
func (tr *tracker) cleanup() {
	tr.mu.Lock()
	created := tr.created
	tr.created = nil
	tr.mu.Unlock()
	if len(created) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), tr.o.CleanupTimeout)
	defer cancel()
	for _, k := range lease.AllKinds() {
		for i := len(created) - 1; i >= 0; i-- { // the newest first
			res := created[i]
			if res.Kind != k {
				continue
			}
			if err := lease.Delete(ctx, tr.rp, res); err != nil && !errors.Is(err, errs.ErrNotFound) {
				tr.t.Errorf("%v", err)
			}
		}
	}
}
