// Package secrets manages the account's secrets over the REST v2 API:
// encrypted strings (API tokens, passwords) that templates, pods and
// serverless endpoints use without holding them. An environment variable
// whose value is the reference "{{ RUNPOD_SECRET_<name> }}" (Ref renders
// it) receives the secret's value when the pod or worker boots.
//
//	s, err := rp.Secrets.Create(ctx, secrets.CreateSecretRequest{
//		Name:  "hf-token",
//		Value: secret.NewString(os.Getenv("HF_TOKEN")), // write-only: never returned or printed
//	})
//	// A template (or a pod, or an endpoint) refers to it:
//	// templates.CreateTemplateRequest{…, Env: map[string]string{"HF_TOKEN": secrets.Ref("hf-token")}}
//	_, err = rp.Secrets.Rotate(ctx, s.ID, secret.NewString(newToken)) // at the next boot
//	err = rp.Secrets.Delete(ctx, s.ID)
//
// Service (runpod.Client.Secrets) creates, reads, lists, rotates,
// describes and deletes secrets (Create, Get, List, Find, Rotate,
// SetDescription, Delete). The types are generated from the platform's
// REST v2 document: Secret, CreateSecretRequest.
//
// # Values are write-only
//
// A value goes to the platform in Create or Rotate and never comes back:
// Secret holds the id, the name, the description and times only. A value
// is a secret.String, which prints as "[REDACTED]" with every fmt verb,
// logs so with every slog handler and marshals so with encoding/json
// (the SDK sends the value through a wire type of its own). An error
// Create or Rotate returns has the value scrubbed from whatever the
// platform sent back.
//
// # Names and references
//
// A name is 1 to 191 characters, starts with a letter or '_' and holds
// letters, digits and "_.-/"; a name starting with RUNPOD, in any case,
// is reserved. Create checks it before anything is sent (a
// *errs.ValidationError naming CreateSecretRequest.Name), as it checks
// the value (not empty, under 16 MiB of UTF-8) and the description (at
// most 65,535 bytes). A name is unique in the account (a second Create of
// it is a *errs.APIError with status 409) and cannot change.
//
// Ref renders the reference to a secret, which the create requests of
// package templates, pods and serverless take as any variable's value;
// their Validate refuses a reference whose name no secret can have, so a
// typo fails before anything is sent rather than at boot.
//
// # Rotation takes effect at the next boot
//
// Rotate sets a new value. The platform substitutes references when a
// pod or a worker boots: running pods and workers keep the value they
// started with until they restart (pods.Service.Restart, or Stop then
// Start) or are replaced. Deleting a secret is not refused while
// references to it remain; a pod or worker that boots with a reference
// to a secret that does not exist fails to start.
//
// # Retries
//
// Create is never repeated after it may have reached the platform: after
// an ambiguous failure the error matches errs.ErrOutcomeUnknown, and Find
// tells whether the secret exists. Reads, Rotate, SetDescription and
// Delete are retried; a retried Delete whose earlier attempt already
// removed the secret succeeds.
package secrets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/secretref"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// Routes of the REST v2 document.
const (
	secretsRoute = "/v2/account/secrets"
	secretRoute  = "/v2/account/secrets/{secretId}"
)

// Limits of a secret, as the platform's pages give them.
const (
	// MaxNameLen is the longest name, in characters.
	MaxNameLen = secretref.MaxName
	// MaxValueBytes is the largest value, in bytes of UTF-8: a value must
	// be smaller (strictly under 16 MiB).
	MaxValueBytes = 16 << 20
	// MaxDescriptionBytes is the longest description, in bytes of UTF-8.
	MaxDescriptionBytes = 65535
)

// secretID is the rule of secret ids: letters, digits, '-' and '_', so
// that an id is one path segment that no server or proxy rewrites.
var secretID = rest.ID{Field: "secretID", Extra: "-_"}

func secretAt(id string) rest.Path { return rest.At(secretRoute, secretID.Of(id)) }

// Ref returns the reference to the secret name that an environment
// variable's value carries, "{{ RUNPOD_SECRET_<name> }}": the platform
// replaces it with the secret's value when a pod or a worker boots. Use
// it as the value of a variable in the create or update requests of
// templates, pods and serverless endpoints:
//
//	Env: map[string]string{"HF_TOKEN": secrets.Ref("hf-token")}
//
// Ref does not fail: those requests' Validate refuse a reference whose
// name no secret can have (CheckName), naming the variable, before
// anything is sent.
func Ref(name string) string { return secretref.Format(name) }

// ParseRef returns the name of the secret value refers to, when value is
// one reference and nothing else, "{{ RUNPOD_SECRET_<name> }}" (spaces
// inside the braces optional); ok is false for any other value. It does
// not check the name (CheckName does).
func ParseRef(value string) (name string, ok bool) { return secretref.Only(value) }

// CheckName returns a *errs.ValidationError naming "name" when name is
// not one a secret can have: 1 to 191 characters, starting with a letter
// or '_', then letters, digits and "_.-/", not starting with RUNPOD in
// any case.
func CheckName(name string) error { return secretref.CheckName("name", name) }

// Validate checks the request before anything is sent: the name
// (CheckName's rules), a value that is not empty and under MaxValueBytes,
// and a description of at most MaxDescriptionBytes. No error quotes the
// value.
func (r CreateSecretRequest) Validate() error {
	const f = "CreateSecretRequest"
	if err := secretref.CheckName(f+".Name", r.Name); err != nil {
		return err
	}
	if err := checkValue(f+".Value", r.Value); err != nil {
		return err
	}
	if r.Description != nil {
		return checkDescription(f+".Description", *r.Description)
	}
	return nil
}

