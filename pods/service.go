package pods

import (
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service manages pods. Get it as runpod.Client.Pods,
// or build one with NewFromConfig.
type Service struct {
	t       *transport.Transport
	catalog *catalog.Service // the stock CreateWhenAvailable waits for
}

// NewFromConfig returns the pods service built from cfg (see
// option.NewConfig), for a program that uses pods alone; runpod.NewClient
// builds one for Client.Pods. A cfg that does not validate (no API key, a
// bad host) gives a service whose every call fails with that error before
// anything is sent.
func NewFromConfig(cfg option.Config) *Service {
	return &Service{t: transport.New(cfg), catalog: catalog.NewFromConfig(cfg)}
}
