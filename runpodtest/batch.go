package runpodtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
)

// The batch API of a queue-based endpoint (beta on the platform), as the
// platform's documents describe it (docs
// serverless/advanced-workflows/batch-jobs.mdx, runpod/docs at a900806,
// 2026-08): a batch is created as a DRAFT, filled, finalized, and its
// requests run on the endpoint's workers as jobs of the endpoint; the
// batch stays FINALIZED while they run and has finished when
// requestCompleted + requestFailed reaches requestTotal; cancelling it
// cancels the queued requests and lets the running ones finish, and it is
// CANCELLED once they have.
//
// Where the documents are silent, the fake chooses, and says so here:
//
//   - Answers: create answers {"id", "status"} as documented; add,
//     finalize, rename (PUT), remove and cancel answer the batch's summary
//     (the body of GET …/batch/{id}); the list is {"batches": [summary,
//     …]}, newest first.
//   - The display name is the field "name" of the PUT body and of the
//     summary.
//   - A request's status is a job's (IN_QUEUE until a worker takes it,
//     also while its batch is a DRAFT; IN_PROGRESS; COMPLETED; FAILED;
//     CANCELLED; TIMED_OUT). requestFailed counts every request that ended
//     without success (FAILED, TIMED_OUT, CANCELLED), so that the counts
//     of a batch whose requests have all ended always add up.
//   - startedAt and completedAt are RFC 3339 times, as the documents' example
//     shows them; createdAt is epoch milliseconds, as documented.
//   - A page of requests holds 50 by default (the documents' example) and
//     at most 100 (a larger limit is cut to 100); the requests are listed
//     in the order they were added.
//   - Refusals are problem+json, like the job API's: a body past the size
//     limit is 413; a bad body or a batch past its request limit 400; an
//     endpoint's 11th active batch 409 Conflict (it depends on the
//     endpoint's other batches, which may run for hours, so a retry after
//     a short wait would not help, and a 429 would be retried by clients);
//     an endpoint's queued requests past their limit, at finalize, 429 (the
//     queue drains as workers run, so a later retry can succeed); adding,
//     removing or finalizing a batch that is no longer a DRAFT 409;
//     cancelling a FAILED batch or one whose requests have all ended 409;
//     an unknown batch or request 404.
//   - The size limit of 10 MiB, documented for the add route, applies to
//     the create route's body too.
//   - The batch is FAILED when its endpoint's queue goes away under it
//     (the endpoint handled anew with HandleQueue): the platform's "batch
//     itself failed". Its requests left unfinished are FAILED.
//
// A finalized batch's requests are submitted to the endpoint's queue
// (jobqueue) under their own ids, at most as many at once as the endpoint
// has workers (WithWorkers), so those still queued belong to the batch
// and are never run once it is cancelled; their results are kept with the
// batch, whatever the job API keeps. A request is a job of the endpoint
// while it runs: /status and /cancel reach it by its id.

// Routes of the batch API, on the inference host.
const (
	RouteBatchCreate   = "POST /v2/{endpoint}/batch"
	RouteBatchList     = "GET /v2/{endpoint}/batch"
	RouteBatchGet      = "GET /v2/{endpoint}/batch/{batch}"
	RouteBatchUpdate   = "PUT /v2/{endpoint}/batch/{batch}"
	RouteBatchAdd      = "POST /v2/{endpoint}/batch/{batch}/requests"
	RouteBatchResults  = "GET /v2/{endpoint}/batch/{batch}/requests"
	RouteBatchRemove   = "DELETE /v2/{endpoint}/batch/{batch}/requests/{request}"
	RouteBatchFinalize = "POST /v2/{endpoint}/batch/{batch}/finalize"
	RouteBatchCancel   = "POST /v2/{endpoint}/batch/{batch}/cancel"
)

// Page sizes of a batch's request list (GET …/batch/{id}/requests): the
// default when no limit is given, and the most a page holds.
const (
	BatchPageDefault = 50
	BatchPageMax     = 100
)

// BatchLimits are the limits of an endpoint's batches. A zero field sets
// no limit of that kind.
type BatchLimits struct {
	// ActiveBatches is how many batches an endpoint may have that are
	// DRAFT, or FINALIZED with requests still to run; the next create is
	// refused (409).
	ActiveBatches int
	// RequestsPerBatch is how many requests a batch may hold; a create or
	// an add past it is refused (400).
	RequestsPerBatch int
	// QueuedRequests is how many requests of an endpoint's finalized
	// batches may wait for a worker; a finalize past it is refused (429).
	QueuedRequests int
	// BodyBytes is the largest body of a create or an add (413 past it).
	BodyBytes int
}

