package lease_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// account is what seed created: the ids of the expired leased resources,
// by kind, and every resource's name.
type account struct {
	expired map[lease.Kind]string
	names   map[string]string // id → name
}

// seed creates, of every kind, a resource whose lease ends an hour after
// t0, one whose lease ends in five hours and one without a lease; the
// expired pod mounts the expired volume, the endpoints keep a worker
// (workers min 1), and one pod's name carries a lease that does not
// parse.
func seed(t *testing.T, rp *runpod.Client) account {
	t.Helper()
	ctx := t.Context()
	a := account{expired: map[lease.Kind]string{}, names: map[string]string{}}
	add := func(k lease.Kind, id, name string, err error) {
		t.Helper()
		require.NoError(t, err, name)
		a.names[id] = name
		if _, d, ok := lease.Parse(name); ok && d.Equal(t0.Add(time.Hour)) {
			a.expired[k] = id
		}
	}
	for _, n := range []string{leased(t, "old", time.Hour), leased(t, "new", 5*time.Hour), "plain"} {
		v, err := rp.Volumes.Create(ctx, volumeRequest("vol-"+n))
		add(lease.KindNetworkVolume, v.ID, v.Name, err)
		mount := ""
		if strings.HasPrefix(n, "old") {
			mount = v.ID
		}
		p, err := rp.Pods.Create(ctx, podRequest("pod-"+n, mount))
		add(lease.KindPod, p.ID, p.Name, err)
		sb, err := rp.Sandboxes.Create(ctx, sandboxRequest("sbx-"+n))
		add(lease.KindSandbox, sb.ID, sb.Name, err)
		e, err := rp.Serverless.Endpoints.Create(ctx, endpointRequest("ep-"+n))
		add(lease.KindEndpoint, e.ID, e.Name, err)
		c, err := rp.Clusters.Create(ctx, clusterRequest("cl-"+n))
		add(lease.KindCluster, c.ID, c.Name, err)
		tm, err := rp.Templates.Create(ctx, templateRequest("tmpl-"+n))
		add(lease.KindTemplate, tm.ID, tm.Name, err)
	}
	p, err := rp.Pods.Create(ctx, podRequest("pod-bad~lease-2090010112", ""))
	add(lease.KindPod, p.ID, p.Name, err)
	require.Len(t, a.expired, len(lease.AllKinds()))
	return a
}

