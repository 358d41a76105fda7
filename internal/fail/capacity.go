package fail

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
)

// capacityWording is a message the platform answers a create with when it
// has no room, and which was seen to leave nothing created.
type capacityWording struct {
	text   string // lower case; matched anywhere in the message
	reason errs.CapacityReason
	seen   string // where it was observed
}

// capacityWordings is the one list of the platform's no-capacity wordings,
// each with where it was observed. A create answered with one of them
// created nothing (another Go client counted 41 such answers out of 41 with
// no pod left behind), so the SDK reports errs.ErrNoCapacity instead of
// errs.ErrOutcomeUnknown. A message not in this list keeps the outcome
// unknown: downgrading a 500 that does not say "nothing was created" could
// leave a billed pod unaccounted for.
var capacityWordings = []capacityWording{
	{"no longer any instances available", errs.CapacityReasonOutOfStock,
		`"There are no longer any instances available with the requested specifications. Please refresh and try again." ` +
			`runpodctl #189, mlabonne/llm-autoeval #3, dstack #1740, runpod-python #168; a live REST create in one data center`},
	{"no instances currently available", errs.CapacityReasonOutOfStock,
		`"create pod: There are no instances currently available", a live REST create (RTX 3080 Ti), seen by cozy-creator/runpod-go-sdk`},
	{"no instances available", errs.CapacityReasonOutOfStock,
		`a REST 500 body recorded by cozy-creator/runpod-go-sdk`},
	{"does not have the resources to deploy your pod", errs.CapacityReasonOutOfStock,
		`"This machine does not have the resources to deploy your pod. Please try a different machine", a live REST create (RTX 4090), seen by cozy-creator/runpod-go-sdk`},
	{"not enough free gpus", errs.CapacityReasonOutOfStock,
		`"There are not enough free GPUs on the host machine to start this pod.", starting a stopped pod whose host is full, ` +
			`recorded in users' public notes, once as a 400 {"error":"not enough free GPUs on host"}`},
	{"could not find any pods with required specifications", errs.CapacityReasonNoMatchingHost,
		`"create pod: could not find any pods with required specifications", a live REST create no host could satisfy, seen by cozy-creator/runpod-go-sdk`},
}

// Capacity returns err as a *errs.CapacityError when it is the platform's
// no-capacity answer: an *errs.APIError with status 500 or 4xx whose
// message holds one of capacityWordings. Any other error is returned as it
// is, nil included.
func Capacity(err error) error {
	var e *errs.APIError
	if err == nil || !errors.As(err, &e) {
		return err
	}
	if e.StatusCode != http.StatusInternalServerError && (e.StatusCode < 400 || e.StatusCode > 499) {
		return err
	}
	msg := strings.ToLower(strings.Join(append([]string{e.Title, e.Detail, e.Excerpt, string(bytes.TrimSpace(e.Body))}, e.Errors...), "\n"))
	for _, w := range capacityWordings {
		if strings.Contains(msg, w.text) {
			found := *e
			found.OutcomeUnknown = false
			return &errs.CapacityError{Reason: w.reason, Wording: w.text, APIError: &found}
		}
	}
	return err
}