// DefaultBatchLimits are the platform's documented limits: 10 active
// batches per endpoint, 5,000 requests per batch, 50,000 queued requests
// per endpoint, and 10 MiB per call.
func DefaultBatchLimits() BatchLimits {
	return BatchLimits{ActiveBatches: 10, RequestsPerBatch: 5000, QueuedRequests: 50000, BodyBytes: 10 << 20}
}

// WithBatchLimits sets the limits of the server's batches
// (DefaultBatchLimits unless set): lower ones let a test reach them with
// a few requests; the platform raises them for enterprise accounts.
func WithBatchLimits(l BatchLimits) Option {
	return func(s *Server) { pendingBatchLimits.Store(s, l) }
}

// pendingBatchLimits holds the limits WithBatchLimits set, by server,
// until the server's batch routes take them (registerBatches, in
// NewServer).
var pendingBatchLimits sync.Map

// Batch states.
const (
	batchDraft     = "DRAFT"
	batchFinalized = "FINALIZED"
	batchFailed    = "FAILED"
	batchCancelled = "CANCELLED"
)

// batchUnit is the batches of one server, under their own lock. Its lock
// is taken before a queue's (jobqueue) lock, never after.
type batchUnit struct {
	s      *Server
	limits BatchLimits

	mu      sync.Mutex
	batches []*fakeBatch // oldest first
	byID    map[string]*fakeBatch
	slots   map[*queue]chan struct{} // per queue, one token per request handed to it
}

// fakeBatch is one batch.
type fakeBatch struct {
	id, endpoint, name string
	status             string
	created            time.Time
	requests           []*batchRequest // in the order they were added
	pending            []*batchRequest // finalized, not handed to the queue yet
	running            map[string]*batchRequest
	cancelled          bool
	q                  *queue // the queue its requests run on, from Finalize
}

// batchRequest is one request of a batch.
type batchRequest struct {
	id                     string
	input                  json.RawMessage
	status                 jobqueue.Status
	output                 json.RawMessage
	errText                string
	queued, started, ended time.Time
}

// queueOf returns the queue of the endpoint endpointID; nil when it has
// none, or it was deleted.
func (s *Server) queueOf(endpointID string) *queue {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	if q := s.jobs.queues[endpointID]; q != nil && !q.deleted.Load() {
		return q
	}
	return nil
}

// registerBatches serves the batch API on the inference host.
func (s *Server) registerBatches() {
	u := &batchUnit{s: s, limits: DefaultBatchLimits(), byID: map[string]*fakeBatch{}, slots: map[*queue]chan struct{}{}}
	if l, ok := pendingBatchLimits.LoadAndDelete(s); ok {
		u.limits = l.(BatchLimits)
	}
	endpoint := func(pattern string, h func(w http.ResponseWriter, r *http.Request, q *queue)) {
		s.Handle(Route{Pattern: pattern, Permission: PermissionInference, Inference: true, RawKey: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := s.queueOf(r.PathValue("endpoint"))
			if q == nil {
				Problem(w, http.StatusNotFound, "endpoint not found")
				return
			}
			h(w, r, q)
		}))
	}
	// batch serves a route of one batch, found under the unit's lock.
	batch := func(pattern string, h func(w http.ResponseWriter, r *http.Request, q *queue, b *fakeBatch)) {
		endpoint(pattern, func(w http.ResponseWriter, r *http.Request, q *queue) {
			u.mu.Lock()
			defer u.mu.Unlock()
			b := u.byID[r.PathValue("batch")]
			if b == nil || b.endpoint != q.id {
				Problem(w, http.StatusNotFound, "batch not found")
				return
			}
			h(w, r, q, b)
		})
	}
	endpoint(RouteBatchCreate, u.create)
	endpoint(RouteBatchList, u.list)
	batch(RouteBatchGet, func(w http.ResponseWriter, _ *http.Request, _ *queue, b *fakeBatch) { WriteJSON(w, u.summaryLocked(b)) })
	batch(RouteBatchUpdate, u.rename)
	batch(RouteBatchAdd, u.add)
	batch(RouteBatchResults, u.results)
	batch(RouteBatchRemove, u.remove)
	batch(RouteBatchFinalize, u.finalize)
	batch(RouteBatchCancel, u.cancel)
}

