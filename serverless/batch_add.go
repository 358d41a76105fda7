package serverless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// The platform's limits on what goes into a batch.
const (
	// MaxBatchRequests is the most requests a batch holds.
	MaxBatchRequests = 5000
	// MaxBatchBody is the most bytes of one request body of the batch
	// API (10 MiB, as documented for adding requests); Create and Add
	// split their requests into calls that fit.
	MaxBatchBody = 10 << 20
)

// BatchParams is a batch to create: the inputs of its requests and,
// optionally, its display name.
type BatchParams struct {
	// Name, when set, is the batch's display name. The platform's create
	// takes none: Create sets it (as Rename does) right after the batch
	// is made, before adding the requests that did not fit the first call.
	Name string
	// Inputs are the inputs of the batch's requests, in order; each goes
	// on the wire as {"input": …}, as a /run body's input does, and is
	// handed to the endpoint's handler. None may be nil, there may be at
	// most MaxBatchRequests, and each request must fit a MaxBatchBody
	// body. Empty creates an empty DRAFT batch, to Add to later.
	Inputs []any
}

// IncompleteBatchError reports that Create or Add stopped part way: the
// batch BatchID exists and holds the first Added of the Requested requests
// of the call (and, from Create, may lack its name), but a call to the
// platform failed (Err). When Err matches errs.ErrOutcomeUnknown, the
// requests of the call that failed may be in the batch too: Results lists
// what it holds. Add the rest, or Cancel the batch.
type IncompleteBatchError struct {
	// BatchID is the batch, which exists.
	BatchID string
	// Added is how many of the call's requests are known to be in the
	// batch: the first Added of its inputs.
	Added int
	// Requested is how many requests the call was given.
	Requested int
	// Err is the failure of the call to the platform that stopped it.
	Err error
}

// Error names the batch, so it is never lost, and how far the call got.
func (e *IncompleteBatchError) Error() string {
	return fmt.Sprintf("runpod: batch %s is incomplete: %d of %d requests added: %v", e.BatchID, e.Added, e.Requested, e.Err)
}

// Unwrap returns the failure (a *errs.APIError, a *errs.TransportError, …).
func (e *IncompleteBatchError) Unwrap() error { return e.Err }

// Create creates a DRAFT batch holding p.Inputs, named p.Name. The
// inputs are checked and encoded before anything is sent. The create
// call carries as many requests as fit a MaxBatchBody body (the platform
// takes a top-level JSON array, [] for none), and the rest are added
// (as Add does) in calls that fit. The returned Batch is what Create
// knows: the id and status the platform answered, and RequestTotal the
// requests it added.
//
// Neither call is repeated after an ambiguous failure: an error of the
// create call itself (with no batch id; it matches errs.ErrOutcomeUnknown
// when the batch may have been made) returns a nil Batch, and an error
// after it returns the Batch and an *IncompleteBatchError.
func (b *Batches) Create(ctx context.Context, p BatchParams, opts ...option.RequestOption) (*Batch, error) {
	if err := batchEndpointRule.Check(b.q.id); err != nil {
		return nil, err
	}
	if len(p.Inputs) > MaxBatchRequests {
		return nil, fail.Invalid("BatchParams.Inputs", "has %d requests; a batch holds at most %d", len(p.Inputs), MaxBatchRequests)
	}
	var rename []byte
	if p.Name != "" {
		var err error
		if rename, err = batchRenameBody("BatchParams.Name", p.Name); err != nil {
			return nil, err
		}
	}
	reqs, err := encodeBatchRequests("BatchParams.Inputs", p.Inputs)
	if err != nil {
		return nil, err
	}
	first := batchChunk(reqs, batchCreateOverhead)
	w := wireBatch{EndpointID: b.q.id, Status: BatchStatusDraft}
	err = b.q.t.DoDecode(ctx, &transport.Request{Method: http.MethodPost, URL: b.q.url("/batch", nil), Route: routeBatches,
		Body: batchBody("[", reqs[:first], "]")}, w.decodeCreated, opts...)
	if err != nil {
		return nil, err
	}
	batch := w.batch()
	batch.RequestTotal = first
	if batch.Name == "" {
		batch.Name = p.Name
	}
	stopped := func(err error) (*Batch, error) {
		return batch, &IncompleteBatchError{BatchID: batch.ID, Added: batch.RequestTotal, Requested: len(reqs), Err: err}
	}
	u, err := b.batchURL(batch.ID, "", nil)
	if err != nil {
		return stopped(err) // an id no path can hold
	}
	if rename != nil {
		if err := b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodPut, URL: u, Route: routeBatch, Body: rename, Idempotent: true}, nil, opts...); err != nil {
			return stopped(fmt.Errorf("setting its name: %w", err))
		}
	}
	if u, err = b.batchURL(batch.ID, "/requests", nil); err != nil {
		return stopped(err)
	}
	for rest := reqs[first:]; len(rest) > 0; {
		n := batchChunk(rest, batchAddOverhead)
		if err := b.add(ctx, u, rest[:n], opts); err != nil {
			return stopped(err)
		}
		batch.RequestTotal += n
		rest = rest[n:]
	}
	return batch, nil
}

