// Package registries manages the credentials of private container registries
// that templates pull images with, and Amazon ECR delegations. It is served
// by the REST v2 API; its types are generated from the platform's published
// REST v2 document.
package registries

import (
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service is the Registries API. Get it as runpod.Client.Registries.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Registries = func(t *transport.Transport) any { return &Service{t: t} }
}
