package serverless

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Batches is the batch API of one queue-based endpoint (beta on the
// platform): a batch is a named collection of up to 5,000 requests, each
// the input of one job, that the platform runs asynchronously on batch
// workers, apart from the endpoint's /run traffic. Get it with
// Queue.Batches.
//
// A batch is built as a DRAFT (Create, Add, RemoveRequest, Rename), then
// locked with Finalize, which starts it: it stays FINALIZED while its
// requests run, and has finished when the counts say every request did
// (Batch.Done); Wait polls for that. Results pages through the requests
// and their outputs. Cancel drops the requests still queued and lets the
// running ones finish; the batch is CANCELLED once they have. A request
// that fails does not fail the batch: the batch is FAILED only when the
// platform could not run it at all.
//
//	b := rp.Serverless.Queue(endpointID).Batches()
//	batch, err := b.Create(ctx, serverless.BatchParams{Name: "nightly", Inputs: inputs})
//	_, err = b.Finalize(ctx, batch.ID)
//	batch, err = b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{Interval: 30 * time.Second})
//	for req, err := range b.Results(ctx, batch.ID, serverless.BatchResultsParams{}) {
//		…
//	}
//
// The platform's limits are checked before sending where the SDK can know
// them: at most 5,000 requests in a batch, and each request body at most
// 10 MiB (Create and Add split larger sets of inputs into calls that fit).
// An endpoint may have 10 active batches (DRAFT, or FINALIZED with
// requests left) and 50,000 queued batch requests: the platform refuses
// more.
type Batches struct {
	q *Queue
}

// Batches returns the batch API of the endpoint.
func (r *Queue) Batches() *Batches { return &Batches{q: r} }

// BatchStatus is a batch's state. Values the SDK does not know still
// decode.
type BatchStatus string

// Batch states: DRAFT → FINALIZED → FAILED or CANCELLED. There is no
// running or completed state: a FINALIZED batch has finished when its
// counts say so (Batch.Done).
const (
	BatchStatusDraft     BatchStatus = "DRAFT"     // requests can be added and removed; nothing runs
	BatchStatusFinalized BatchStatus = "FINALIZED" // locked; its requests run, and it stays FINALIZED when they have
	BatchStatusFailed    BatchStatus = "FAILED"    // the batch itself failed (not one of its requests)
	BatchStatusCancelled BatchStatus = "CANCELLED" // cancelled, and the requests that were running have finished
)

// Terminal reports whether the batch has ended otherwise than by running
// all its requests: FAILED or CANCELLED. A FINALIZED batch whose
// requests have all finished is not terminal; see Batch.Done.
func (s BatchStatus) Terminal() bool { return s == BatchStatusFailed || s == BatchStatusCancelled }

// Batch is a batch's summary as the platform reports it.
type Batch struct {
	// ID is the batch's id, made by the platform at Create.
	ID string
	// EndpointID is the endpoint the batch runs on.
	EndpointID string
	// Name is the batch's display name; empty when it has none.
	Name string
	// Status is the batch's state when it was read.
	Status BatchStatus
	// RequestTotal is the number of requests in the batch.
	RequestTotal int
	// RequestInProgress is the number of requests a worker is running.
	RequestInProgress int
	// RequestCompleted is the number of requests that completed.
	RequestCompleted int
	// RequestFailed is the number of requests that ended without success.
	RequestFailed int
	// CreatedAt is when the batch was created (createdAt, epoch
	// milliseconds on the wire); zero when not reported.
	CreatedAt time.Time
}

// Done reports whether every request of the batch has finished, as the
// platform says to tell: RequestCompleted + RequestFailed has reached
// RequestTotal (and the batch has requests), or the batch is FINALIZED
// with none.
func (b *Batch) Done() bool {
	if b.RequestTotal > 0 {
		return b.RequestCompleted+b.RequestFailed >= b.RequestTotal
	}
	return b.Status == BatchStatusFinalized
}

// wireBatch is the platform's JSON for a batch.
type wireBatch struct {
	ID                string      `json:"id"`
	EndpointID        string      `json:"endpointId"`
	Name              string      `json:"name"`
	Status            BatchStatus `json:"status"`
	RequestTotal      int         `json:"requestTotal"`
	RequestInProgress int         `json:"requestInProgress"`
	RequestCompleted  int         `json:"requestCompleted"`
	RequestFailed     int         `json:"requestFailed"`
	CreatedAt         batchTime   `json:"createdAt"`
}

func (w wireBatch) batch() *Batch {
	return &Batch{ID: w.ID, EndpointID: w.EndpointID, Name: w.Name, Status: w.Status, RequestTotal: w.RequestTotal,
		RequestInProgress: w.RequestInProgress, RequestCompleted: w.RequestCompleted, RequestFailed: w.RequestFailed,
		CreatedAt: time.Time(w.CreatedAt)}
}

// UnmarshalJSON reads the platform's batch JSON (createdAt in epoch
// milliseconds, or an RFC 3339 time).
func (b *Batch) UnmarshalJSON(data []byte) error {
	var w wireBatch
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = *w.batch()
	return nil
}

// The batch API's route templates, for middleware, attempt hooks and
// logs, each with the calls that use it.
const (
	routeBatches       = "/v2/{endpointId}/batch"                                // Create (POST); List (GET)
	routeBatch         = "/v2/{endpointId}/batch/{batchId}"                      // Get (GET); Rename, Create (PUT)
	routeBatchRequests = "/v2/{endpointId}/batch/{batchId}/requests"             // Add, Create (POST); Results (GET)
	routeBatchRequest  = "/v2/{endpointId}/batch/{batchId}/requests/{requestId}" // RemoveRequest (DELETE)
	routeBatchFinalize = "/v2/{endpointId}/batch/{batchId}/finalize"             // Finalize (POST)
	routeBatchCancel   = "/v2/{endpointId}/batch/{batchId}/cancel"               // Cancel (POST)
)

// The rules of the ids that go into a batch API path: any one path
// segment (the platform documents ids such as "batch_01j9abc123" and
// "req_abc001", not their alphabet).
var (
	batchEndpointRule = rest.ID{Field: "endpoint id", Loose: true}
	batchIDRule       = rest.ID{Field: "batchID", Loose: true}
	batchRequestRule  = rest.ID{Field: "requestID", Loose: true}
)

// batchURL returns the URL of the batch batchID's route path ("" for the
// batch itself, "/finalize", …), after checking the ids.
func (b *Batches) batchURL(batchID, path string, q url.Values) (*url.URL, error) {
	if err := batchEndpointRule.Check(b.q.id); err != nil {
		return nil, err
	}
	if err := batchIDRule.Check(batchID); err != nil {
		return nil, err
	}
	return b.q.url("/batch/"+url.PathEscape(batchID)+path, q), nil
}

// Get reads a batch's summary: its state and request counts. An unknown
// batch is an error matching errs.ErrNotFound.
func (b *Batches) Get(ctx context.Context, batchID string, opts ...option.RequestOption) (*Batch, error) {
	u, err := b.batchURL(batchID, "", nil)
	if err != nil {
		return nil, err
	}
	var w wireBatch
	if err := b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Route: routeBatch, Idempotent: true}, &w, opts...); err != nil {
		return nil, err
	}
	return w.batch(), nil
}