func checkValue(field string, v secret.String) error {
	s := v.Reveal()
	switch {
	case s == "":
		return fail.Invalid(field, "is required")
	case len(s) >= MaxValueBytes:
		return fail.Invalid(field, "must be under %d bytes (16 MiB), got %d", MaxValueBytes, len(s))
	case !utf8.ValidString(s):
		return fail.Invalid(field, "must be UTF-8 text")
	}
	return nil
}

func checkDescription(field, d string) error {
	switch {
	case len(d) > MaxDescriptionBytes:
		return fail.Invalid(field, "must be at most %d bytes, got %d", MaxDescriptionBytes, len(d))
	case !utf8.ValidString(d):
		return fail.Invalid(field, "must be UTF-8 text")
	}
	return nil
}

// createBody is the wire body of Create: the value as it is.
type createBody struct {
	Name        string  `json:"name"`
	Value       string  `json:"value"`
	Description *string `json:"description,omitempty"`
}

// checked is a body validated by the request it stands for, so that the
// request's field names are the ones errors name.
type checked struct {
	body     any
	validate func() error
}

func (c checked) Validate() error { return c.validate() }

// MarshalJSON encodes the wire body, its strings as they are (no HTML
// escaping), as the transport encodes every body.
func (c checked) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Create stores a secret and returns it (without its value). The request
// is validated first (nothing is sent when it is invalid) and never
// repeated after it may have reached the platform: after an ambiguous
// failure the error matches errs.ErrOutcomeUnknown, and Find tells
// whether the secret exists. A name the account already has is a
// *errs.APIError with status 409. The returned error never contains the
// value.
func (s *Service) Create(ctx context.Context, req CreateSecretRequest, opts ...option.RequestOption) (*Secret, error) {
	body := checked{
		body:     createBody{Name: req.Name, Value: req.Value.Reveal(), Description: req.Description},
		validate: req.Validate,
	}
	r, err := rest.Call[Secret](ctx, s.t, http.MethodPost, rest.At(secretsRoute), body, opts)
	return r, scrub(err, req.Value.Reveal())
}

// scrub removes value from what err shows. A validation error never
// quotes a value, and scrubbing costs time in proportion to the value
// (up to 16 MiB), so it is spent only on errors that carry what the
// platform sent back.
func scrub(err error, value string) error {
	if err == nil || errors.Is(err, errs.ErrValidation) {
		return err
	}
	return redact.Error(err, value)
}

// Get returns one secret, without its value; an unknown id is an error
// matching errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Secret, error) {
	return rest.Call[Secret](ctx, s.t, http.MethodGet, secretAt(id), nil, opts)
}

// List returns the account's secrets, without their values. The platform
// answers the whole list at once (its page gives no cursor).
func (s *Service) List(ctx context.Context, opts ...option.RequestOption) ([]Secret, error) {
	r, err := rest.Call[listSecretsResponse](ctx, s.t, http.MethodGet, rest.At(secretsRoute), nil, opts)
	if err != nil {
		return nil, err
	}
	if r.Secrets == nil {
		r.Secrets = []Secret{}
	}
	return r.Secrets, nil
}

// Find returns the secret named name (the platform matches names in any
// case), or an error matching errs.ErrNotFound when the account has none:
// after a Create whose outcome is unknown, it tells whether the secret
// was created.
func (s *Service) Find(ctx context.Context, name string, opts ...option.RequestOption) (*Secret, error) {
	p := rest.At(secretsRoute).Check(secretref.CheckName("name", name)).Query(url.Values{"name": {name}}.Encode())
	r, err := rest.Call[listSecretsResponse](ctx, s.t, http.MethodGet, p, nil, opts)
	if err != nil {
		return nil, err
	}
	for i := range r.Secrets {
		if strings.EqualFold(r.Secrets[i].Name, name) {
			return &r.Secrets[i], nil
		}
	}
	return nil, fmt.Errorf("secrets: the account has no secret named %q: %w", name, errs.ErrNotFound)
}

// Rotate replaces the secret's value and returns the secret. The new
// value takes effect at the next boot of each pod or worker that refers
// to it (Ref): running ones keep the value they started with until they
// restart. The value is checked first (not empty, under MaxValueBytes),
// and the returned error never contains it. Rotate sends the value alone,
// so that it never half-succeeds with a description.
func (s *Service) Rotate(ctx context.Context, id string, value secret.String, opts ...option.RequestOption) (*Secret, error) {
	v := value.Reveal()
	body := checked{
		body:     updateSecretRequest{Value: &v},
		validate: func() error { return checkValue("value", value) },
	}
	r, err := rest.Call[Secret](ctx, s.t, http.MethodPatch, secretAt(id), body, opts)
	return r, scrub(err, v)
}

// SetDescription replaces the secret's description ("" clears it) and
// returns the secret; its value does not change.
func (s *Service) SetDescription(ctx context.Context, id, description string, opts ...option.RequestOption) (*Secret, error) {
	body := checked{
		body:     updateSecretRequest{Description: &description},
		validate: func() error { return checkDescription("description", description) },
	}
	return rest.Call[Secret](ctx, s.t, http.MethodPatch, secretAt(id), body, opts)
}

// Delete deletes the secret, irreversibly. The platform does not refuse
// it while templates, pods or endpoints refer to the secret: a pod or
// worker that boots afterwards with such a reference fails to start. A
// retried delete that finds the secret already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, secretAt(id), opts)
}
