package gql

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/Khan/genqlient/graphql"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
)

// Client runs the generated operations over the SDK's transport: POST
// {base}/graphql with the key in the Authorization: Bearer header (or as
// the api_key query parameter, by option). Queries are idempotent and
// retried per the transport's table; mutations are not. A 410 Gone is a
// *RetiredError.
type Client struct {
	T *transport.Transport
}

var _ graphql.Client = Client{}

type callOptionsKey struct{}

// WithCallOptions carries per-call options through the generated functions,
// which take none of their own.
func WithCallOptions(ctx context.Context, opts []option.RequestOption) context.Context {
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
	opts, _ := ctx.Value(callOptionsKey{}).([]option.RequestOption)
	var gqlErr *errs.GraphQLError
	err = c.T.DoDecode(ctx, &transport.Request{
		Method:     "POST",
		URL:        c.T.BaseURL("/graphql"),
		Route:      "/graphql",
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
		return retired(req.OpName, err)
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

// Instead names, by operation, the SDK call that does its work over REST
// v2, for the message of a RetiredError.
var Instead = map[string]string{
	"SaveEndpoint":           "rp.Serverless.Endpoints.Create or rp.Serverless.Endpoints.Update",
	"ListEndpoints":          "rp.Serverless.Endpoints.List or rp.Serverless.Endpoints.Get (the account's serverless discount has no REST v2 equivalent)",
	"EndpointSettings":       "rp.Serverless.Endpoints.Get and rp.Serverless.Endpoints.Update",
	"DeleteEndpoint":         "rp.Serverless.Endpoints.Delete",
	"UpdateEndpointTemplate": "rp.Serverless.Endpoints.Update with UpdateEndpointRequest.TemplateID",
}

// RetiredError is a 410 Gone from /graphql: the platform has retired its
// GraphQL API. It matches errs.ErrGraphQLRetired, and errors.As finds the
// *errs.APIError.
type RetiredError struct {
	// Operation is the GraphQL operation that was answered 410.
	Operation string
	// Instead names the SDK call to use instead.
	Instead string
	// Err is the 410 response.
	Err *errs.APIError
}

// Error names the operation and the call to use instead.
func (e *RetiredError) Error() string {
	var b strings.Builder
	b.WriteString("runpod: graphql ")
	b.WriteString(e.Operation)
	b.WriteString(": the platform retired its GraphQL API (410 Gone)")
	if e.Instead != "" {
		b.WriteString("; use ")
		b.WriteString(e.Instead)
		b.WriteString(" (REST v2) instead")
	}
	if e.Err != nil {
		if d := cmp.Or(e.Err.Detail, e.Err.Title, e.Err.Excerpt); d != "" {
			fmt.Fprintf(&b, "; the platform said: %q", d)
		}
		if e.Err.RequestID != "" {
			b.WriteString(" (request id " + e.Err.RequestID + ")")
		}
	}
	return b.String()
}

// Unwrap returns errs.ErrGraphQLRetired and the 410 response.
func (e *RetiredError) Unwrap() []error {
	if e.Err == nil {
		return []error{errs.ErrGraphQLRetired}
	}
	return []error{errs.ErrGraphQLRetired, e.Err}
}

// retired turns a 410 answer to op into a *RetiredError; other errors
// are returned as they are.
func retired(op string, err error) error {
	var apiErr *errs.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusGone {
		return &RetiredError{Operation: op, Instead: Instead[op], Err: apiErr}
	}
	return err
}

// InsteadOf returns err with the call to use instead replaced by instead,
// when err is itself a *RetiredError (not one wrapped in another error,
// which is returned as it is): a method that runs several operations
// names its own REST v2 counterpart, whichever operation was refused.
func InsteadOf(err error, instead string) error {
	re, ok := err.(*RetiredError)
	if !ok {
		return err
	}
	c := *re
	c.Instead = instead
	return &c
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