// create makes a DRAFT batch from a top-level JSON array of requests.
func (u *batchUnit) create(w http.ResponseWriter, r *http.Request, q *queue) {
	body, ok := u.body(w, r)
	if !ok {
		return
	}
	var list []batchEntry
	if err := json.Unmarshal(body, &list); err != nil || list == nil {
		var raw []json.RawMessage
		if json.Unmarshal(body, &raw) != nil || raw == nil {
			Problem(w, http.StatusBadRequest, "the body must be a JSON array of requests ({\"input\": …}), [] for none")
			return
		}
		Problem(w, http.StatusBadRequest, entryError(raw, "").Error())
		return
	}
	inputs, err := batchInputs(list, "")
	if err != nil {
		Problem(w, http.StatusBadRequest, err.Error())
		return
	}
	if n := u.limits.RequestsPerBatch; n > 0 && len(inputs) > n {
		Problem(w, http.StatusBadRequest, fmt.Sprintf("a batch holds at most %d requests, got %d", n, len(inputs)))
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if n := u.limits.ActiveBatches; n > 0 && u.activeLocked(q.id) >= n {
		Problem(w, http.StatusConflict, fmt.Sprintf("endpoint %s has %d active batches, the most it may have; finalize and finish, or cancel, one first", q.id, n))
		return
	}
	b := &fakeBatch{id: "batch_" + randomHex(10), endpoint: q.id, status: batchDraft, created: u.s.now(), running: map[string]*batchRequest{}}
	b.append(inputs)
	u.batches = append(u.batches, b)
	u.byID[b.id] = b
	WriteJSON(w, map[string]string{"id": b.id, "status": b.status})
}

// body reads a create or add body, refusing one past the size limit.
func (u *batchUnit) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, _ := io.ReadAll(r.Body)
	if n := u.limits.BodyBytes; n > 0 && len(body) > n {
		Problem(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body of %d bytes exceeds the limit of %d bytes per call", len(body), n))
		return nil, false
	}
	return body, true
}

// batchEntry is a request of a create or add body: the shape of a /run
// body, of which the batch keeps the input.
type batchEntry struct {
	Input json.RawMessage `json:"input"`
}

// batchInputs returns the inputs of the requests, each required; prefix
// names the list in the error ("requests" for an add body).
func batchInputs(list []batchEntry, prefix string) ([]json.RawMessage, error) {
	inputs := make([]json.RawMessage, len(list))
	for i, e := range list {
		if len(e.Input) == 0 || string(e.Input) == "null" {
			return nil, fmt.Errorf("%s[%d].input is required", prefix, i)
		}
		inputs[i] = e.Input
	}
	return inputs, nil
}

// entryError names the first element of list that is not a request (the
// body is decoded once, and looked into again only when it is refused).
func entryError(list []json.RawMessage, prefix string) error {
	for i, raw := range list {
		var e batchEntry
		if json.Unmarshal(raw, &e) != nil {
			return fmt.Errorf("%s[%d] must be a JSON object with an input", prefix, i)
		}
	}
	return errors.New("the requests must be JSON objects with an input")
}

// append adds requests with these inputs to b.
func (b *fakeBatch) append(inputs []json.RawMessage) {
	for _, in := range inputs {
		b.requests = append(b.requests, &batchRequest{id: "req_" + randomHex(8), input: in, status: jobqueue.InQueue})
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// add appends {"requests": [...]} to a DRAFT batch.
func (u *batchUnit) add(w http.ResponseWriter, r *http.Request, _ *queue, b *fakeBatch) {
	body, ok := u.body(w, r)
	if !ok {
		return
	}
	var req struct {
		Requests []batchEntry `json:"requests"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Requests == nil {
		var raw struct {
			Requests []json.RawMessage `json:"requests"`
		}
		if json.Unmarshal(body, &raw) != nil || raw.Requests == nil {
			Problem(w, http.StatusBadRequest, "the body must be {\"requests\": [{\"input\": …}, …]}")
			return
		}
		Problem(w, http.StatusBadRequest, entryError(raw.Requests, "requests").Error())
		return
	}
	inputs, err := batchInputs(req.Requests, "requests")
	if err != nil {
		Problem(w, http.StatusBadRequest, err.Error())
		return
	}
	if !draftOnly(w, b, "added to") {
		return
	}
	if n := u.limits.RequestsPerBatch; n > 0 && len(b.requests)+len(inputs) > n {
		Problem(w, http.StatusBadRequest, fmt.Sprintf("a batch holds at most %d requests: it has %d, and %d more were sent", n, len(b.requests), len(inputs)))
		return
	}
	b.append(inputs)
	WriteJSON(w, u.summaryLocked(b))
}

// draftOnly answers 409 and false unless b is a DRAFT.
func draftOnly(w http.ResponseWriter, b *fakeBatch, what string) bool {
	if b.status == batchDraft {
		return true
	}
	Problem(w, http.StatusConflict, fmt.Sprintf("batch %s is %s: only a DRAFT batch can be %s", b.id, b.status, what))
	return false
}

// remove drops one request of a DRAFT batch.
func (u *batchUnit) remove(w http.ResponseWriter, r *http.Request, _ *queue, b *fakeBatch) {
	if !draftOnly(w, b, "have requests removed") {
		return
	}
	i := slices.IndexFunc(b.requests, func(x *batchRequest) bool { return x.id == r.PathValue("request") })
	if i < 0 {
		Problem(w, http.StatusNotFound, "request not found in batch "+b.id)
		return
	}
	b.requests = slices.Delete(b.requests, i, i+1)
	WriteJSON(w, u.summaryLocked(b))
}

// rename sets the display name, in any state.
func (u *batchUnit) rename(w http.ResponseWriter, r *http.Request, _ *queue, b *fakeBatch) {
	var req struct {
		Name *string `json:"name"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || req.Name == nil {
		Problem(w, http.StatusBadRequest, "the body must be {\"name\": \"…\"}")
		return
	}
	b.name = *req.Name
	WriteJSON(w, u.summaryLocked(b))
}

// finalize locks a DRAFT batch and starts handing its requests to q.
func (u *batchUnit) finalize(w http.ResponseWriter, _ *http.Request, q *queue, b *fakeBatch) {
	if !draftOnly(w, b, "finalized") {
		return
	}
	if n := u.limits.QueuedRequests; n > 0 {
		if queued := u.queuedLocked(b.endpoint); queued+len(b.requests) > n {
			Problem(w, http.StatusTooManyRequests, fmt.Sprintf("endpoint %s has %d queued batch requests; %d more would pass the limit of %d", b.endpoint, queued, len(b.requests), n))
			return
		}
	}
	b.status, b.q = batchFinalized, q
	b.pending = slices.Clone(b.requests)
	if len(b.pending) > 0 {
		slots := u.slots[q]
		if slots == nil {
			slots = make(chan struct{}, q.workers)
			u.slots[q] = slots
		}
		u.s.jobsWG.Go(func() { u.dispatch(b, q, slots) })
	}
	WriteJSON(w, u.summaryLocked(b))
}

// cancel cancels a batch: its queued requests at once, and, once the
// running ones have ended, the batch.
func (u *batchUnit) cancel(w http.ResponseWriter, _ *http.Request, _ *queue, b *fakeBatch) {
	now := u.s.now()
	switch b.status {
	case batchDraft:
		for _, r := range b.requests {
			r.status, r.ended = jobqueue.Cancelled, now
		}
		b.status, b.cancelled = batchCancelled, true
	case batchFinalized:
		u.refreshLocked(b)
		if !b.cancelled && u.doneLocked(b) {
			Problem(w, http.StatusConflict, fmt.Sprintf("batch %s has finished: every request has ended", b.id))
			return
		}
		b.cancelled = true
		for _, r := range b.pending {
			r.status, r.ended = jobqueue.Cancelled, now
		}
		b.pending = nil
		for _, r := range b.running {
			// A request handed to the queue that no worker has taken yet
			// is still queued.
			if v, err := b.q.jq.Get(r.id); err == nil && v.Status == jobqueue.InQueue {
				if v, err := b.q.jq.Cancel(r.id); err == nil && v.Status.Terminal() {
					u.endLocked(b, r, v)
				}
			}
		}
		u.settleLocked(b)
	case batchFailed:
		Problem(w, http.StatusConflict, fmt.Sprintf("batch %s is FAILED", b.id))
		return
	}
	WriteJSON(w, u.summaryLocked(b))
}

// list answers the endpoint's batches, newest first.
func (u *batchUnit) list(w http.ResponseWriter, _ *http.Request, q *queue) {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := []batchSummary{}
	for _, b := range slices.Backward(u.batches) {
		if b.endpoint == q.id {
			out = append(out, u.summaryLocked(b))
		}
	}
	WriteJSON(w, map[string]any{"batches": out})
}

// results answers a page of the batch's requests.
func (u *batchUnit) results(w http.ResponseWriter, r *http.Request, _ *queue, b *fakeBatch) {
	offset, limit := 0, BatchPageDefault
	query := r.URL.Query()
	if v := query.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			Problem(w, http.StatusBadRequest, fmt.Sprintf("offset must be a whole number from 0, got %q", v))
			return
		}
		offset = n
	}
	if v := query.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			Problem(w, http.StatusBadRequest, fmt.Sprintf("limit must be a whole number from 1, got %q", v))
			return
		}
		limit = min(n, BatchPageMax)
	}
	u.refreshLocked(b)
	page := []batchItem{}
	if offset < len(b.requests) {
		for _, r := range b.requests[offset:min(offset+limit, len(b.requests))] {
			page = append(page, r.item())
		}
	}
	WriteJSON(w, map[string]any{"requests": page, "total": len(b.requests), "offset": offset, "limit": limit,
		"hasMore": offset+len(page) < len(b.requests)})
}