// writes returns the PATCH and DELETE requests the fake received since
// request from, as "METHOD path".
func writes(srv *runpodtest.Server, from int) []string {
	var out []string
	for _, r := range srv.Requests()[from:] {
		if r.Method == http.MethodPatch || r.Method == http.MethodDelete {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// ids returns the ids of rs.
func ids(rs []lease.Resource) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// TestReap: with the platform's clock moved two hours on, a dry run
// deletes nothing and reports the six expired resources; Reap then
// deletes exactly those, in order: the pod before the volume it mounts,
// the sandbox terminated, the endpoint scaled to zero workers before its
// delete. What has no
// lease, a lease not yet ended or a lease that does not parse is left.
// The machine's clock is decades before the fake's, so the deadlines were
// compared with the platform's Date header.
func TestReap(t *testing.T) {
	srv, rp, clk := fake(t)
	a := seed(t, rp)
	clk.Add(2 * time.Hour)
	want := []string{a.expired[lease.KindPod], a.expired[lease.KindSandbox], a.expired[lease.KindEndpoint], a.expired[lease.KindCluster],
		a.expired[lease.KindNetworkVolume], a.expired[lease.KindTemplate]}

	from := len(srv.Requests())
	dry, err := lease.Reap(t.Context(), rp, lease.ReapOptions{DryRun: true})
	require.NoError(t, err)
	assert.Empty(t, writes(srv, from), "a dry run changes nothing")
	assert.Equal(t, want, ids(dry.WouldDelete))
	assert.Empty(t, dry.Deleted)
	assert.Len(t, dry.Found, 12, "two leased resources of each kind")
	assert.Equal(t, t0.Add(2*time.Hour), dry.Now)
	require.Len(t, dry.Unreadable, 1)
	assert.Equal(t, "pod-bad~lease-2090010112", dry.Unreadable[0].Name)
	for _, r := range dry.WouldDelete {
		assert.Equal(t, a.names[r.ID], r.Name)
		assert.Equal(t, t0.Add(time.Hour), r.Deadline)
		prefix := map[lease.Kind]string{lease.KindPod: "pod", lease.KindSandbox: "sbx", lease.KindEndpoint: "ep", lease.KindCluster: "cl",
			lease.KindNetworkVolume: "vol", lease.KindTemplate: "tmpl"}[r.Kind]
		assert.Equal(t, prefix+"-old", r.Base)
	}

	from = len(srv.Requests())
	report, err := lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Equal(t, want, ids(report.Deleted))
	assert.Empty(t, report.Failed)
	ep := a.expired[lease.KindEndpoint]
	assert.Equal(t, []string{
		"DELETE /v2/pods/" + a.expired[lease.KindPod],
		"DELETE /v2/sandboxes/" + a.expired[lease.KindSandbox],
		"PATCH /v2/serverless/" + ep,
		"DELETE /v2/serverless/" + ep,
		"DELETE /v2/clusters/" + a.expired[lease.KindCluster],
		"DELETE /v2/network-volumes/" + a.expired[lease.KindNetworkVolume],
		"DELETE /v2/templates/" + a.expired[lease.KindTemplate],
	}, writes(srv, from))
	for _, r := range srv.Requests()[from:] {
		if r.Method == http.MethodPatch {
			assert.JSONEq(t, `{"workers":{"min":0,"max":0}}`, string(r.Body), "scaled to zero, nothing else")
		}
	}
	assert.Equal(t, map[lease.Kind][]string{
		lease.KindPod:           {"pod-bad~lease-2090010112", "pod-new~lease-20900101T1700Z", "pod-plain"},
		lease.KindSandbox:       {"sbx-new~lease-20900101T1700Z", "sbx-plain"},
		lease.KindEndpoint:      {"ep-new~lease-20900101T1700Z", "ep-plain"},
		lease.KindCluster:       {"cl-new~lease-20900101T1700Z", "cl-plain"},
		lease.KindNetworkVolume: {"vol-new~lease-20900101T1700Z", "vol-plain"},
		lease.KindTemplate:      {"tmpl-new~lease-20900101T1700Z", "tmpl-plain"},
	}, left(t, rp))

	// Run again, nothing is left to do; with Now past the later leases
	// (the platform's clock is not moved), they go too.
	again, err := lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.Empty(t, again.Deleted)
	later, err := lease.Reap(t.Context(), rp, lease.ReapOptions{Now: func() time.Time { return t0.Add(5 * time.Hour) }})
	require.NoError(t, err)
	assert.Len(t, later.Deleted, 6)
	assert.Equal(t, t0.Add(5*time.Hour), later.Now)
}

// TestReapGrace: a lease ended less than Grace ago is kept.
func TestReapGrace(t *testing.T) {
	_, rp, clk := fake(t)
	_, err := rp.Volumes.Create(t.Context(), volumeRequest(leased(t, "v", time.Hour)))
	require.NoError(t, err)
	clk.Add(time.Hour + 5*time.Minute)
	report, err := lease.Reap(t.Context(), rp, lease.ReapOptions{Grace: 10 * time.Minute})
	require.NoError(t, err)
	assert.Empty(t, report.Deleted)
	assert.Len(t, report.Found, 1)
	clk.Add(5 * time.Minute)
	report, err = lease.Reap(t.Context(), rp, lease.ReapOptions{Grace: 10 * time.Minute})
	require.NoError(t, err)
	assert.Len(t, report.Deleted, 1)
}

// TestReapGoneAndFailed: a pod deleted by someone else between Reap's
// list and its delete (the platform answers 404) counts as deleted; a
// volume whose delete fails is reported with the platform's error, and
// the other expired volume and the template are still reaped.
func TestReapGoneAndFailed(t *testing.T) {
	srv, rp, clk := fake(t)
	ctx := t.Context()
	p, err := rp.Pods.Create(ctx, podRequest(leased(t, "p", time.Hour), ""))
	require.NoError(t, err)
	v1, err := rp.Volumes.Create(ctx, volumeRequest(leased(t, "v1", time.Hour)))
	require.NoError(t, err)
	v2, err := rp.Volumes.Create(ctx, volumeRequest(leased(t, "v2", time.Hour)))
	require.NoError(t, err)
	tm, err := rp.Templates.Create(ctx, templateRequest(leased(t, "t", time.Hour)))
	require.NoError(t, err)
	clk.Add(2 * time.Hour)

	first, _ := v1, v2
	if v2.ID < v1.ID {
		first = v2
	}
	srv.FailNext(runpodtest.RouteDeleteNetworkVolume, 1, runpodtest.Fault{Status: http.StatusBadRequest})
	// Someone else deletes the pod just before Reap does.
	someoneElse := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if req.Method == http.MethodDelete && strings.HasSuffix(req.URL.Path, "/pods/"+p.ID) {
			assert.NoError(t, rp.Pods.Delete(req.Context(), p.ID))
		}
		return next(req)
	}
	report, err := lease.Reap(ctx, rp, lease.ReapOptions{}, option.WithMiddleware(someoneElse))
	require.Error(t, err)
	assert.ElementsMatch(t, []string{p.ID, v1.ID, v2.ID, tm.ID}, append(ids(report.Deleted), first.ID))
	require.Len(t, report.Failed, 1)
	f := report.Failed[0]
	assert.Equal(t, first.ID, f.Resource.ID)
	assert.Equal(t, lease.KindNetworkVolume, f.Resource.Kind)
	assert.Equal(t, lease.OpDelete, f.Op)
	var reapErr *lease.ReapError
	require.ErrorAs(t, err, &reapErr)
	assert.Same(t, f, reapErr)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Contains(t, err.Error(), "delete network volume "+first.ID)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteDeletePod), "one delete by someone else, one by Reap (404)")
	assert.Equal(t, map[lease.Kind][]string{lease.KindNetworkVolume: {first.Name}}, left(t, rp))
}

