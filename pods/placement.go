package pods

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/placement"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
)

// Candidate is one place CreateWithFallback tries: what it changes in the
// request. A field left empty keeps the request's own value.
type Candidate struct {
	// GPUTypeID replaces the request's GPU.ID (a GPU pod's); empty keeps
	// it.
	GPUTypeID string
	// DataCenterIDs replace the request's DataCenterIDs, the data centers
	// the pod may run in; empty keeps them.
	DataCenterIDs []string
	// Cloud replaces the request's Cloud; empty keeps it.
	Cloud Cloud
}

// CandidatesFrom returns a candidate per GPU type and data center of
// offers, as catalog.Service.FindGPUs returns them: the cheapest type
// first, and for each type its data centers with stock, the most
// available first. Query the catalog with the request's cloud, GPU count
// and CUDA floor, so that the stock it reports is the request's.
func CandidatesFrom(offers []catalog.GPUOffer) []Candidate {
	var out []Candidate
	for _, o := range offers {
		for _, d := range o.DataCenters {
			out = append(out, Candidate{GPUTypeID: o.GPU.ID, DataCenterIDs: []string{d.ID}})
		}
	}
	return out
}

// apply returns req with c's changes.
func (c Candidate) apply(req CreatePodRequest) CreatePodRequest {
	if c.GPUTypeID != "" && req.GPU != nil {
		g := *req.GPU
		g.ID = c.GPUTypeID
		req.GPU = &g
	}
	if len(c.DataCenterIDs) > 0 {
		req.DataCenterIDs = slices.Clone(c.DataCenterIDs)
	}
	if c.Cloud != "" {
		req.Cloud = &c.Cloud
	}
	return req
}

// attempt describes req as a placement attempt.
func attempt(req CreatePodRequest) errs.PlacementAttempt {
	a := errs.PlacementAttempt{DataCenterIDs: req.DataCenterIDs}
	if req.GPU != nil {
		a.GPUTypeID = req.GPU.ID
	}
	if req.Cloud != nil {
		a.Cloud = string(*req.Cloud)
	}
	return a
}

// CreateWithFallback creates one pod, trying the candidates in order with
// one create each, and returns the first pod created. It moves to the next
// candidate only when the platform answers that it has no capacity (an
// error matching errs.ErrNoCapacity, which says nothing was created), and
// stops at once on any other failure: a 4xx, which another place would
// not fix, or an answer that leaves the outcome unknown (a pod may exist;
// the error then matches errs.ErrOutcomeUnknown, and no further create is
// sent). Either way the error is a *errs.PlacementError listing every
// attempt; when all the candidates are out of capacity it matches
// errs.ErrNoCapacity.
//
// Each candidate changes the request's GPU type, data centers or cloud
// (see Candidate); CandidatesFrom makes them from the catalog's offers, the
// cheapest in stock first. Every candidate's request is validated before
// the first is sent.
func (s *Service) CreateWithFallback(ctx context.Context, req CreatePodRequest, candidates []Candidate, opts ...option.RequestOption) (*Pod, error) {
	reqs, attempts, err := candidateRequests(req, candidates)
	if err != nil {
		return nil, err
	}
	return placement.Try(ctx, attempts, func(ctx context.Context, i int) (*Pod, error) {
		return s.Create(ctx, reqs[i], opts...)
	})
}

