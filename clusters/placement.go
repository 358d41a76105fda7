package clusters

import (
	"context"
	"slices"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/placement"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
)

// CreateWithFallback creates one cluster, trying the candidates in order
// with one create each, as pods.Service.CreateWithFallback does for a pod:
// it moves on only after an answer matching errs.ErrNoCapacity (nothing
// was created) and stops at once on any other failure, and its error is a
// *errs.PlacementError listing every attempt. A candidate's GPUTypeID
// replaces req.Compute.GPUTypeID and its DataCenterIDs replace
// req.DataCenterIDs; clusters run on secure cloud only, so a candidate
// sets no Cloud. pods.CandidatesFrom makes candidates from the catalog's
// offers (query it with the cluster's GPU count per pod).
func (s *Service) CreateWithFallback(ctx context.Context, req CreateClusterRequest, candidates []pods.Candidate, opts ...option.RequestOption) (*Cluster, error) {
	if err := placement.NeedCandidates(len(candidates)); err != nil {
		return nil, err
	}
	reqs := make([]CreateClusterRequest, len(candidates))
	attempts := make([]errs.PlacementAttempt, len(candidates))
	for i, c := range candidates {
		if c.Cloud != "" {
			return nil, fail.Invalid(placement.Field(i, "Cloud"), "must be empty: clusters run on secure cloud only")
		}
		r := req
		if c.GPUTypeID != "" {
			if strings.TrimSpace(c.GPUTypeID) == "" {
				return nil, fail.Invalid(placement.Field(i, "GPUTypeID"), "is blank")
			}
			r.Compute.GPUTypeID = c.GPUTypeID
		}
		if len(c.DataCenterIDs) > 0 {
			r.DataCenterIDs = slices.Clone(c.DataCenterIDs)
		}
		if err := r.Validate(); err != nil {
			return nil, placement.InCandidate(i, err)
		}
		reqs[i] = r
		attempts[i] = errs.PlacementAttempt{GPUTypeID: r.Compute.GPUTypeID, DataCenterIDs: r.DataCenterIDs}
	}
	return placement.Try(ctx, attempts, func(ctx context.Context, i int) (*Cluster, error) {
		return s.Create(ctx, reqs[i], opts...)
	})
}