// Add appends requests with these inputs to a DRAFT batch, in order, in
// as many calls as it takes for each body to fit MaxBatchBody. The inputs
// are checked and encoded before anything is sent: none may be nil, and
// there may be at most MaxBatchRequests (the platform refuses requests
// past that many in the batch). No call is repeated after an ambiguous
// failure; a failure returns an *IncompleteBatchError saying how many
// requests were added. No inputs is nothing to do.
func (b *Batches) Add(ctx context.Context, batchID string, inputs []any, opts ...option.RequestOption) error {
	u, err := b.batchURL(batchID, "/requests", nil)
	if err != nil {
		return err
	}
	if len(inputs) > MaxBatchRequests {
		return fail.Invalid("inputs", "has %d requests; a batch holds at most %d", len(inputs), MaxBatchRequests)
	}
	reqs, err := encodeBatchRequests("inputs", inputs)
	if err != nil {
		return err
	}
	added := 0
	for rest := reqs; len(rest) > 0; {
		n := batchChunk(rest, batchAddOverhead)
		if err := b.add(ctx, u, rest[:n], opts); err != nil {
			return &IncompleteBatchError{BatchID: batchID, Added: added, Requested: len(reqs), Err: err}
		}
		added += n
		rest = rest[n:]
	}
	return nil
}

// add sends one call of the add route (u) with reqs.
func (b *Batches) add(ctx context.Context, u *url.URL, reqs [][]byte, opts []option.RequestOption) error {
	return b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodPost, URL: u, Route: routeBatchRequests,
		Body: batchBody(`{"requests":[`, reqs, `]}`)}, nil, opts...)
}

// The bytes a body of the create route ([…]) and of the add route
// ({"requests":[…]}) holds besides its requests and their commas.
const (
	batchCreateOverhead = len(`[]`)
	batchAddOverhead    = len(`{"requests":[]}`)
)

// encodeBatchRequests encodes each input as a request of a batch,
// {"input": …}, checking that it encodes, is not null, and fits an add
// body alone; field names the inputs in the errors (field[i]).
func encodeBatchRequests(field string, inputs []any) ([][]byte, error) {
	reqs := make([][]byte, len(inputs))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, in := range inputs {
		buf.Reset()
		buf.WriteString(`{"input":`)
		if err := enc.Encode(in); err != nil {
			return nil, fail.Invalid(fmt.Sprintf("%s[%d]", field, i), "cannot be encoded as JSON: %v", err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		if bytes.Equal(buf.Bytes()[len(`{"input":`):], []byte("null")) {
			return nil, fail.Invalid(fmt.Sprintf("%s[%d]", field, i), "is required (nil)")
		}
		buf.WriteByte('}')
		if size := buf.Len() + batchAddOverhead; size > MaxBatchBody {
			return nil, fail.Invalid(fmt.Sprintf("%s[%d]", field, i), "encodes to a %d-byte request body; the batch API takes at most %d bytes per call", size, MaxBatchBody)
		}
		reqs[i] = bytes.Clone(buf.Bytes())
	}
	return reqs, nil
}

// batchChunk returns how many of reqs, from the first, fit in one body
// with overhead bytes besides them and their commas. Every request fits
// alone (encodeBatchRequests checked), so it is at least one when reqs
// is not empty.
func batchChunk(reqs [][]byte, overhead int) int {
	size := overhead
	for i, r := range reqs {
		extra := len(r)
		if i > 0 {
			extra++ // the comma
		}
		if size+extra > MaxBatchBody {
			return max(i, 1)
		}
		size += extra
	}
	return len(reqs)
}

// batchBody joins reqs with commas between open and end.
func batchBody(open string, reqs [][]byte, end string) []byte {
	n := len(open) + len(end) + max(len(reqs)-1, 0)
	for _, r := range reqs {
		n += len(r)
	}
	body := make([]byte, 0, n)
	body = append(body, open...)
	for i, r := range reqs {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, r...)
	}
	return append(body, end...)
}

// batchRenameBody is the body that sets a batch's display name; field
// names the name in the error.
func batchRenameBody(field, name string) ([]byte, error) {
	if strings.TrimSpace(name) == "" {
		return nil, fail.Invalid(field, "is empty")
	}
	return transport.MarshalBody(struct {
		Name string `json:"name"`
	}{name})
}
