// Package link hands runpod.NewClient the services of the surface
// packages (billing, serverless, pods, openai, video, templates, volumes,
// registries, catalog, clusters, account). A surface package
// registers its constructor here in its init, so that none of them needs
// an exported constructor taking the internal transport, which a program
// could not call.
package link

import "github.com/runpodkit/runpod-go/internal/transport"

// Constructors of the surface packages' services, set by their init
// functions. Each returns its package's *Service.
var (
	Billing    func(t *transport.Transport) any
	Serverless func(t *transport.Transport) any
	Pods       func(t *transport.Transport) any
	OpenAI     func(t *transport.Transport) any
	Templates  func(t *transport.Transport) any
	Volumes    func(t *transport.Transport) any
	Registries func(t *transport.Transport) any
	Catalog    func(t *transport.Transport) any
	Clusters   func(t *transport.Transport) any
	Account    func(t *transport.Transport) any
	// Video takes the client's *serverless.Service too.
	Video func(t *transport.Transport, serverless any) any
)
