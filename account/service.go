package account

import (
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the Account API. Get it as runpod.Client.Account,
// or build one with NewFromConfig.
type Service struct {
	t *transport.Transport
}

// NewFromConfig returns the account service built from cfg (see
// option.NewConfig), for a program that uses account alone;
// runpod.NewClient builds one for Client.Account. A cfg that does not
// validate (no API key, a bad host) gives a service whose every call fails
// with that error before anything is sent.
func NewFromConfig(cfg option.Config) *Service { return &Service{t: transport.New(cfg)} }
