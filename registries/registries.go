// Package registries manages the credentials the platform uses to pull
// images from private container registries, and Amazon ECR delegations,
// over the REST v2 API.
//
//	reg, err := rp.Registries.Create(ctx, registries.CreateRegistryRequest{
//		Name:     "dockerhub-private",
//		Username: "me",
//		Password: os.Getenv("DOCKERHUB_TOKEN"), // write-only: never returned or printed
//	})
//	// A pod or template pulls its private image with the credential:
//	// pods.CreatePodRequest{…, Registry: &reg.ID}
//	list, err := rp.Registries.List(ctx)         // ids and names only
//	err = rp.Registries.Delete(ctx, reg.ID)
//
// Service (runpod.Client.Registries) lists, reads, creates and deletes
// registry credentials (List, Get, Create, Delete), and lists, creates and
// revokes ECR delegations (ListDelegations, CreateDelegation,
// RevokeDelegation). The types are generated from the platform's REST v2
// document and keep its names: Registry, CreateRegistryRequest,
// ECRDelegation, CreateDelegationRequest. Requests are validated before
// anything is sent: a *runpod.ValidationError names the field, such as
// "CreateRegistryRequest.Password".
//
// # Credentials are write-only
//
// A credential's username and password go to the platform once, in
// Create, and never come back: Registry holds only an id and a name.
// CreateRegistryRequest prints "[REDACTED]" in place of the password for
// every fmt verb (%v, %+v, %#v, %s), the SDK's logger never sees request
// bodies, and an error Create returns has the password scrubbed from
// whatever the platform sent back.
//
// Deleting a credential that a pod pulls its image with is refused (a
// *runpod.APIError with status 400); templates that name it lose the
// reference instead.
//
// # ECR delegations
//
// A delegation gives the platform access to a repository in Amazon
// Elastic Container Registry, named by its ARN
// ("arn:aws:ecr:<region>:<account>:repository/<name>"), instead of a
// stored password. The platform reports the repository, region, tag and
// the host to log in to with Docker (ECRDelegation).
//
// # Retries
//
// Create and CreateDelegation are never repeated after they may have
// reached the platform: after an ambiguous failure the error matches
// runpod.ErrOutcomeUnknown, and List or ListDelegations tells whether the
// credential or delegation exists. Reads and deletes are retried; a
// retried Delete or RevokeDelegation whose earlier attempt already removed
// the credential or delegation succeeds.
package registries

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the Registries API. Get it as runpod.Client.Registries.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Registries = func(t *transport.Transport) any { return &Service{t: t} }
}

// delegationsPath is the path of the delegation routes, which sits where a
// credential's id would.
const delegationsPath = "/v2/registries/delegations"

// List returns the account's registry credentials: ids and names, never
// the usernames or passwords.
func (s *Service) List(ctx context.Context, opts ...option.CallOption) ([]Registry, error) {
	out, err := rest.Get[ListRegistriesResponse](ctx, s.t, s.t.BaseURL("/v2/registries"), opts)
	if err != nil {
		return nil, err
	}
	return out.Registries, nil
}

// Get returns one registry credential; an unknown id is an error matching
// runpod.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.CallOption) (*Registry, error) {
	u, err := s.registryURL(id)
	if err != nil {
		return nil, err
	}
	return rest.Get[Registry](ctx, s.t, u, opts)
}

// Create stores a registry credential and returns its id and name. The
// request is validated first (nothing is sent when it is invalid) and
// never repeated after it may have reached the platform: after an
// ambiguous failure the error matches runpod.ErrOutcomeUnknown, and List
// tells whether the credential exists. The returned error never contains
// req.Password.
func (s *Service) Create(ctx context.Context, req CreateRegistryRequest, opts ...option.CallOption) (*Registry, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	body, err := transport.MarshalBody(req)
	if err != nil {
		return nil, errs.RedactError(err, req.Password)
	}
	var r Registry
	if err := s.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: s.t.BaseURL("/v2/registries"), Body: body}, &r, opts...); err != nil {
		return nil, errs.RedactError(err, req.Password)
	}
	return &r, nil
}

// Delete deletes a registry credential, irreversibly. A credential a pod
// pulls its image with cannot be deleted (a *runpod.APIError with status
// 400); templates that name it lose the reference. A retried delete that
// finds the credential already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.CallOption) error {
	u, err := s.registryURL(id)
	if err != nil {
		return err
	}
	return rest.Delete(ctx, s.t, u, opts)
}

// ListDelegations returns the account's ECR delegations.
func (s *Service) ListDelegations(ctx context.Context, opts ...option.CallOption) ([]ECRDelegation, error) {
	out, err := rest.Get[ListDelegationsResponse](ctx, s.t, s.t.BaseURL(delegationsPath), opts)
	if err != nil {
		return nil, err
	}
	return out.Delegations, nil
}

// CreateDelegation registers an ECR delegation for the repository whose
// ARN req.Resource gives. The request is validated first (nothing is sent
// when it is invalid) and never repeated after it may have reached the
// platform: after an ambiguous failure the error matches
// runpod.ErrOutcomeUnknown, and ListDelegations tells whether it exists.
func (s *Service) CreateDelegation(ctx context.Context, req CreateDelegationRequest, opts ...option.CallOption) (*ECRDelegation, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return rest.Create[ECRDelegation](ctx, s.t, s.t.BaseURL(delegationsPath), req, opts)
}

// RevokeDelegation revokes an ECR delegation; an unknown id is an error
// matching runpod.ErrNotFound. A retried revocation that finds the
// delegation already gone succeeds.
func (s *Service) RevokeDelegation(ctx context.Context, id string, opts ...option.CallOption) error {
	u, err := rest.ItemURL(s.t, delegationsPath, id, "", func(id string) error { return validID("delegationID", id) })
	if err != nil {
		return err
	}
	return rest.Delete(ctx, s.t, u, opts)
}

func (s *Service) registryURL(id string) (*url.URL, error) {
	if err := validID("registryID", id); err != nil {
		return nil, err
	}
	if id == "delegations" {
		// GET and DELETE /v2/registries/delegations are the delegation
		// routes, not a credential's.
		return nil, errs.Invalid("registryID", `"delegations" names the ECR delegations, not a registry credential`)
	}
	return s.t.BaseURL("/v2/registries/" + url.PathEscape(id)), nil
}

// validID checks an id that goes into a path: not empty, and one path
// segment that no server or proxy rewrites (no "/", "?", "#", "%",
// white space or control characters, and not "." or "..").
func validID(field, id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return errs.Invalid(field, "is empty")
	case id == "." || id == "..":
		return errs.Invalid(field, "want an id, got %q", id)
	case strings.ContainsFunc(id, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r == '/' || r == '\\' || r == '?' || r == '#' || r == '%'
	}):
		return errs.Invalid(field, "want an id (letters, digits, '-' or '_'), got %q", id)
	}
	return nil
}
