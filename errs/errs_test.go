package errs

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestAPIErrorIs(t *testing.T) {
	for status, sentinel := range map[int]error{401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound, 429: ErrRateLimited, 402: ErrPaymentRequired} {
		e := error(&APIError{StatusCode: status})
		assert.ErrorIs(t, e, sentinel)
		wrapped := fmt.Errorf("ctx: %w", e)
		assert.ErrorIs(t, wrapped, sentinel)
		for _, other := range []error{ErrUnauthorized, ErrForbidden, ErrNotFound, ErrRateLimited, ErrPaymentRequired, ErrOutcomeUnknown} {
			if other != sentinel {
				assert.NotErrorIs(t, e, other)
			}
		}
	}
	e := &APIError{StatusCode: 503, OutcomeUnknown: true, Method: "POST", Path: "/v2/ep/run"}
	assert.ErrorIs(t, e, ErrOutcomeUnknown)
	assert.Contains(t, e.Error(), "outcome unknown")
}

// TestAPIErrorNamesTheScope: a 403 whose operation needs a scope says
// which; without one the message is as before.
func TestAPIErrorNamesTheScope(t *testing.T) {
	e := &APIError{StatusCode: 403, Detail: "access denied", Method: "GET", Path: "/v2/tags/t1", RequestID: "req-1", RequiredScope: "tags:read"}
	assert.Equal(t, "runpod: GET /v2/tags/t1: 403 Forbidden: access denied (the operation needs an API key with scope tags:read) (request id req-1)", e.Error())
	assert.ErrorIs(t, e, ErrForbidden)
	e.RequiredScope = ""
	assert.Equal(t, "runpod: GET /v2/tags/t1: 403 Forbidden: access denied (request id req-1)", e.Error())
}

func TestTransportError(t *testing.T) {
	e := &TransportError{Method: "POST", Path: "/v2/ep/run", Attempts: 2, Err: context.Canceled, OutcomeUnknown: true}
	assert.ErrorIs(t, e, context.Canceled)
	assert.ErrorIs(t, e, ErrOutcomeUnknown)
	assert.Equal(t, "runpod: POST /v2/ep/run (after 2 attempts): context canceled; outcome unknown: the server may have acted on the request, so it was not retried", e.Error())
	assert.NotErrorIs(t, &TransportError{Err: context.Canceled}, ErrOutcomeUnknown)
	assert.Equal(t, "runpod: GET /x: request failed", (&TransportError{Method: "GET", Path: "/x"}).Error())
}

func TestValidationError(t *testing.T) {
	err := error(&ValidationError{Field: "Params.LastN", Message: "must be at least 1, got 0"})
	assert.ErrorIs(t, err, ErrValidation)
	assert.Equal(t, "runpod: invalid Params.LastN: must be at least 1, got 0", err.Error())
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, "Params.LastN", ve.Field)
	err = &ValidationError{Field: "RUNPOD_BASE_URL", Message: "plain http", Err: ErrInsecureURL}
	assert.ErrorIs(t, err, ErrInsecureURL)
	assert.ErrorIs(t, err, ErrValidation)
}

func TestGraphQLError(t *testing.T) {
	e := &GraphQLError{Operation: "SaveEndpoint", Errors: []GraphQLErrorDetail{
		{Message: "template not found", Path: []any{"saveEndpoint", float64(0)}, Extensions: map[string]any{"code": "NOT_FOUND"}},
		{Message: "second"},
	}}
	assert.Equal(t, "runpod: graphql SaveEndpoint: template not found (at saveEndpoint.0) [NOT_FOUND]; second", e.Error())
	assert.ErrorIs(t, e, ErrNotFound)
	assert.NotErrorIs(t, e, ErrUnauthorized)
	assert.ErrorIs(t, &GraphQLError{Errors: []GraphQLErrorDetail{{Extensions: map[string]any{"code": "UNAUTHENTICATED"}}}}, ErrUnauthorized)
	assert.ErrorIs(t, &GraphQLError{Errors: []GraphQLErrorDetail{{Extensions: map[string]any{"code": "FORBIDDEN"}}}}, ErrForbidden)
	assert.Equal(t, "runpod: graphql: unknown error", (&GraphQLError{}).Error())
	assert.Equal(t, "runpod: graphql: unknown error", (&GraphQLError{Errors: []GraphQLErrorDetail{{}}}).Error())
}
