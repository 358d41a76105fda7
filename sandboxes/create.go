package sandboxes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// TokenLabel is the label Create puts on every sandbox it creates, holding
// a random token (32 hexadecimal digits) unique to that create, by which
// it finds the sandbox again after an ambiguous failure. A request that
// sets Labels[TokenLabel] itself keeps its own token: a program that
// records the token before calling Create (in a file, a database) can find
// the sandbox by it even after the program was killed mid-create
// (FindByToken). One token names one create: never reuse it.
const TokenLabel = "runpod-go-create-token"

// RecoverTimeout bounds the lookup Create makes after an ambiguous
// failure. The lookup runs even when the create's own context has ended
// (a deadline, a Ctrl-C), so that a sandbox the platform did create is
// returned, with its id to terminate it, rather than lost.
const RecoverTimeout = 30 * time.Second

// Create launches a sandbox from req.ImageName or req.TemplateID (exactly
// one) and returns it, usually still CREATING: Wait until it is RUNNING.
// It is billed per second from now until it terminates, so Terminate it,
// on error paths too. req is validated first; nothing is sent when it is
// invalid (a *errs.ValidationError naming the field). The values of
// req.Env never appear in an error. The SDK does not clamp the timeouts:
// the platform applies the account's maxima and the returned sandbox
// reports what it applied.
//
// Create is never sent twice. It puts the label TokenLabel on the
// sandbox, with a random token (or the one req.Labels already holds under
// that key). When the create's outcome is unknown (the connection was
// reset after the request was sent, a 5xx, an answer that could not be
// read: errs.ErrOutcomeUnknown; or ctx ending while the request was out),
// Create lists the sandboxes carrying the
// token, for up to RecoverTimeout even when ctx has ended, and:
//
//   - returns the sandbox it finds, with a nil error, as if the create had
//     answered (the oldest, should a reused token find several);
//   - when none carries the token, returns the create's error, still
//     matching errs.ErrOutcomeUnknown, saying so. The platform may still
//     be acting on the request; call FindByToken before creating another.
//     Create does not send it again itself: nothing in the platform's docs
//     says a create that is absent from the list at one instant will not
//     appear at the next;
//   - when the lookup fails too, returns the create's error, naming the
//     token to look for later.
//
// Other answers: a 402 (the account's balance is too low) matches
// errs.ErrPaymentRequired; a 503, which the platform documents as "no
// capacity for the requested configuration" (try without DataCenterID, or
// later), is an *errs.CapacityError matching errs.ErrNoCapacity, after the
// same lookup found no sandbox with the token. Nothing was created in
// either case, and the same request may be sent again.
func (s *Service) Create(ctx context.Context, req CreateSandboxRequest, opts ...option.RequestOption) (*Sandbox, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // nothing sent: nothing to look for
		return nil, err
	}
	body := req
	body.Labels = maps.Clone(req.Labels)
	if body.Labels == nil {
		body.Labels = map[string]string{}
	}
	token := body.Labels[TokenLabel]
	if token == "" {
		token = NewToken()
		body.Labels[TokenLabel] = token
	}
	secrets := envValues(req.Env)
	sb, err := rest.Call[Sandbox](ctx, s.t, http.MethodPost, rest.At(sandboxesRoute), (*createWire)(&body), opts)
	if err == nil {
		return sb, nil
	}
	err = fail.Capacity(err)
	var api *errs.APIError
	noCapacity := errors.As(err, &api) && api.StatusCode == http.StatusServiceUnavailable
	// A create cut by the caller's context (a deadline, a Ctrl-C) may have
	// reached the platform too.
	cut := ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
	if !noCapacity && !cut && !errors.Is(err, errs.ErrOutcomeUnknown) {
		return nil, redact.Error(err, secrets...)
	}
	lookup, cancel := context.WithTimeout(context.WithoutCancel(ctx), RecoverTimeout)
	defer cancel()
	found, lerr := s.FindByToken(lookup, token, opts...)
	switch {
	case lerr != nil:
		return nil, redact.Error(fmt.Errorf("%w; looking for the sandbox by its label %s=%s failed too (list by that label before creating another): %v",
			err, TokenLabel, token, lerr), secrets...)
	case found != nil:
		return found, nil
	case noCapacity:
		c := *api
		c.OutcomeUnknown = false
		return nil, redact.Error(&errs.CapacityError{Reason: errs.CapacityReasonOutOfStock, Wording: "no capacity", APIError: &c}, secrets...)
	}
	return nil, redact.Error(fmt.Errorf("%w; no sandbox carries its label %s=%s yet (FindByToken before creating another)",
		err, TokenLabel, token), secrets...)
}

// FindByToken returns the sandbox that carries the label TokenLabel with
// token (the oldest, should several), or nil with a nil error when none
// does. Terminated sandboxes are not looked at.
func (s *Service) FindByToken(ctx context.Context, token string, opts ...option.RequestOption) (*Sandbox, error) {
	if token == "" {
		return nil, fail.Invalid("token", "is empty")
	}
	want := map[string]string{TokenLabel: token}
	var match []Sandbox
	for sb, err := range s.All(ctx, ListSandboxesParams{Labels: []string{Label(TokenLabel, token)}}, opts...) {
		if err != nil {
			return nil, err
		}
		// A platform that ignored the filter must not hand back another
		// create's sandbox.
		if hasLabels(sb, want) {
			match = append(match, sb)
		}
	}
	if len(match) == 0 {
		return nil, nil
	}
	sb := oldest(match)
	return &sb, nil
}

// NewToken returns a random token for TokenLabel: 32 hexadecimal digits.
func NewToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// createWire is CreateSandboxRequest as it is sent: encoding/json writes
// its Env values, which CreateSandboxRequest's own MarshalJSON hides.
type createWire CreateSandboxRequest

// Validate checks the request (CreateSandboxRequest.Validate), as Create
// has before.
func (w *createWire) Validate() error { return (*CreateSandboxRequest)(w).Validate() }

// MarshalJSON writes the request with each Env value as "[REDACTED]":
// JSON made from an SDK value never holds a value that may be a secret.
// Create sends the values themselves.
func (r CreateSandboxRequest) MarshalJSON() ([]byte, error) {
	w := createWire(r)
	if r.Env != nil {
		w.Env = make(map[string]string, len(r.Env))
		for k := range r.Env {
			w.Env[k] = "[REDACTED]"
		}
	}
	return json.Marshal(w)
}

// envValues returns the values of env, to keep out of errors.
func envValues(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, v := range env {
		out = append(out, v)
	}
	return out
}
