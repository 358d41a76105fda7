package serverless

import (
	"sync/atomic"

	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Service is the serverless surface of the platform. Get it as
// runpod.Client.Serverless, or build one with NewFromConfig.
type Service struct {
	// Endpoints creates, changes, lists and deletes endpoints over the
	// REST v2 API, and looks into their workers, releases and logs.
	Endpoints *Endpoints

	t *transport.Transport
	// noStatusSync is set once the platform answered 404 or 405 for the
	// status-sync route (an older or other deployment of the job API): the
	// service's waits poll /status from then on.
	noStatusSync *atomic.Bool
	// waits shares each endpoint's status budget among the service's
	// waits (SetWaitBudget).
	waits *waitSchedulers
}

// NewFromConfig returns the serverless service built from cfg (see
// option.NewConfig), for a program that uses serverless alone;
// runpod.NewClient builds one for Client.Serverless. Services built from
// one Config share its connection pool and rate-limit Tracker. A cfg that
// does not validate gives a service whose every call fails with the
// validation error, before anything is sent.
func NewFromConfig(cfg option.Config) *Service {
	t := transport.New(cfg)
	return &Service{Endpoints: &Endpoints{t: t}, t: t, noStatusSync: new(atomic.Bool), waits: newWaitSchedulers()}
}