// TestReapEndpointGone: an endpoint deleted after Reap listed it counts
// as deleted, whether it is found gone at its scale-down or at its
// delete.
func TestReapEndpointGone(t *testing.T) {
	_, rp, clk := fake(t)
	ctx := t.Context()
	e, err := rp.Serverless.Endpoints.Create(ctx, endpointRequest(leased(t, "e", time.Hour)))
	require.NoError(t, err)
	clk.Add(2 * time.Hour)
	gone := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if req.Method == http.MethodPatch {
			assert.NoError(t, rp.Serverless.Endpoints.ScaleDownAndDelete(req.Context(), e.ID, option.Poll[int]{}))
		}
		return next(req)
	}
	report, err := lease.Reap(ctx, rp, lease.ReapOptions{}, option.WithMiddleware(gone))
	require.NoError(t, err)
	assert.Equal(t, []string{e.ID}, ids(report.Deleted))
}

// TestReapNeedsAClock: without a Date header in the platform's answers
// and without ReapOptions.Now, Reap deletes nothing and says why, for
// every kind.
func TestReapNeedsAClock(t *testing.T) {
	srv, rp, clk := fake(t)
	_, err := rp.Volumes.Create(t.Context(), volumeRequest(leased(t, "v", time.Hour)))
	require.NoError(t, err)
	clk.Add(2 * time.Hour)
	noDate := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if resp != nil {
			resp.Header.Del("Date")
		}
		return resp, err
	}
	from := len(srv.Requests())
	report, err := lease.Reap(t.Context(), rp, lease.ReapOptions{}, option.WithMiddleware(noDate))
	require.ErrorIs(t, err, lease.ErrNoPlatformClock)
	assert.Len(t, report.Failed, len(lease.AllKinds()))
	assert.Empty(t, report.Deleted)
	assert.Empty(t, writes(srv, from))
	assert.True(t, report.Now.IsZero())
}

