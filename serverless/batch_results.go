package serverless

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/runpodkit/runpod-go/errs"
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
			if err := b.q.t.DoJSON(ctx, &transport.Request{Method: http.MethodGet, URL: u, Route: routeBatchRequests, Idempotent: true}, &page, opts...); err != nil {
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
			if len(page.Requests) == 0 {
				// A page that says more follow but holds nothing would
				// be asked for again and again.
				yield(BatchRequest{}, &errs.ResponseError{Method: http.MethodGet, Path: u.EscapedPath(), StatusCode: http.StatusOK,
					Err: fmt.Errorf("the page at offset %d holds no request but says more follow", offset)})
				return
			}
			offset += len(page.Requests)
		}
	}
}
