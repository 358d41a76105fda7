package lease

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/sandboxes"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
	"github.com/runpodkit/runpod-go/volumes"
)

// Kind is a kind of resource a lease can be put on.
type Kind string

// The kinds Reap and Track know, in the order they are deleted: what runs
// before the network volumes it mounts and the templates it is made from.
const (
	// KindPod is a pod (a cluster's pods go with their cluster).
	KindPod Kind = "pod"
	// KindSandbox is a sandbox (package sandboxes), terminated: its
	// billing stops, and the platform keeps its record, which Reap no
	// longer lists.
	KindSandbox Kind = "sandbox"
	// KindEndpoint is a serverless endpoint, scaled to zero workers
	// before it is deleted, as serverless.Endpoints.Delete requires. The
	// delete does not wait for jobs: the platform cancels any still
	// queued or running.
	KindEndpoint Kind = "endpoint"
	// KindCluster is an instant cluster, deleted with its pods.
	KindCluster Kind = "cluster"
	// KindNetworkVolume is a network volume, deleted with its files.
	KindNetworkVolume Kind = "network volume"
	// KindTemplate is a pod or serverless template.
	KindTemplate Kind = "template"
)

// kindOrder lists every Kind, in the order Reap and Track delete them.
var kindOrder = []Kind{KindPod, KindSandbox, KindEndpoint, KindCluster, KindNetworkVolume, KindTemplate}

// AllKinds returns every Kind, in the order Reap and Track delete them.
func AllKinds() []Kind { return slices.Clone(kindOrder) }

// Operations a ReapError names.
const (
	// OpList is listing the resources of a kind.
	OpList = "list"
	// OpScaleToZero is setting an endpoint's workers min and max to 0.
	OpScaleToZero = "scale to zero"
	// OpDelete is deleting a resource.
	OpDelete = "delete"
)

// ErrNoPlatformClock is matched (errors.Is) by the ReapError of a kind
// Reap left alone because it had no clock to compare deadlines with: the
// platform's response carried no Date header it could read, and
// ReapOptions.Now was not set.
var ErrNoPlatformClock = errors.New("lease: no Date header in the platform's response and no ReapOptions.Now: deadlines cannot be compared")

// MaxClockSkew is how far the platform's clock (the Date header Reap
// reads) may be from this machine's before Reap trusts neither: a proxy
// or a server answering a wrong date (a year 9999) would otherwise make
// every lease look expired. Set ReapOptions.Now to choose the clock
// yourself.
const MaxClockSkew = 24 * time.Hour

// ErrClockSkew is matched (errors.Is) by a *ClockSkewError.
var ErrClockSkew = errors.New("lease: the platform's clock and this machine's disagree")

// ClockSkewError reports that the platform's clock, as its Date header
// gave it, was more than MaxClockSkew from this machine's clock: Reap
// deleted nothing. Check both clocks, or set ReapOptions.Now.
type ClockSkewError struct {
	// Platform is the time the platform's Date header gave.
	Platform time.Time
	// Local is this machine's time when the answer came.
	Local time.Time
}

// Error names both clocks and the bound.
func (e *ClockSkewError) Error() string {
	return fmt.Sprintf("lease: the platform's clock says %s and this machine's %s, more than %s apart: nothing deleted (check both clocks, or set ReapOptions.Now)",
		e.Platform.UTC().Format(time.RFC3339), e.Local.UTC().Format(time.RFC3339), MaxClockSkew)
}

// Is reports whether target is ErrClockSkew.
func (e *ClockSkewError) Is(target error) bool { return target == ErrClockSkew }

// localClock is this machine's clock, which the platform's is checked
// against; tests replace it.
var localClock = time.Now

// ReapOptions tunes Reap.
type ReapOptions struct {
	// DryRun reports what Reap would delete (Report.WouldDelete) and
	// deletes nothing.
	DryRun bool
	// Now, when set, is the clock deadlines are compared with. When nil,
	// Reap uses the platform's clock: the Date header of its first
	// listing's last page, so that a local clock that runs fast deletes
	// nothing early; when that date is more than MaxClockSkew from this
	// machine's clock, Reap deletes nothing and returns a *ClockSkewError.
	Now func() time.Time
	// Grace is added to every deadline before it is compared: a resource
	// is expired when its deadline plus Grace is not after now. It must
	// not be negative; zero reaps at the deadline.
	Grace time.Duration
	// Kinds are the kinds reaped; empty means every kind (AllKinds). They
	// are reaped in the order of AllKinds whatever the order given.
	Kinds []Kind
}

// Resource is a resource Reap found.
type Resource struct {
	// Kind is what the resource is.
	Kind Kind
	// ID is the platform's id of the resource.
	ID string
	// Name is the resource's name, as the platform reports it.
	Name string
	// Base is the name without its lease ("" when the lease does not
	// parse).
	Base string
	// Deadline is when the lease ends, in UTC (zero when the lease does
	// not parse).
	Deadline time.Time
}