// TestReapDistrustsAFarPlatformClock: a platform (or a proxy) answering a
// date more than a day from the machine's clock deletes nothing, says
// why with both clocks, and stops before listing the other kinds; a date
// within the bound, or an explicit Now, is used.
func TestReapDistrustsAFarPlatformClock(t *testing.T) {
	srv, rp, _ := fake(t)
	_, err := rp.Volumes.Create(t.Context(), volumeRequest(leased(t, "v", time.Hour)))
	require.NoError(t, err)
	dateOf := func(date string) option.RequestOption {
		return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			resp, err := next(req)
			if resp != nil {
				resp.Header.Set("Date", date)
			}
			return resp, err
		})
	}

	from := len(srv.Requests())
	report, err := lease.Reap(t.Context(), rp, lease.ReapOptions{}, dateOf("Fri, 31 Dec 9999 23:59:59 GMT"))
	require.ErrorIs(t, err, lease.ErrClockSkew)
	var skew *lease.ClockSkewError
	require.ErrorAs(t, err, &skew)
	assert.Equal(t, time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), skew.Platform)
	assert.Equal(t, t0, skew.Local)
	assert.Contains(t, err.Error(), "9999-12-31T23:59:59Z")
	assert.Contains(t, err.Error(), "2090-01-01T12:00:00Z")
	assert.Contains(t, err.Error(), "nothing deleted")
	assert.Empty(t, report.Deleted)
	assert.Empty(t, report.Found)
	assert.True(t, report.Now.IsZero())
	require.Len(t, report.Failed, 1, "one failure, then Reap stops")
	assert.Empty(t, writes(srv, from))
	assert.Len(t, srv.Requests()[from:], 1, "no kind listed after the first")

	// A day and a minute behind is refused too.
	_, err = lease.Reap(t.Context(), rp, lease.ReapOptions{}, dateOf(t0.Add(-lease.MaxClockSkew-time.Minute).Format(http.TimeFormat)))
	require.ErrorIs(t, err, lease.ErrClockSkew)

	// Within the bound, the platform's clock decides.
	report, err = lease.Reap(t.Context(), rp, lease.ReapOptions{}, dateOf(t0.Add(23*time.Hour).Format(http.TimeFormat)))
	require.NoError(t, err)
	assert.Len(t, report.Deleted, 1)
	assert.Equal(t, t0.Add(23*time.Hour), report.Now)

	// An explicit Now is the caller's choice: no check.
	_, err = lease.Reap(t.Context(), rp, lease.ReapOptions{Now: func() time.Time { return t0.Add(100 * 365 * 24 * time.Hour) }}, dateOf("Fri, 31 Dec 9999 23:59:59 GMT"))
	require.NoError(t, err)
}

// TestReapKinds: Kinds limits what is reaped.
func TestReapKinds(t *testing.T) {
	srv, rp, clk := fake(t)
	ctx := t.Context()
	_, err := rp.Volumes.Create(ctx, volumeRequest(leased(t, "v", time.Hour)))
	require.NoError(t, err)
	tm, err := rp.Templates.Create(ctx, templateRequest(leased(t, "t", time.Hour)))
	require.NoError(t, err)
	clk.Add(2 * time.Hour)
	report, err := lease.Reap(ctx, rp, lease.ReapOptions{Kinds: []lease.Kind{lease.KindTemplate}})
	require.NoError(t, err)
	assert.Equal(t, []string{tm.ID}, ids(report.Deleted))
	assert.Zero(t, srv.Count(runpodtest.RouteNetworkVolumes), "volumes not even listed")
	assert.Len(t, left(t, rp)[lease.KindNetworkVolume], 1)
}

// TestReapRefusesBadOptions: bad options are a *errs.ValidationError
// naming the field, before any request.
func TestReapRefusesBadOptions(t *testing.T) {
	srv, rp, _ := fake(t)
	from := srv.Count("*")
	for field, call := range map[string]func() error{
		"rp": func() error { _, err := lease.Reap(t.Context(), nil, lease.ReapOptions{}); return err },
		"ReapOptions.Kinds[1]": func() error {
			_, err := lease.Reap(t.Context(), rp, lease.ReapOptions{Kinds: []lease.Kind{lease.KindPod, "disk"}})
			return err
		},
		"ReapOptions.Grace": func() error {
			_, err := lease.Reap(t.Context(), rp, lease.ReapOptions{Grace: -time.Second})
			return err
		},
	} {
		var v *errs.ValidationError
		require.ErrorAs(t, call(), &v, field)
		assert.Equal(t, field, v.Field)
	}
	assert.Equal(t, from, srv.Count("*"))
}

