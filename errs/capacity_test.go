package errs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/errs"
)

func stockOut(reason errs.CapacityReason) error {
	return &errs.CapacityError{Reason: reason, APIError: &errs.APIError{StatusCode: 500, Method: "POST", Path: "/v2/pods", Detail: "x"}}
}

// TestPlacementErrorMatchesWhatHappened: an exhausted placement matches
// ErrNoCapacity; one stopped by an ambiguous failure matches
// ErrOutcomeUnknown and not ErrNoCapacity, though its earlier attempts
// were stock-outs.
func TestPlacementErrorMatchesWhatHappened(t *testing.T) {
	exhausted := &errs.PlacementError{Exhausted: true, Attempts: []errs.PlacementAttempt{
		{GPUTypeID: "A", Err: stockOut(errs.CapacityReasonOutOfStock)},
		{GPUTypeID: "B", DataCenterIDs: []string{"EU-RO-1"}, Cloud: "SECURE", Err: stockOut(errs.CapacityReasonNoMatchingHost)},
	}}
	assert.ErrorIs(t, exhausted, errs.ErrNoCapacity)
	assert.NotErrorIs(t, exhausted, errs.ErrOutcomeUnknown)
	assert.False(t, exhausted.AllNoMatchingHost())
	assert.Equal(t, "runpod: no candidate had capacity, nothing was created (2 tried); 1. A: out of stock; 2. B in EU-RO-1 on SECURE: no matching host", exhausted.Error())

	stopped := &errs.PlacementError{Attempts: []errs.PlacementAttempt{
		{GPUTypeID: "A", Err: stockOut(errs.CapacityReasonOutOfStock)},
		{GPUTypeID: "B", Err: &errs.APIError{StatusCode: 500, OutcomeUnknown: true}},
	}}
	assert.ErrorIs(t, stopped, errs.ErrOutcomeUnknown)
	assert.NotErrorIs(t, stopped, errs.ErrNoCapacity)
	assert.Contains(t, stopped.Error(), "placement stopped at candidate 2")

	cut := &errs.PlacementError{Attempts: []errs.PlacementAttempt{{Err: context.Canceled}}}
	assert.ErrorIs(t, cut, context.Canceled)
	assert.Contains(t, cut.Error(), "1. the request as given: context canceled")

	allNoHost := &errs.PlacementError{Exhausted: true, Attempts: []errs.PlacementAttempt{{Err: stockOut(errs.CapacityReasonNoMatchingHost)}, {Err: stockOut(errs.CapacityReasonNoMatchingHost)}}}
	assert.True(t, allNoHost.AllNoMatchingHost())
	assert.Contains(t, allNoHost.Error(), "the request itself is the likelier cause")
	assert.False(t, (&errs.PlacementError{Exhausted: true}).AllNoMatchingHost(), "no attempt is no evidence")
	assert.Nil(t, (&errs.PlacementError{}).Unwrap())
}

// TestCapacityError: its message says nothing was created, it matches
// ErrNoCapacity and unwraps to the platform's answer.
func TestCapacityError(t *testing.T) {
	err := stockOut(errs.CapacityReasonOutOfStock)
	assert.Equal(t, "runpod: POST /v2/pods: 500 no capacity (out of stock), nothing was created: x", err.Error())
	var api *errs.APIError
	assert.True(t, errors.As(err, &api))
	assert.Equal(t, "runpod: no capacity (out of stock), nothing was created", (&errs.CapacityError{Reason: errs.CapacityReasonOutOfStock}).Error())
	assert.NoError(t, (&errs.CapacityError{}).Unwrap())
}