// ReapError is a failure of Reap on one resource, or on listing one kind
// (then only Resource.Kind is set). It unwraps to the SDK's error, such as
// an *errs.APIError.
type ReapError struct {
	// Resource is what failed.
	Resource Resource
	// Op is what failed: OpList, OpScaleToZero or OpDelete.
	Op string
	// Err is why.
	Err error
}

// Error names the operation and the resource.
func (e *ReapError) Error() string {
	if e.Resource.ID == "" {
		return fmt.Sprintf("lease: %s %ss: %v", e.Op, e.Resource.Kind, e.Err)
	}
	return fmt.Sprintf("lease: %s %s %s (%q): %v", e.Op, e.Resource.Kind, e.Resource.ID, e.Resource.Name, e.Err)
}

// Unwrap returns the cause.
func (e *ReapError) Unwrap() error { return e.Err }

// Report is what Reap found and did.
type Report struct {
	// Now is the time deadlines were compared with: ReapOptions.Now's, or
	// the platform's (zero when no list succeeded).
	Now time.Time
	// Found lists every resource with a lease that parses, expired or not.
	Found []Resource
	// Deleted lists the expired resources Reap deleted, and those already
	// gone when it came to delete them (the platform answered 404).
	Deleted []Resource
	// WouldDelete lists, on a dry run, the expired resources Reap would
	// have deleted.
	WouldDelete []Resource
	// Unreadable lists the resources whose name carries the lease marker
	// but whose lease does not parse. Reap never touches them.
	Unreadable []Resource
	// Failed lists each failure: one per resource that could not be
	// deleted, one per kind that could not be listed.
	Failed []*ReapError
}

// Reap deletes every resource of rp's account whose lease (see Name) has
// ended: pods first, then sandboxes (terminated), serverless endpoints (each scaled to zero
// workers, then deleted), clusters, network volumes (after the pods and
// endpoints that mount them) and templates. A resource without a lease,
// or whose lease does not parse, is never touched. Deadlines are compared
// with o.Now, or else with the platform's clock (see ReapOptions.Now).
//
// One failure does not stop the others: each is in Report.Failed, and the
// error returned joins them (nil when there is none). A platform clock
// that disagrees with this machine's by more than MaxClockSkew stops
// Reap before it deletes anything (*ClockSkewError). A resource already
// gone (404) counts as deleted. o is checked first: a *errs.ValidationError
// naming the field, before any request. opts apply to every call.
func Reap(ctx context.Context, rp *runpod.Client, o ReapOptions, opts ...option.RequestOption) (Report, error) {
	if rp == nil {
		return Report{}, fail.Invalid("rp", "is nil")
	}
	kinds, err := o.kinds()
	if err != nil {
		return Report{}, err
	}
	r := reaper{rp: rp, o: o, opts: opts}
	if o.Now != nil {
		r.report.Now = o.Now().UTC()
	}
	for _, k := range kinds {
		if err := ctx.Err(); err != nil {
			r.report.Failed = append(r.report.Failed, &ReapError{Resource: Resource{Kind: k}, Op: OpList, Err: err})
			break
		}
		if !r.reap(ctx, k) {
			break
		}
	}
	errList := make([]error, len(r.report.Failed))
	for i, e := range r.report.Failed {
		errList[i] = e
	}
	return r.report, errors.Join(errList...)
}

// kinds returns the kinds o names, in the order of kindOrder.
func (o ReapOptions) kinds() ([]Kind, error) {
	if o.Grace < 0 {
		return nil, fail.Invalid("ReapOptions.Grace", "must not be negative, got %s", o.Grace)
	}
	if len(o.Kinds) == 0 {
		return kindOrder, nil
	}
	for i, k := range o.Kinds {
		if !slices.Contains(kindOrder, k) {
			return nil, fail.Invalid(fmt.Sprintf("ReapOptions.Kinds[%d]", i), "unknown kind %q", k)
		}
	}
	return slices.DeleteFunc(AllKinds(), func(k Kind) bool { return !slices.Contains(o.Kinds, k) }), nil
}

// reaper is one run of Reap.
type reaper struct {
	rp     *runpod.Client
	o      ReapOptions
	opts   []option.RequestOption
	report Report
}

// named is a listed resource: its id and name.
type named struct{ id, name string }

