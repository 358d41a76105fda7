package sandboxes

import (
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the Sandboxes API. Get it as runpod.Client.Sandboxes, or
// build one with NewFromConfig.
type Service struct {
	t *transport.Transport
}

// NewFromConfig returns the sandboxes service built from cfg (see
// option.NewConfig), for a program that uses sandboxes alone;
// runpod.NewClient builds one for Client.Sandboxes. A cfg that does not
// validate (no API key, a bad host) gives a service whose every call fails
// with that error before anything is sent.
func NewFromConfig(cfg option.Config) *Service { return &Service{t: transport.New(cfg)} }
