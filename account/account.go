// Package account reads and changes account settings: the SSH public keys
// given to new pods. It is served by the REST v2 API; its types are
// generated from the platform's published REST v2 document.
package account

import (
	"github.com/runpodkit/runpod-go/internal/link"
	"github.com/runpodkit/runpod-go/internal/transport"
)

// Service is the Account API. Get it as runpod.Client.Account.
type Service struct {
	t *transport.Transport
}

func init() {
	link.Account = func(t *transport.Transport) any { return &Service{t: t} }
}
