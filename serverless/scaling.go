package serverless

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Scaling says what drives an endpoint's autoscaling, as the REST v2 API
// writes it: {"type":"QUEUE_DELAY","queueDelay":4} or
// {"type":"REQUEST_COUNT","requestCount":2}. Make one with
// ScaleByQueueDelay or ScaleByRequestCount. A load-balancing endpoint
// scales by request count.
type Scaling struct {
	// Type is ScalerTypeQueueDelay or ScalerTypeRequestCount.
	Type ScalerType
	// QueueDelay is, for ScalerTypeQueueDelay, the seconds a job may wait in the
	// queue before another worker starts (at least 0.5).
	QueueDelay float64
	// RequestCount is, for ScalerTypeRequestCount, the requests each worker is
	// given before another starts (at least 1).
	RequestCount int
}

// ScaleByQueueDelay scales up when jobs wait longer than seconds.
func ScaleByQueueDelay(seconds float64) Scaling {
	return Scaling{Type: ScalerTypeQueueDelay, QueueDelay: seconds}
}

// ScaleByRequestCount keeps about n requests per worker.
func ScaleByRequestCount(n int) Scaling {
	return Scaling{Type: ScalerTypeRequestCount, RequestCount: n}
}

// String reads as "QUEUE_DELAY 4s" or "REQUEST_COUNT 2".
func (s Scaling) String() string {
	switch s.Type {
	case ScalerTypeQueueDelay:
		return fmt.Sprintf("%s %gs", s.Type, s.QueueDelay)
	case ScalerTypeRequestCount:
		return fmt.Sprintf("%s %d", s.Type, s.RequestCount)
	}
	return string(s.Type)
}

// MarshalJSON writes the type and the value of that type only.
func (s Scaling) MarshalJSON() ([]byte, error) {
	switch s.Type {
	case ScalerTypeQueueDelay:
		return json.Marshal(struct {
			Type       ScalerType `json:"type"`
			QueueDelay float64    `json:"queueDelay"`
		}{s.Type, s.QueueDelay})
	case ScalerTypeRequestCount:
		return json.Marshal(struct {
			Type         ScalerType `json:"type"`
			RequestCount int        `json:"requestCount"`
		}{s.Type, s.RequestCount})
	}
	return json.Marshal(struct {
		Type ScalerType `json:"type"`
	}{s.Type})
}

// UnmarshalJSON reads either form; a type this SDK does not know keeps
// its name and no value.
func (s *Scaling) UnmarshalJSON(b []byte) error {
	var w struct {
		Type         ScalerType `json:"type"`
		QueueDelay   float64    `json:"queueDelay"`
		RequestCount float64    `json:"requestCount"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Scaling{Type: w.Type}
	switch w.Type {
	case ScalerTypeQueueDelay:
		s.QueueDelay = w.QueueDelay
	case ScalerTypeRequestCount:
		if w.RequestCount != math.Trunc(w.RequestCount) || math.Abs(w.RequestCount) > math.MaxInt32 {
			return fmt.Errorf("scaling: requestCount %v is not a whole number", w.RequestCount)
		}
		s.RequestCount = int(w.RequestCount)
	}
	return nil
}

// validate checks s as the document constrains it; lb says the endpoint
// is a load balancer, which scales by request count only.
func (s Scaling) validate(field string, lb bool) error {
	switch {
	case s.Type == ScalerTypeQueueDelay && lb:
		return fail.Invalid(field+".Type", "a load-balancing endpoint scales by REQUEST_COUNT, got QUEUE_DELAY")
	case s.Type == ScalerTypeQueueDelay && !(s.QueueDelay >= 0.5) || math.IsInf(s.QueueDelay, 0):
		return fail.Invalid(field+".QueueDelay", "must be at least 0.5 seconds, got %v", s.QueueDelay)
	case s.Type == ScalerTypeRequestCount && s.RequestCount < 1:
		return fail.Invalid(field+".RequestCount", "must be at least 1, got %d", s.RequestCount)
	case s.Type != ScalerTypeQueueDelay && s.Type != ScalerTypeRequestCount:
		return fail.Invalid(field+".Type", "want QUEUE_DELAY or REQUEST_COUNT, got %q (use ScaleByQueueDelay or ScaleByRequestCount)", s.Type)
	}
	return nil
}

// RequestURLs holds the URLs requests to an endpoint go to, as the
// platform reports them: a queue-based endpoint's job routes, or a
// load-balancing endpoint's Base and Health. Routes the endpoint does not
// have are empty.
type RequestURLs struct {
	// Run submits a job (queue-based).
	Run string `json:"run,omitempty"`
	// RunSync submits a job and waits for it (queue-based).
	RunSync string `json:"runSync,omitempty"`
	// Status reads a job's status (queue-based).
	Status string `json:"status,omitempty"`
	// Stream reads a streaming job's output (queue-based).
	Stream string `json:"stream,omitempty"`
	// Cancel cancels a job (queue-based).
	Cancel string `json:"cancel,omitempty"`
	// Retry queues a failed job again (queue-based).
	Retry string `json:"retry,omitempty"`
	// PurgeQueue drops the queued jobs (queue-based).
	PurgeQueue string `json:"purgeQueue,omitempty"`
	// Health counts jobs and workers (queue-based), or answers when a
	// worker serves (load-balancing).
	Health string `json:"health,omitempty"`
	// Base is the URL a load-balancing endpoint's routes are under.
	Base string `json:"base,omitempty"`
}
