package globalvolumes

import (
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the Global Volumes API. Get it as runpod.Client.GlobalVolumes,
// or build one with NewFromConfig.
type Service struct {
	t *transport.Transport
}

// NewFromConfig returns the global volumes service built from cfg (see
// option.NewConfig), for a program that uses global volumes alone;
// runpod.NewClient builds one for Client.GlobalVolumes. A cfg that does
// not validate (no API key, a bad host) gives a service whose every call
// fails with that error before anything is sent.
func NewFromConfig(cfg option.Config) *Service { return &Service{t: transport.New(cfg)} }
