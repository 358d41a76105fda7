package gql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/Khan/genqlient/graphql"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Client runs the generated operations over the SDK's transport: POST
// {base}/graphql with the key as api_key (or Bearer, by option). Queries
// are idempotent and retried per the transport's table; mutations are not.
type Client struct {
	T *transport.Transport
}

var _ graphql.Client = Client{}

type callOptionsKey struct{}

// WithCallOptions carries per-call options through the generated functions,
// which take none of their own.
func WithCallOptions(ctx context.Context, opts []option.CallOption) context.Context {
	if len(opts) == 0 {
		return ctx
	}
	return context.WithValue(ctx, callOptionsKey{}, opts)
}

// MakeRequest sends one operation. A response with errors becomes a
// *errs.GraphQLError keeping every entry; data, when present, is decoded
// into resp.Data either way.
func (c Client) MakeRequest(ctx context.Context, req *graphql.Request, resp *graphql.Response) error {
	body, err := transport.MarshalBody(req)
	if err != nil {
		return err
	}
	opts, _ := ctx.Value(callOptionsKey{}).([]option.CallOption)
	var gqlErr *errs.GraphQLError
	err = c.T.DoDecode(ctx, &transport.Request{
		Method:     "POST",
		URL:        c.T.BaseURL("/graphql"),
		Body:       body,
		Auth:       transport.AuthGraphQL,
		Idempotent: IsQuery(req.Query),
	}, func(body []byte) error {
		// A server may echo the key in an error message.
		err := DecodeResponse(c.T.RedactBytes(body), req.OpName, resp.Data)
		if errors.As(err, &gqlErr) {
			return nil
		}
		return err
	}, opts...)
	if err != nil {
		return err
	}
	if gqlErr != nil {
		// A key the body held JSON-escaped is plain once decoded.
		for i := range gqlErr.Errors {
			gqlErr.Errors[i].Message = c.T.Redact(gqlErr.Errors[i].Message)
		}
		return gqlErr
	}
	return nil
}

// DecodeResponse reads a GraphQL response body: data, when present, into
// data; a non-empty errors array into a *errs.GraphQLError.
func DecodeResponse(body []byte, op string, data any) error {
	var raw struct {
		Data   json.RawMessage           `json:"data"`
		Errors []errs.GraphQLErrorDetail `json:"errors"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return fmt.Errorf("graphql %s: %w", op, err)
	}
	if len(raw.Data) > 0 && string(raw.Data) != "null" && data != nil {
		if err := json.Unmarshal(raw.Data, data); err != nil {
			return fmt.Errorf("graphql %s: data: %w", op, err)
		}
	}
	if len(raw.Errors) > 0 {
		return &errs.GraphQLError{Operation: op, Errors: raw.Errors}
	}
	return nil
}

// IsQuery reports whether the document's first operation is a query (and
// so safe to repeat), skipping white space and comments.
func IsQuery(doc string) bool {
	for {
		doc = strings.TrimLeft(doc, " \t\r\n,\ufeff")
		if !strings.HasPrefix(doc, "#") {
			break
		}
		_, doc, _ = strings.Cut(doc, "\n")
	}
	return strings.HasPrefix(doc, "{") || (strings.HasPrefix(doc, "query") && !isNameChar(doc, len("query")))
}

func isNameChar(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