// batchSummary is a batch as GET …/batch/{id} answers it.
type batchSummary struct {
	ID                string `json:"id"`
	EndpointID        string `json:"endpointId"`
	Name              string `json:"name,omitempty"`
	Status            string `json:"status"`
	RequestTotal      int    `json:"requestTotal"`
	RequestInProgress int    `json:"requestInProgress"`
	RequestCompleted  int    `json:"requestCompleted"`
	RequestFailed     int    `json:"requestFailed"`
	CreatedAt         int64  `json:"createdAt"`
}

// summaryLocked is b's summary now.
func (u *batchUnit) summaryLocked(b *fakeBatch) batchSummary {
	u.refreshLocked(b)
	s := batchSummary{ID: b.id, EndpointID: b.endpoint, Name: b.name, Status: b.status, RequestTotal: len(b.requests), CreatedAt: b.created.UnixMilli()}
	for _, r := range b.requests {
		switch {
		case r.status == jobqueue.InProgress:
			s.RequestInProgress++
		case r.status == jobqueue.Completed:
			s.RequestCompleted++
		case r.status.Terminal():
			s.RequestFailed++
		}
	}
	return s
}

// batchItem is a request as a page of GET …/batch/{id}/requests lists it.
type batchItem struct {
	ID          string          `json:"id"`
	Status      jobqueue.Status `json:"status"`
	Output      json.RawMessage `json:"output,omitempty"`
	Error       string          `json:"error,omitempty"`
	StartedAt   string          `json:"startedAt,omitempty"`
	CompletedAt string          `json:"completedAt,omitempty"`
}

