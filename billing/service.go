package billing

import (
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service reads billing reports. Get it as runpod.Client.Billing,
// or build one with NewFromConfig.
type Service struct {
	t *transport.Transport
}

// NewFromConfig returns the billing service built from cfg (see
// option.NewConfig), for a program that uses billing alone;
// runpod.NewClient builds one for Client.Billing. A cfg that does not
// validate (no API key, a bad host) gives a service whose every call fails
// with that error before anything is sent.
func NewFromConfig(cfg option.Config) *Service { return &Service{t: transport.New(cfg)} }
