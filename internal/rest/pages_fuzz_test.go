package rest

import (
	"errors"
	"net/http"
	"testing"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// FuzzPages walks a list whose first page is first and every later page
// is later, whatever they hold: the walk ends (within three requests: the
// later page names the same cursor each time), List and All agree on the
// items and the error, and an error that is not the transport's or the
// decoder's is an *errs.PaginationError.
func FuzzPages(f *testing.F) {
	f.Add(`{"things":[{"id":"a"}],"pagination":{"nextCursor":"x","hasNextPage":true}}`, `{"things":[{"id":"b"}],"pagination":{"hasNextPage":false}}`)
	f.Add(`{"things":[{"id":"a"}]}`, `{}`)
	f.Add(`{"things":[],"pagination":{"nextCursor":"x","hasNextPage":true}}`, `{}`)
	f.Add(`{"things":[{"id":"a"}],"pagination":{"nextCursor":null,"hasNextPage":true}}`, `{}`)
	f.Add(`{"things":[{"id":"a"}],"pagination":{"nextCursor":"x","hasNextPage":true}}`, `{"things":[{"id":"b"}],"pagination":{"nextCursor":"x","hasNextPage":true}}`)
	f.Add(`{"things":[{"id":"a"}],"pagination":{"nextCursor":1,"hasNextPage":"yes"}}`, `null`)
	f.Add(`{"pagination":null,"things":null}`, `[]`)
	f.Fuzz(func(t *testing.T, first, later string) {
		sent := 0
		tr := transport.New(option.Config{
			APIKey: secret.NewString("k"), BaseURL: "https://api.test", MaxRetries: 0,
			HTTPClient: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
				sent++
				if r.URL.Query().Has("cursor") {
					return jsonResponse(r, later), nil
				}
				return jsonResponse(r, first), nil
			})},
		})
		got, listErr := List(t.Context(), tr, At(thingsRoute), nil, thingPage)
		if sent > 3 {
			t.Fatalf("List sent %d requests", sent)
		}
		var all []thing
		var allErr error
		for v, err := range All(t.Context(), tr, At(thingsRoute), nil, thingPage) {
			if err != nil {
				if allErr != nil {
					t.Fatal("two errors yielded")
				}
				allErr = err
				continue
			}
			if allErr != nil {
				t.Fatal("an item yielded after the error")
			}
			all = append(all, v)
		}
		if sent > 6 {
			t.Fatalf("List and All sent %d requests", sent)
		}
		if (listErr == nil) != (allErr == nil) || listErr != nil && listErr.Error() != allErr.Error() {
			t.Fatalf("List: %v; All: %v", listErr, allErr)
		}
		if listErr != nil {
			var pe *errs.PaginationError
			var re *errs.ResponseError
			if !errors.As(listErr, &pe) && !errors.As(listErr, &re) {
				t.Fatalf("unexpected error %T: %v", listErr, listErr)
			}
			return
		}
		if got.Things == nil || len(got.Things) != len(all) {
			t.Fatalf("List: %d items (nil %v), All: %d", len(got.Things), got.Things == nil, len(all))
		}
		for i := range all {
			if all[i] != got.Things[i] {
				t.Fatalf("item %d: List %v, All %v", i, got.Things[i], all[i])
			}
		}
	})
}
