// Package templates manages the account's pod and serverless templates: the
// image, disk, ports and environment a pod or an endpoint's workers start
// from. It is served by the REST v2 API; its types are generated from the
// platform's published REST v2 document.
package templates

import (
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service is the Templates API. Get it as runpod.Client.Templates.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Templates = func(t *transport.Transport) any { return &Service{t: t} }
}