// reap lists the resources of kind k and deletes the expired ones; it
// reports false when Reap must stop: the platform's clock cannot be
// trusted.
func (r *reaper) reap(ctx context.Context, k Kind) bool {
	var info option.ResponseInfo
	listed, err := list(ctx, r.rp, k, append(slices.Clip(r.opts), option.WithResponseInto(&info)))
	if err != nil {
		r.fail(Resource{Kind: k}, OpList, err)
		return true
	}
	if r.report.Now.IsZero() {
		d, err := http.ParseTime(info.Header.Get("Date"))
		if err != nil {
			r.fail(Resource{Kind: k}, OpList, ErrNoPlatformClock)
			return true
		}
		if local := localClock(); d.Sub(local).Abs() > MaxClockSkew {
			r.fail(Resource{Kind: k}, OpList, &ClockSkewError{Platform: d.UTC(), Local: local.UTC()})
			return false
		}
		r.report.Now = d.UTC()
	}
	slices.SortFunc(listed, func(a, b named) int { return cmp.Compare(a.id, b.id) })
	for _, n := range listed {
		res := Resource{Kind: k, ID: n.id, Name: n.name}
		base, deadline, ok := Parse(n.name)
		switch {
		case !ok && Leased(n.name):
			r.report.Unreadable = append(r.report.Unreadable, res)
			continue
		case !ok:
			continue
		}
		res.Base, res.Deadline = base, deadline
		r.report.Found = append(r.report.Found, res)
		if deadline.Add(r.o.Grace).After(r.report.Now) {
			continue
		}
		if r.o.DryRun {
			r.report.WouldDelete = append(r.report.WouldDelete, res)
			continue
		}
		if err := ctx.Err(); err != nil {
			r.fail(res, OpDelete, err)
			return true
		}
		if op, err := remove(ctx, r.rp, k, n.id, r.opts); err != nil && !errors.Is(err, errs.ErrNotFound) {
			r.fail(res, op, err)
			continue
		}
		r.report.Deleted = append(r.report.Deleted, res)
	}
	return true
}

func (r *reaper) fail(res Resource, op string, err error) {
	r.report.Failed = append(r.report.Failed, &ReapError{Resource: res, Op: op, Err: err})
}

// list returns the id and name of every resource of kind k, from every
// page of its listing. A cluster's pods are not listed: they go with
// their cluster.
func list(ctx context.Context, rp *runpod.Client, k Kind, opts []option.RequestOption) ([]named, error) {
	switch k {
	case KindPod:
		return collect(rp.Pods.All(ctx, pods.ListPodsParams{}, opts...), func(p pods.Pod) named { return named{p.ID, p.Name} })
	case KindSandbox:
		return collect(rp.Sandboxes.All(ctx, sandboxes.ListSandboxesParams{}, opts...), func(s sandboxes.Sandbox) named { return named{s.ID, s.Name} })
	case KindEndpoint:
		return collect(rp.Serverless.Endpoints.All(ctx, opts...), func(e serverless.Endpoint) named { return named{e.ID, e.Name} })
	case KindCluster:
		return collect(rp.Clusters.All(ctx, opts...), func(c clusters.Cluster) named { return named{c.ID, c.Name} })
	case KindNetworkVolume:
		return collect(rp.Volumes.All(ctx, opts...), func(v volumes.NetworkVolume) named { return named{v.ID, v.Name} })
	case KindTemplate:
		return collect(rp.Templates.All(ctx, opts...), func(t templates.Template) named { return named{t.ID, t.Name} })
	}
	return nil, fail.Invalid("Kind", "unknown kind %q", k)
}

// collect maps the items of a listing through at, or returns the error
// that ended it.
func collect[T any](seq iter.Seq2[T, error], at func(T) named) ([]named, error) {
	out := []named{}
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, at(v))
	}
	return out, nil
}

// Delete deletes res (by its Kind and ID) as Reap does: an endpoint is
// scaled to zero workers first, as Endpoints.Delete deletes only such
// endpoints. A failure is a *ReapError naming the operation that failed;
// a resource already gone matches errs.ErrNotFound.
func Delete(ctx context.Context, rp *runpod.Client, res Resource, opts ...option.RequestOption) error {
	if op, err := remove(ctx, rp, res.Kind, res.ID, opts); err != nil {
		return &ReapError{Resource: res, Op: op, Err: err}
	}
	return nil
}

// remove deletes the resource id of kind k: an endpoint is scaled to
// zero workers first, as Endpoints.Delete deletes only such endpoints. It
// returns the operation that failed with its error.
func remove(ctx context.Context, rp *runpod.Client, k Kind, id string, opts []option.RequestOption) (string, error) {
	switch k {
	case KindPod:
		return OpDelete, rp.Pods.Delete(ctx, id, opts...)
	case KindSandbox:
		return OpDelete, rp.Sandboxes.Terminate(ctx, id, opts...)
	case KindEndpoint:
		if _, err := rp.Serverless.Endpoints.ScaleToZero(ctx, id, opts...); err != nil {
			return OpScaleToZero, err
		}
		return OpDelete, rp.Serverless.Endpoints.Delete(ctx, id, opts...)
	case KindCluster:
		return OpDelete, rp.Clusters.Delete(ctx, id, opts...)
	case KindNetworkVolume:
		return OpDelete, rp.Volumes.Delete(ctx, id, opts...)
	case KindTemplate:
		return OpDelete, rp.Templates.Delete(ctx, id, opts...)
	}
	return OpDelete, fail.Invalid("Kind", "unknown kind %q", k)
}
