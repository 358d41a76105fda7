// Package templates manages the account's pod and serverless templates over
// the REST v2 API: the image, disk, ports, environment and storage a pod or
// an endpoint's workers start from.
//
//	tmpl, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{
//		Name:       "vllm-worker",
//		Image:      "runpod/worker-v1-vllm:stable-cuda12.1.0",
//		Serverless: runpod.Ptr(true),
//		Env:        map[string]string{"MODEL_NAME": "Qwen/Qwen3-8B", "HF_TOKEN": token},
//	})
//	fmt.Println(tmpl) // Template{ID:"…" … Env:{"HF_TOKEN":[REDACTED] "MODEL_NAME":[REDACTED]} …}
//	// tmpl.ID is the template id that serverless.CreateEndpointRequest.TemplateID
//	// and pods.CreatePodRequest.TemplateID take.
//
// Service (runpod.Client.Templates) lists the account's templates (List,
// all at once: the document defines no filter and no pages), reads one
// (Get, which also serves public templates of the catalog), creates one
// (Create), changes the fields a request sets (Update: nil fields stay, a
// non-nil empty Env, Ports or AllowedCUDAVersions clears the field) and
// deletes one (Delete). The request and template types are generated from
// the platform's REST v2 document and keep its names: CreateTemplateRequest,
// UpdateTemplateRequest, Template. Requests are validated before anything is
// sent: a *errs.ValidationError names the field, such as
// "CreateTemplateRequest.Ports[0]".
//
// A template with Serverless set is one endpoints take; the others are pod
// templates. Pods and endpoints copy a template's settings when they are
// made: a later Update does not change them. Delete refuses a template a pod
// or an endpoint still uses: the error matches ErrInUse and is a
// *errs.APIError with status 400.
//
// # Environment values are secrets
//
// No field of a template is write-only: the platform returns Env as it was
// given, and Template.Env, a secret.Env, holds it. The package treats Env
// values as secrets all the same: a Template prints, logs and encodes to
// JSON (encoding/json, slog's JSON handler, nested in any value) with the
// names of Env only, and reading a value takes Env.Value(name) or
// Env.Reveal(). Requests take a plain map, whose values are sent as they
// are; a name that is empty or holds '=', white space or a control
// character is refused before sending. Printing a CreateTemplateRequest,
// UpdateTemplateRequest, Template or listTemplatesResponse (and
// BaseContainerConfig or ContainerConfig) with fmt, in any verb, or logging
// one with log/slog shows the names of Env with each value as [REDACTED]. Errors never carry them:
// a validation error does not quote Env, a response that does not decode is
// reported without an excerpt of its body, and the values a Create or Update
// sent (those of four bytes or more; shorter ones cannot be told from the
// words of a message) are replaced with [REDACTED] in a *errs.APIError the
// platform answers with: as sent, escaped, and every piece of 8 bytes or
// more, before its excerpt is cut.
//
// # Retries
//
// List, Get, Update and Delete are retried after a failure that may not
// last (an Update sets fixed values, so applying it twice gives the same
// template); a retried Delete that finds the template gone succeeds. Create
// is never repeated after it may have reached the platform: after an
// ambiguous failure its error matches errs.ErrOutcomeUnknown, and List
// tells whether the template exists.
package templates

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// ErrInUse matches the error of a Delete the platform refused because a
// pod or a serverless endpoint still uses the template. The error is also
// the platform's *errs.APIError (status 400).
var ErrInUse = errors.New("templates: the template is in use by a pod or a serverless endpoint")

// Routes of the REST v2 document.
const (
	templatesRoute = "/v2/templates"
	templateRoute  = "/v2/templates/{templateId}"
)

// templateID is the rule of template ids: letters, digits, '-' and '_',
// so that an id is one path segment.
var templateID = rest.ID{Field: "templateID", Extra: "-_"}

// templateAt is the Path of one template.
func templateAt(id string) rest.Path { return rest.At(templateRoute, templateID.Of(id)) }

// List returns the templates the account owns, every page of them (All
// reads them a page at a time).
func (s *Service) List(ctx context.Context, opts ...option.RequestOption) ([]Template, error) {
	r, err := rest.List(ctx, s.t, rest.At(templatesRoute), opts, templatePage)
	return r.Templates, scrub(err, nil)
}

// All returns the templates List returns, one at a time,
// holding one page of them: the first page is asked for when the loop
// starts, a failure ends the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, opts ...option.RequestOption) iter.Seq2[Template, error] {
	return func(yield func(Template, error) bool) {
		for t, err := range rest.All(ctx, s.t, rest.At(templatesRoute), opts, templatePage) {
			if !yield(t, scrub(err, nil)) {
				return
			}
		}
	}
}

// templatePage tells where a page of the template listing keeps its
// templates.
func templatePage(r *listTemplatesResponse) (*[]Template, *rest.Pagination) {
	return &r.Templates, (*rest.Pagination)(r.Pagination)
}

// Get returns one template: one of the account's, or a public template of
// the catalog. An unknown id is an error matching errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Template, error) {
	t, err := rest.Call[Template](ctx, s.t, http.MethodGet, templateAt(id), nil, opts)
	return t, scrub(err, nil)
}

// Create creates a template. The request is validated first (nothing is
// sent when it is invalid) and never repeated after it may have reached
// the platform: after an ambiguous failure the error matches
// errs.ErrOutcomeUnknown, and List tells whether the template exists.
func (s *Service) Create(ctx context.Context, req CreateTemplateRequest, opts ...option.RequestOption) (*Template, error) {
	t, err := rest.Call[Template](ctx, s.t, http.MethodPost, rest.At(templatesRoute), &req, opts)
	return t, scrub(err, req.Env)
}

// Update changes the fields req sets and returns the template as it is
// then; the others stay. Only the account's own templates can change (a
// public template of the catalog is not found). Pods and endpoints made
// from the template before keep their settings. The same change applied
// twice gives the same template, so it is retried like a read.
func (s *Service) Update(ctx context.Context, id string, req UpdateTemplateRequest, opts ...option.RequestOption) (*Template, error) {
	t, err := rest.Call[Template](ctx, s.t, http.MethodPatch, templateAt(id), &req, opts)
	return t, scrub(err, req.Env)
}

// Delete deletes one of the account's templates, irreversibly. A template
// a pod or a serverless endpoint uses is not deleted: the error matches
// ErrInUse. A retried delete that finds the template already gone
// succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	err := rest.Delete(ctx, s.t, templateAt(id), opts)
	if apiErr := (*errs.APIError)(nil); errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
		return fmt.Errorf("%w: %w", ErrInUse, err)
	}
	return err
}

// minRedacted is the length, in bytes, from which an Env value is
// replaced in an error message: shorter values ("1", "yes") cannot be told
// from the words of the message.
const minRedacted = 4

// scrub keeps a template's environment out of err. A body that did not
// decode is reported without an excerpt, since a template's body carries
// its environment. The values env sent are removed from what err carries
// from the platform's answer (see redact.Error): as sent, escaped, and
// every piece of 8 bytes or more, so that an excerpt cut inside a value
// leaves nothing of it.
func scrub(err error, env map[string]string) error {
	if re := (*errs.ResponseError)(nil); errors.As(err, &re) {
		re.Excerpt = ""
	}
	if err == nil || len(env) == 0 {
		return err
	}
	var values []string
	for _, v := range env {
		if len(v) >= minRedacted {
			values = append(values, v)
		}
	}
	return redact.Error(err, values...)
}