func (r *batchRequest) item() batchItem {
	it := batchItem{ID: r.id, Status: r.status, Error: r.errText}
	if r.status == jobqueue.Completed {
		it.Output = r.output
	}
	if !r.started.IsZero() {
		it.StartedAt = r.started.UTC().Format(time.RFC3339Nano)
	}
	if !r.ended.IsZero() {
		it.CompletedAt = r.ended.UTC().Format(time.RFC3339Nano)
	}
	return it
}

// activeLocked counts the endpoint's active batches: DRAFT, or FINALIZED
// with requests that have not ended.
func (u *batchUnit) activeLocked(endpoint string) int {
	n := 0
	for _, b := range u.batches {
		if b.endpoint != endpoint {
			continue
		}
		if b.status == batchFinalized {
			u.refreshLocked(b)
		}
		if b.status == batchDraft || (b.status == batchFinalized && !u.doneLocked(b)) {
			n++
		}
	}
	return n
}

// queuedLocked counts the requests of the endpoint's finalized batches
// that wait for a worker.
func (u *batchUnit) queuedLocked(endpoint string) int {
	n := 0
	for _, b := range u.batches {
		if b.endpoint != endpoint || b.status != batchFinalized {
			continue
		}
		u.refreshLocked(b)
		for _, r := range b.requests {
			if r.status == jobqueue.InQueue {
				n++
			}
		}
	}
	return n
}

