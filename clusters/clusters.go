// Package clusters manages instant clusters: groups of GPU pods on a fast
// network. It is served by the REST v2 API; its types are generated from the
// platform's published REST v2 document.
package clusters

import (
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service is the Clusters API. Get it as runpod.Client.Clusters.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Clusters = func(t *transport.Transport) any { return &Service{t: t} }
}
