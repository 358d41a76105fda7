package fail_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// answer builds the *errs.APIError of a create answered with status and
// body, as the transport does (its outcome unknown on a 5xx).
func answer(status int, contentType, body string) *errs.APIError {
	e := fail.APIError(status, http.Header{"Content-Type": {contentType}}, []byte(body), now)
	e.Method, e.Path, e.OutcomeUnknown = "POST", "/v2/pods", status >= 500
	return e
}

// TestCapacityWordings: every message the platform was seen to answer a
// create with when it had no room (in the body shapes it uses) is a
// *errs.CapacityError with its reason, no longer of unknown outcome.
func TestCapacityWordings(t *testing.T) {
	for msg, reason := range map[string]errs.CapacityReason{
		"There are no longer any instances available with the requested specifications. Please refresh and try again.": errs.CapacityReasonOutOfStock,
		"create pod: There are no instances currently available.":                                                      errs.CapacityReasonOutOfStock,
		"no instances available": errs.CapacityReasonOutOfStock,
		"This machine does not have the resources to deploy your pod. Please try a different machine": errs.CapacityReasonOutOfStock,
		"There are not enough free GPUs on the host machine to start this pod.":                       errs.CapacityReasonOutOfStock,
		"create pod: could not find any pods with required specifications":                            errs.CapacityReasonNoMatchingHost,
	} {
		for _, e := range []*errs.APIError{
			answer(500, "application/json", fmt.Sprintf(`{"error":%q}`, msg)),
			answer(500, "application/problem+json", fmt.Sprintf(`{"title":"Internal Server Error","status":500,"detail":%q}`, msg)),
			answer(500, "text/plain", msg),
			answer(400, "application/json", fmt.Sprintf(`{"error":%q}`, msg)),
		} {
			err := fail.Capacity(fmt.Errorf("wrapped: %w", e))
			var c *errs.CapacityError
			require.ErrorAs(t, err, &c, msg)
			assert.Equal(t, reason, c.Reason, msg)
			assert.ErrorIs(t, err, errs.ErrNoCapacity)
			assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown, msg)
			assert.True(t, e.OutcomeUnknown == (e.StatusCode >= 500), "the original error is not changed")
			assert.Equal(t, e.StatusCode, c.APIError.StatusCode)
			assert.Contains(t, c.Error(), "POST /v2/pods")
		}
	}
}

// TestCapacityLeavesTheRestAlone: a message that does not say nothing was
// created keeps its outcome unknown, and so does a gateway's 5xx even
// when it repeats a wording; other errors pass through.
func TestCapacityLeavesTheRestAlone(t *testing.T) {
	for _, e := range []*errs.APIError{
		answer(500, "application/json", `{"error":"internal server error"}`),
		answer(500, "application/json", `{"error":"create pod: timeout writing response"}`),
		answer(500, "text/plain", "upstream connect error"),
		answer(500, "application/json", `{"error":"user has no resources quota remaining"}`),
		answer(502, "text/plain", "There are no instances currently available"),
		answer(503, "text/plain", "no instances available"),
		answer(200, "application/json", `{"error":"no instances available"}`),
	} {
		err := fail.Capacity(e)
		assert.Same(t, e, err)
		assert.NotErrorIs(t, err, errs.ErrNoCapacity)
	}
	plain := errors.New("no instances available")
	assert.Same(t, plain, fail.Capacity(plain))
	assert.NoError(t, fail.Capacity(nil))
}

// FuzzCapacity: any status and body give either the error as it was or a
// *errs.CapacityError that is not of unknown outcome.
func FuzzCapacity(f *testing.F) {
	f.Add(500, `{"error":"There are no instances currently available"}`)
	f.Add(500, `{"error":"x"}`)
	f.Add(409, "NOT ENOUGH FREE GPUS")
	f.Fuzz(func(t *testing.T, status int, body string) {
		e := answer(status, "application/json", body)
		err := fail.Capacity(e)
		var c *errs.CapacityError
		if errors.As(err, &c) {
			if errors.Is(err, errs.ErrOutcomeUnknown) || (status != 500 && (status < 400 || status > 499)) {
				t.Fatalf("status %d %q: %v", status, body, err)
			}
			return
		}
		if err != error(e) {
			t.Fatalf("changed: %v", err)
		}
	})
}
