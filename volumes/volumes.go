// Package volumes manages network volumes: storage in a data center that
// pods and endpoints mount and that outlives them. It is served by the REST
// v2 API; its types are generated from the platform's published REST v2
// document.
package volumes

import (
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service is the Network Volumes API. Get it as runpod.Client.Volumes.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Volumes = func(t *transport.Transport) any { return &Service{t: t} }
}
