// Package catalog tells what the platform offers: GPU types, CPU types, data
// centers and public templates. It is served by the REST v2 API; its types
// are generated from the platform's published REST v2 document.
package catalog

import (
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service is the Catalog API. Get it as runpod.Client.Catalog.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Catalog = func(t *transport.Transport) any { return &Service{t: t} }
}
