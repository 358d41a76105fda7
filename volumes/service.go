package volumes

import (
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the Network Volumes API. Get it as runpod.Client.Volumes,
// or build one with NewFromConfig.
type Service struct {
	t *transport.Transport
	// cfg is the configuration the service was built from; Files builds
	// its S3 client from it.
	cfg option.Config
}

// NewFromConfig returns the network volumes service built from cfg (see
// option.NewConfig), for a program that uses volumes alone;
// runpod.NewClient builds one for Client.Volumes. A cfg that does not
// validate (no API key, a bad host) gives a service whose every call fails
// with that error before anything is sent.
func NewFromConfig(cfg option.Config) *Service { return &Service{t: transport.New(cfg), cfg: cfg} }