// doneLocked reports whether every request of b has ended.
func (u *batchUnit) doneLocked(b *fakeBatch) bool {
	return !slices.ContainsFunc(b.requests, func(r *batchRequest) bool { return !r.status.Terminal() })
}

// refreshLocked reads the state of b's requests that are jobs of its
// queue now.
func (u *batchUnit) refreshLocked(b *fakeBatch) {
	for _, r := range b.running {
		v, err := b.q.jq.Get(r.id)
		if err != nil {
			continue // the watcher records what became of it
		}
		if v.Status.Terminal() {
			u.endLocked(b, r, v)
			continue
		}
		r.status = v.Status
		if v.WorkerID != "" {
			r.started = r.queued.Add(v.DelayTime)
		}
	}
}

// endLocked records how the job of request r ended (v), once.
func (u *batchUnit) endLocked(b *fakeBatch, r *batchRequest, v jobqueue.View) {
	if r.status.Terminal() {
		return
	}
	r.status, r.errText = v.Status, v.Error
	if v.Status == jobqueue.Completed {
		r.output = v.Output
	}
	if v.WorkerID != "" {
		r.started = r.queued.Add(v.DelayTime)
		r.ended = r.started.Add(v.ExecutionTime)
	} else {
		r.ended = u.s.now()
	}
	delete(b.running, r.id)
	u.settleLocked(b)
}

// settleLocked makes a cancelled batch CANCELLED once nothing of it runs.
func (u *batchUnit) settleLocked(b *fakeBatch) {
	if b.cancelled && b.status == batchFinalized && len(b.running) == 0 && len(b.pending) == 0 {
		b.status = batchCancelled
	}
}

// failLocked fails b: the batch itself, and its requests left unfinished.
func (u *batchUnit) failLocked(b *fakeBatch, why string) {
	if b.status != batchFinalized {
		return
	}
	now := u.s.now()
	for _, r := range b.requests {
		if !r.status.Terminal() {
			r.status, r.errText, r.ended = jobqueue.Failed, why, now
		}
	}
	b.status, b.pending = batchFailed, nil
	clear(b.running)
}

// dispatch hands b's pending requests to q one by one, each when one of
// the queue's slots (its workers) is free, until none is left, the batch
// is cancelled or failed, or q closes.
func (u *batchUnit) dispatch(b *fakeBatch, q *queue, slots chan struct{}) {
	for {
		select {
		case slots <- struct{}{}:
		case <-q.ctx.Done():
			u.mu.Lock()
			u.failLocked(b, "the endpoint's workers stopped")
			u.mu.Unlock()
			return
		}
		u.mu.Lock()
		if b.status != batchFinalized || b.cancelled || len(b.pending) == 0 {
			u.mu.Unlock()
			<-slots
			return
		}
		r := b.pending[0]
		b.pending = b.pending[1:]
		r.queued = u.s.now()
		if _, err := q.jq.Submit(jobqueue.Spec{ID: r.id, Input: r.input}); err != nil {
			u.failLocked(b, "the endpoint's queue refused the request: "+err.Error())
			u.mu.Unlock()
			<-slots
			return
		}
		b.running[r.id] = r
		u.mu.Unlock()
		u.s.jobsWG.Go(func() {
			defer func() { <-slots }()
			u.watch(b, q, r)
		})
	}
}

// watch waits for the job of request r to end and records it.
func (u *batchUnit) watch(b *fakeBatch, q *queue, r *batchRequest) {
	ended := func(v jobqueue.View) bool { return v.Status.Terminal() }
	for {
		v, err := q.jq.Wait(q.ctx, r.id, time.Hour, ended)
		u.mu.Lock()
		switch {
		case errors.Is(err, jobqueue.ErrNotFound):
			// Its TTL passed, or the job API forgot it before it was read.
			u.endLocked(b, r, jobqueue.View{ID: r.id, Status: jobqueue.Failed, Error: "the request's job is gone: " + err.Error()})
		case v.Status.Terminal():
			u.endLocked(b, r, v)
		case q.ctx.Err() != nil || q.jq.Closed():
			u.failLocked(b, "the endpoint's workers stopped")
		default:
			u.mu.Unlock()
			continue
		}
		u.mu.Unlock()
		return
	}
}
