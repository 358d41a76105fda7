package pods

import (
	"sync"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service manages pods. Get it as runpod.Client.Pods,
// or build one with NewFromConfig.
type Service struct {
	t *transport.Transport
	// catalog reads the stock CreateWhenAvailable waits for; it is made
	// on first use, so a program that never waits builds none.
	catalog func() *catalog.Service
}

// NewFromConfig returns the pods service built from cfg (see
// option.NewConfig), for a program that uses pods alone; runpod.NewClient
// builds one for Client.Pods. A cfg that does not validate (no API key, a
// bad host) gives a service whose every call fails with that error before
// anything is sent.
func NewFromConfig(cfg option.Config) *Service {
	return &Service{t: transport.New(cfg), catalog: sync.OnceValue(func() *catalog.Service { return catalog.NewFromConfig(cfg) })}
}
