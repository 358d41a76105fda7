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
// anything is sent: a *errs.ValidationError names the field, such as
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
// *errs.APIError with status 400); templates that name it lose the
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
// errs.ErrOutcomeUnknown, and List or ListDelegations tells whether the
// credential or delegation exists. Reads and deletes are retried; a
// retried Delete or RevokeDelegation whose earlier attempt already removed
// the credential or delegation succeeds.
package registries

import (
	"context"
	"iter"
	"net/http"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/redact"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// Routes of the REST v2 document. The delegation routes sit where a
// credential's id would.
const (
	registriesRoute  = "/v2/registries"
	registryRoute    = "/v2/registries/{registryId}"
	delegationsRoute = "/v2/registries/delegations"
	delegationRoute  = "/v2/registries/delegations/{delegationId}"
)

// The rules of ids: letters, digits, '-' and '_', so that an id is one
// path segment that no server or proxy rewrites.
var (
	registryID   = rest.ID{Field: "registryID", Extra: "-_"}
	delegationID = rest.ID{Field: "delegationID", Extra: "-_"}
)

// List returns the account's registry credentials, every page of them
// (All reads them a page at a time): ids and names, never the usernames
// or passwords.
func (s *Service) List(ctx context.Context, opts ...option.RequestOption) ([]Registry, error) {
	r, err := rest.List(ctx, s.t, rest.At(registriesRoute), opts, registryPage)
	return r.Registries, err
}

// All returns the registry credentials List returns, one at a time,
// holding one page of them: the first page is asked for when the loop
// starts, a failure ends the loop, and breaking out asks for no more.
func (s *Service) All(ctx context.Context, opts ...option.RequestOption) iter.Seq2[Registry, error] {
	return rest.All(ctx, s.t, rest.At(registriesRoute), opts, registryPage)
}

// registryPage tells where a page of the credential listing keeps them.
func registryPage(r *listRegistriesResponse) (*[]Registry, *rest.Pagination) {
	return &r.Registries, (*rest.Pagination)(r.Pagination)
}

// Get returns one registry credential; an unknown id is an error matching
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, opts ...option.RequestOption) (*Registry, error) {
	return rest.Call[Registry](ctx, s.t, http.MethodGet, registryAt(id), nil, opts)
}

// Create stores a registry credential and returns its id and name. The
// request is validated first (nothing is sent when it is invalid) and
// never repeated after it may have reached the platform: after an
// ambiguous failure the error matches errs.ErrOutcomeUnknown, and List
// tells whether the credential exists. The returned error never contains
// req.Password.
func (s *Service) Create(ctx context.Context, req CreateRegistryRequest, opts ...option.RequestOption) (*Registry, error) {
	r, err := rest.Call[Registry](ctx, s.t, http.MethodPost, rest.At(registriesRoute), req, opts)
	return r, redact.Error(err, req.Password)
}

// Delete deletes a registry credential, irreversibly. A credential a pod
// pulls its image with cannot be deleted (a *errs.APIError with status
// 400); templates that name it lose the reference. A retried delete that
// finds the credential already gone succeeds.
func (s *Service) Delete(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, registryAt(id), opts)
}

// ListDelegations returns the account's ECR delegations, every page of
// them (AllDelegations reads them a page at a time).
func (s *Service) ListDelegations(ctx context.Context, opts ...option.RequestOption) ([]ECRDelegation, error) {
	r, err := rest.List(ctx, s.t, rest.At(delegationsRoute), opts, delegationPage)
	return r.Delegations, err
}

// AllDelegations returns the delegations ListDelegations returns, one at
// a time, as All does.
func (s *Service) AllDelegations(ctx context.Context, opts ...option.RequestOption) iter.Seq2[ECRDelegation, error] {
	return rest.All(ctx, s.t, rest.At(delegationsRoute), opts, delegationPage)
}

// delegationPage tells where a page of the delegation listing keeps them.
func delegationPage(r *listDelegationsResponse) (*[]ECRDelegation, *rest.Pagination) {
	return &r.Delegations, (*rest.Pagination)(r.Pagination)
}

// CreateDelegation registers an ECR delegation for the repository whose
// ARN req.Resource gives. The request is validated first (nothing is sent
// when it is invalid) and never repeated after it may have reached the
// platform: after an ambiguous failure the error matches
// errs.ErrOutcomeUnknown, and ListDelegations tells whether it exists.
func (s *Service) CreateDelegation(ctx context.Context, req CreateDelegationRequest, opts ...option.RequestOption) (*ECRDelegation, error) {
	return rest.Call[ECRDelegation](ctx, s.t, http.MethodPost, rest.At(delegationsRoute), req, opts)
}

// RevokeDelegation revokes an ECR delegation; an unknown id is an error
// matching errs.ErrNotFound. A retried revocation that finds the
// delegation already gone succeeds.
func (s *Service) RevokeDelegation(ctx context.Context, id string, opts ...option.RequestOption) error {
	return rest.Delete(ctx, s.t, rest.At(delegationRoute, delegationID.Of(id)), opts)
}

// registryAt is the Path of one credential. GET and DELETE
// /v2/registries/delegations are the delegation routes, so "delegations"
// is not taken for a credential's id.
func registryAt(id string) rest.Path {
	p := rest.At(registryRoute, registryID.Of(id))
	if id == "delegations" {
		p = p.Check(fail.Invalid("registryID", `"delegations" names the ECR delegations, not a registry credential`))
	}
	return p
}