// TestReapStopsWithTheContext: a context that has ended stops Reap before
// anything is deleted.
func TestReapStopsWithTheContext(t *testing.T) {
	srv, rp, clk := fake(t)
	_, err := rp.Volumes.Create(t.Context(), volumeRequest(leased(t, "v", time.Hour)))
	require.NoError(t, err)
	clk.Add(2 * time.Hour)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	from := len(srv.Requests())
	report, err := lease.Reap(ctx, rp, lease.ReapOptions{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, report.Deleted)
	assert.Empty(t, writes(srv, from))
}

// TestReportJSON: a Report encodes (for a CI job's log).
func TestReportJSON(t *testing.T) {
	b, err := json.Marshal(lease.Report{Deleted: []lease.Resource{{Kind: lease.KindPod, ID: "p1", Name: "x~lease-20900101T1300Z"}}})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Kind":"pod"`)
	assert.False(t, errors.Is(nil, lease.ErrNoPlatformClock))
}

// TestReapReadsEveryPage: with lists two to a page, the expired leases
// on the second page of each listing are found and deleted, and those on
// the first page too.
func TestReapReadsEveryPage(t *testing.T) {
	srv, rp, clk := fake(t, option.WithPageSize(2))
	var expired []string
	for i, name := range []string{"plain-a", "plain-b", leased(t, "old-c", time.Hour), leased(t, "old-d", time.Hour), "plain-e"} {
		p := srv.AddPod(runpodtest.Pod{ID: fmt.Sprintf("pod%d", i), Name: name, Image: "ubuntu:24.04", CPU: "cpu3g"})
		tm := srv.StoreTemplate(runpodtest.Template{ID: fmt.Sprintf("tpl%d", i), Name: name, Image: "ubuntu:24.04"})
		v := srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: fmt.Sprintf("vol%d", i), Name: name})
		if lease.Leased(name) {
			expired = append(expired, p, tm, v)
		}
	}
	clk.Add(2 * time.Hour)
	from := len(srv.Requests())
	report, err := lease.Reap(t.Context(), rp, lease.ReapOptions{})
	require.NoError(t, err)
	assert.ElementsMatch(t, expired, ids(report.Deleted))
	pages := 0
	for _, r := range srv.Requests()[from:] {
		if r.Method == http.MethodGet && strings.Contains(r.RawQuery, "cursor=") {
			pages++
		}
	}
	assert.Equal(t, 6, pages, "pods, volumes and templates: two pages after the first each")
	assert.Equal(t, map[lease.Kind][]string{
		lease.KindPod:           {"plain-a", "plain-b", "plain-e"},
		lease.KindNetworkVolume: {"plain-a", "plain-b", "plain-e"},
		lease.KindTemplate:      {"plain-a", "plain-b", "plain-e"},
	}, left(t, rp))
}

// TestReapTerminatesExpiredSandbox: a sandbox whose lease has ended is
// terminated (its billing stops), one whose lease has not is left
// running, and a second Reap finds nothing more to do: the terminated
// sandbox is no longer listed.
func TestReapTerminatesExpiredSandbox(t *testing.T) {
	srv, rp, clk := fake(t)
	ctx := t.Context()
	old, err := rp.Sandboxes.Create(ctx, sandboxRequest(leased(t, "agent", time.Hour)))
	require.NoError(t, err)
	kept, err := rp.Sandboxes.Create(ctx, sandboxRequest(leased(t, "agent", 3*time.Hour)))
	require.NoError(t, err)
	clk.Add(90 * time.Minute)

	report, err := lease.Reap(ctx, rp, lease.ReapOptions{Kinds: []lease.Kind{lease.KindSandbox}})
	require.NoError(t, err)
	require.Len(t, report.Deleted, 1)
	assert.Equal(t, old.ID, report.Deleted[0].ID)
	assert.Equal(t, lease.KindSandbox, report.Deleted[0].Kind)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteTerminateSandbox))
	states := map[string]string{}
	for _, sb := range srv.Sandboxes() {
		states[sb.ID] = sb.State + " " + sb.TerminationReason
	}
	assert.Equal(t, map[string]string{old.ID: "TERMINATED " + runpodtest.SandboxReasonRequested, kept.ID: "RUNNING "}, states)

	again, err := lease.Reap(ctx, rp, lease.ReapOptions{Kinds: []lease.Kind{lease.KindSandbox}})
	require.NoError(t, err)
	assert.Empty(t, again.Deleted)
	assert.Len(t, again.Found, 1)
}
