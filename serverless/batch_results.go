package serverless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// BatchResultsParams says which requests of a batch Results reads.
type BatchResultsParams struct {
	// Offset is the position of the first request to read (0: the
	// first); the platform lists a batch's requests in a fixed order.
	Offset int
	// Limit is how many requests each page asks for; 0 asks for the
	// platform's default (50 in its documents). The platform may answer
	// fewer; Results follows its pages whatever their size.
	Limit int
}

// BatchRequest is one request of a batch as Results reports it: its
// state and, once it has ended, its output or error.
type BatchRequest struct {
	// ID is the request's id, made by the platform when it was added.
	ID string
	// Status is the request's state; the platform reports the states of
	// a job (JobStatusInQueue, JobStatusInProgress, JobStatusCompleted, JobStatusFailed, JobStatusCancelled, …).
	Status JobStatus
	// Output is the handler's output as JSON once the request COMPLETED;
	// nil otherwise. Read it with Decode.
	Output json.RawMessage
	// Error is the failure text of a request that FAILED: a string, or
	// the handler's error object as JSON text. Empty otherwise.
	Error string
	// StartedAt is when a worker started it; zero until then.
	StartedAt time.Time
	// CompletedAt is when it ended; zero until then.
	CompletedAt time.Time
}

// wireBatchRequest is the platform's JSON for one request of a batch.
type wireBatchRequest struct {
	ID          string          `json:"id"`
	Status      JobStatus       `json:"status"`
	Output      json.RawMessage `json:"output"`
	Error       json.RawMessage `json:"error"`
	StartedAt   batchTime       `json:"startedAt"`
	CompletedAt batchTime       `json:"completedAt"`
}

func (w wireBatchRequest) request() BatchRequest {
	// A request's output and error read as a job's do.
	j := wireJob{ID: w.ID, Status: w.Status, Output: w.Output, Error: w.Error}.job()
	return BatchRequest{ID: w.ID, Status: w.Status, Output: j.Output, Error: j.Error,
		StartedAt: time.Time(w.StartedAt), CompletedAt: time.Time(w.CompletedAt)}
}

// UnmarshalJSON reads the platform's JSON for a request of a batch (times
// as RFC 3339 text or epoch milliseconds).
func (r *BatchRequest) UnmarshalJSON(data []byte) error {
	var w wireBatchRequest
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = w.request()
	return nil
}

// Decode unmarshals the request's output into v, as Job.Decode does.
func (r *BatchRequest) Decode(v any) error { return r.job().Decode(v) }

// Err returns, for a request that ended without success (FAILED,
// CANCELLED or TIMED_OUT), a *JobError read as a job's failure is: the
// handler's error_message and error_type when its worker reported them.
// It returns nil for a request that completed or has not ended.
func (r *BatchRequest) Err() error {
	if !r.Status.Terminal() || r.Status == JobStatusCompleted {
		return nil
	}
	return newJobError(r.ID, r.job())
}

// job is the request as the job it is on the platform.
func (r *BatchRequest) job() *Job {
	return &Job{ID: r.ID, Status: r.Status, Output: r.Output, Error: r.Error}
}

// batchTime reads a time the batch API sends: epoch milliseconds (as
// createdAt is documented), or RFC 3339 text (as the documents show
// startedAt and completedAt); null, "" and 0 are the zero time.
type batchTime time.Time

// UnmarshalJSON accepts a number of milliseconds, a string holding one,
// or an RFC 3339 string.
func (t *batchTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*t = batchTime{}
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*t = batchTime{}
			return nil
		}
		if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
			*t = batchTime(at)
			return nil
		}
		b = []byte(s) // a number in a string
	}
	var ms json.Number
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("runpod: time %.64q is neither RFC 3339 nor epoch milliseconds", b)
	}
	n, err := ms.Float64()
	if err != nil {
		return fmt.Errorf("runpod: time %.64q is neither RFC 3339 nor epoch milliseconds", b)
	}
	if n == 0 {
		*t = batchTime{}
		return nil
	}
	*t = batchTime(time.UnixMilli(int64(n)).UTC())
	return nil
}

// batchPage is the platform's JSON for a page of a batch's requests.
type batchPage struct {
	Requests []wireBatchRequest `json:"requests"`
	Total    *int               `json:"total"`
	HasMore  *bool              `json:"hasMore"`
}

// more reports whether pages follow the one read at offset: hasMore, or,
// when the page has none, whether total is past it.
func (p *batchPage) more(offset int) bool {
	if p.HasMore != nil {
		return *p.HasMore
	}
	return p.Total != nil && offset+len(p.Requests) < *p.Total
}

// decode reads the page at offset, and fails (a *errs.ResponseError, as
// the transport types a decoding failure) when it holds no request but
// says more follow: that page would be asked for again and again.
func (p *batchPage) decode(body []byte, offset int) error {
	if err := json.Unmarshal(body, p); err != nil {
		return err
	}
	if len(p.Requests) == 0 && p.more(offset) {
		return fmt.Errorf("the page at offset %d holds no request but says more follow", offset)
	}
	return nil
}

// Results reads a batch's requests, page after page (GET
// …/requests?offset=&limit=, following hasMore), from p.Offset to the
// last: their state, and the output or error of those that have ended.
// It can be read at any time, while the batch runs too. A page is asked
// for when the loop needs it; breaking out stops. A failure (an unknown
// batch: errs.ErrNotFound) is yielded once and ends the loop.
func (b *Batches) Results(ctx context.Context, batchID string, p BatchResultsParams, opts ...option.RequestOption) iter.Seq2[BatchRequest, error] {
	return func(yield func(BatchRequest, error) bool) {
		switch {
		case p.Offset < 0:
			yield(BatchRequest{}, fail.Invalid("BatchResultsParams.Offset", "must not be negative, got %d", p.Offset))
			return
		case p.Limit < 0:
			yield(BatchRequest{}, fail.Invalid("BatchResultsParams.Limit", "must not be negative, got %d", p.Limit))
			return
		}
		for offset := p.Offset; ; {
			q := url.Values{"offset": {strconv.Itoa(offset)}}
			if p.Limit > 0 {
				q.Set("limit", strconv.Itoa(p.Limit))
			}
			u, err := b.batchURL(batchID, "/requests", q)
			if err != nil {
				yield(BatchRequest{}, err)
				return
			}
			var page batchPage
			err = b.q.t.DoDecode(ctx, &transport.Request{Method: http.MethodGet, URL: u, Route: routeBatchRequests, Idempotent: true},
				func(body []byte) error { return page.decode(body, offset) }, opts...)
			if err != nil {
				yield(BatchRequest{}, err)
				return
			}
			for _, w := range page.Requests {
				if !yield(w.request(), nil) {
					return
				}
			}
			if !page.more(offset) {
				return
			}
			offset += len(page.Requests)
		}
	}
}
