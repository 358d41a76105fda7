// Package serverless manages RunPod serverless endpoints: create, change,
// list and delete them over the platform's GraphQL API.
//
//	ep, err := rp.Serverless.Endpoints.Create(ctx, serverless.EndpointParams{
//		Name:       "my-endpoint",
//		TemplateID: "tmpl123",
//		GPUs:       []serverless.GPUPool{serverless.Ada24, serverless.Ampere24},
//		WorkersMin: runpod.Ptr(0),
//		WorkersMax: runpod.Ptr(3),
//	})
//
// The platform's save replaces an endpoint's whole configuration, so
// Endpoints.Update reads the endpoint, applies your change and sends all
// of it back: settings you did not touch survive. Specs are validated
// before sending; mutations are never sent twice.
package serverless

import (
	"sync/atomic"

	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/serverless/internal/gql"
)

// Service is the serverless surface of the platform. Get it as
// runpod.Client.Serverless.
type Service struct {
	// Endpoints creates, changes, lists and deletes endpoints.
	Endpoints *Endpoints

	t *transport.Transport
	// noStatusSync is set once the platform answered 404 or 405 for the
	// status-sync route (an older or other deployment of the job API): the
	// client's waits poll /status from then on.
	noStatusSync *atomic.Bool
}

func init() {
	link.Serverless = func(t *transport.Transport) any {
		return &Service{Endpoints: &Endpoints{c: gql.Client{T: t}}, t: t, noStatusSync: new(atomic.Bool)}
	}
}