// List returns the endpoint's batches, newest first.
func (b *Batches) List(ctx context.Context, opts ...option.RequestOption) ([]Batch, error) {
	if err := batchEndpointRule.Check(b.q.id); err != nil {
		return nil, err
	}
	var out []Batch
	err := b.q.t.DoDecode(ctx, &transport.Request{Method: http.MethodGet, URL: b.q.url("/batch", nil), Route: routeBatches, Idempotent: true},
		func(body []byte) error { return decodeBatchList(body, &out) }, opts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeBatchList reads the list of batches: a JSON array, or an object
// holding it as "batches" (the documents do not show the answer).
func decodeBatchList(body []byte, out *[]Batch) error {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		return json.Unmarshal(body, out)
	}
	var page struct {
		Batches []Batch `json:"batches"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return err
	}
	*out = page.Batches
	return nil
}

// Finalize locks a DRAFT batch and starts it: no request can be added or
// removed afterwards. A batch that is no longer a DRAFT is refused by the
// platform. Finalize is not repeated after an ambiguous failure (the
// error matches errs.ErrOutcomeUnknown): Get tells whether it took.
func (b *Batches) Finalize(ctx context.Context, batchID string, opts ...option.RequestOption) (*Batch, error) {
	u, err := b.batchURL(batchID, "/finalize", nil)
	if err != nil {
		return nil, err
	}
	w := wireBatch{ID: batchID, EndpointID: b.q.id, Status: BatchStatusFinalized}
	if err := b.q.t.DoDecode(ctx, &transport.Request{Method: http.MethodPost, URL: u, Route: routeBatchFinalize}, w.decodeOver, opts...); err != nil {
		return nil, err
	}
	return w.batch(), nil
}

// Cancel cancels a batch: its queued requests are cancelled (and not
// billed), those running finish (and are billed). The batch becomes
// CANCELLED once they have; until then it may still read FINALIZED.
// Cancelling a cancelled batch is harmless, so Cancel is retried like a
// read.
func (b *Batches) Cancel(ctx context.Context, batchID string, opts ...option.RequestOption) (*Batch, error) {
	u, err := b.batchURL(batchID, "/cancel", nil)
	if err != nil {
		return nil, err
	}
	w := wireBatch{ID: batchID, EndpointID: b.q.id}
	if err := b.q.t.DoDecode(ctx, &transport.Request{Method: http.MethodPost, URL: u, Route: routeBatchCancel, Idempotent: true}, w.decodeOver, opts...); err != nil {
		return nil, err
	}
	return w.batch(), nil
}

// decodeOver decodes an answer that may hold the batch over w, which
// holds what the call knows; an empty body leaves w as it is.
func (w *wireBatch) decodeOver(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	known := *w
	if err := json.Unmarshal(body, w); err != nil {
		return err
	}
	if w.ID == "" {
		w.ID = known.ID
	}
	if w.EndpointID == "" {
		w.EndpointID = known.EndpointID
	}
	if w.Status == "" {
		w.Status = known.Status
	}
	return nil
}

// decodeCreated decodes the answer to the create call over w, and fails
// when it names no batch.
func (w *wireBatch) decodeCreated(body []byte) error {
	if err := w.decodeOver(body); err != nil {
		return err
	}
	if w.ID == "" {
		return errors.New("the answer names no batch id")
	}
	return nil
}

// Rename sets the batch's display name (PUT {"name": …}).
func (b *Batches) Rename(ctx context.Context, batchID, name string, opts ...option.RequestOption) error {
	u, err := b.batchURL(batchID, "", nil)
	if err != nil {
		return err
	}
	body, err := batchRenameBody("name", name)
	if err != nil {
		return err
	}
	return b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodPut, URL: u, Route: routeBatch, Body: body, Idempotent: true}, nil, opts...)
}

// RemoveRequest removes one request from a DRAFT batch. A request that is
// already gone when a retry arrives (the first attempt's answer was lost)
// counts as removed.
func (b *Batches) RemoveRequest(ctx context.Context, batchID, requestID string, opts ...option.RequestOption) error {
	if err := batchRequestRule.Check(requestID); err != nil {
		return err
	}
	u, err := b.batchURL(batchID, "/requests/"+url.PathEscape(requestID), nil)
	if err != nil {
		return err
	}
	var earlierUnknown bool
	err = b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodDelete, URL: u, Route: routeBatchRequest, Idempotent: true, EarlierUnknown: &earlierUnknown}, nil, opts...)
	if earlierUnknown && errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	return err
}