// candidateRequests returns req changed by each candidate, each validated,
// and the attempts that describe them.
func candidateRequests(req CreatePodRequest, candidates []Candidate) ([]CreatePodRequest, []errs.PlacementAttempt, error) {
	if err := placement.NeedCandidates(len(candidates)); err != nil {
		return nil, nil, err
	}
	reqs := make([]CreatePodRequest, len(candidates))
	attempts := make([]errs.PlacementAttempt, len(candidates))
	for i, c := range candidates {
		switch {
		case c.GPUTypeID != "" && req.GPU == nil:
			return nil, nil, fail.Invalid(placement.Field(i, "GPUTypeID"), "is set, but the request is for a CPU pod")
		case c.GPUTypeID != "" && strings.TrimSpace(c.GPUTypeID) == "":
			return nil, nil, fail.Invalid(placement.Field(i, "GPUTypeID"), "is blank")
		case c.Cloud != "" && !c.Cloud.Valid():
			return nil, nil, fail.Invalid(placement.Field(i, "Cloud"), "want SECURE or COMMUNITY, got %q", c.Cloud)
		}
		for j, dc := range c.DataCenterIDs {
			if strings.TrimSpace(dc) == "" {
				return nil, nil, fail.Invalid(placement.Field(i, fmt.Sprintf("DataCenterIDs[%d]", j)), "is empty")
			}
		}
		reqs[i] = c.apply(req)
		if err := reqs[i].Validate(); err != nil {
			return nil, nil, placement.InCandidate(i, err)
		}
		attempts[i] = attempt(reqs[i])
	}
	return reqs, attempts, nil
}

// StockPollInterval is how often CreateWhenAvailable reads the catalog's
// stock when its Poll sets no Interval.
const StockPollInterval = 30 * time.Second

// CreateWhenAvailable waits for capacity, then creates the pod, as the
// console's "deploy when available" does. It reads the catalog's stock of
// req's GPU type (for req's cloud, GPU count and CUDA floor, in req's data
// centers, any when it names none) every o.Interval (StockPollInterval
// when zero: stock moves in minutes, and each check is a catalog read),
// passing what it read
// to o.OnCheck: the data centers with stock, the most available first.
// Once some data center has stock it creates the pod there (req's data
// centers narrowed to those with stock, in that order). When the stock
// went between the read and the create (an error matching
// errs.ErrNoCapacity), it goes back to waiting; any other create error
// ends it as Create's would. It waits for as long as ctx allows: a wait
// that ends before a create was sent returns ctx's error, and nothing was
// created.
func (s *Service) CreateWhenAvailable(ctx context.Context, req CreatePodRequest, o option.Poll[[]catalog.DataCenterAvailability], opts ...option.RequestOption) (*Pod, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.GPU == nil {
		return nil, fail.Invalid("CreatePodRequest.GPU", "is required: CreateWhenAvailable waits for a GPU type's stock")
	}
	q := catalog.GPUQuery{DataCenters: req.DataCenterIDs, MinCUDAVersion: deref(req.GPU.MinCUDAVersion)}
	if req.Cloud != nil && *req.Cloud == CloudCommunity {
		q.Cloud = catalog.GPUCloudFilterCommunity
	}
	if req.GPU.Count != nil {
		q.Count = *req.GPU.Count
	}
	interval := cmp.Or(o.Interval, StockPollInterval)
	checks := 0
	for {
		offers, err := s.catalog().FindGPUs(ctx, q, opts...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, waitEnded(req.GPU.ID, checks, err)
			}
			return nil, err
		}
		checks++
		var where []catalog.DataCenterAvailability
		for _, of := range offers {
			if of.GPU.ID == req.GPU.ID {
				where = of.DataCenters
			}
		}
		wait.Saw(o, where)
		if len(where) > 0 {
			r := req
			r.DataCenterIDs = catalog.GPUOffer{DataCenters: where}.DataCenterIDs()
			pod, err := s.Create(ctx, r, opts...)
			if !errors.Is(err, errs.ErrNoCapacity) {
				return pod, err
			}
		}
		if err := wait.Sleep(ctx, interval); err != nil {
			return nil, waitEnded(req.GPU.ID, checks, err)
		}
	}
}

// waitEnded is CreateWhenAvailable's error when ctx ends its wait.
func waitEnded(gpu string, checks int, err error) error {
	return fmt.Errorf("runpod: waiting for stock of %s (%d checks), nothing was created: %w", gpu, checks, err)
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
