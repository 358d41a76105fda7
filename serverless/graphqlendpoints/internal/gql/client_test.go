package gql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestIsQuery(t *testing.T) {
	for doc, want := range map[string]bool{
		ListEndpoints_Operation:          true,
		EndpointSettings_Operation:       true,
		SaveEndpoint_Operation:           false,
		DeleteEndpoint_Operation:         false,
		UpdateEndpointTemplate_Operation: false,
		"{ myself { id } }":              true,
		"# comment\n  query X { a }":     true,
		"# query\nmutation M { a }":      false,
		"queryX { a }":                   false,
		"subscription S { a }":           false,
		"\ufeff query":                   true,
		"":                               false,
	} {
		assert.Equal(t, want, IsQuery(doc), "%q", doc)
	}
}

func TestDecodeResponse(t *testing.T) {
	var data ListEndpointsResponse
	err := DecodeResponse([]byte(`{"data":{"myself":null},"errors":[{"message":"template not found","path":["saveEndpoint"],"extensions":{"code":"NOT_FOUND"}},{"message":"second"}]}`), "SaveEndpoint", &data)
	var ge *errs.GraphQLError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "SaveEndpoint", ge.Operation)
	require.Len(t, ge.Errors, 2)
	assert.Equal(t, []any{"saveEndpoint"}, ge.Errors[0].Path)
	assert.Equal(t, "NOT_FOUND", ge.Errors[0].Code())
	assert.ErrorIs(t, err, errs.ErrNotFound)
	assert.Nil(t, data.Myself)

	require.NoError(t, DecodeResponse([]byte(`{"data":{"myself":{"endpoints":[{"id":"e1","name":"abc","gpuIds":"ADA_24"}],"serverlessDiscount":null}}}`), "ListEndpoints", &data))
	require.NotNil(t, data.Myself)
	assert.Equal(t, "e1", data.Myself.Endpoints[0].Id)
	assert.Equal(t, "ADA_24", *data.Myself.Endpoints[0].GpuIds)

	require.Error(t, DecodeResponse([]byte(`<html>`), "X", &data))
	require.Error(t, DecodeResponse([]byte(`{"data":{"myself":{"endpoints":7}}}`), "X", &data))
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"data":{"myself":{"endpoints":[{"id":"e1","name":"abc","pods":[{"desiredStatus":"RUNNING"}]}]}}}`))
	f.Add([]byte(`{"errors":[{"message":"x","path":["a",0],"locations":[{"line":1,"column":2}],"extensions":{"code":"FORBIDDEN"}}],"data":null}`))
	f.Add([]byte(`{"data":{"saveEndpoint":{"id":"e","name":"n","networkVolumeIds":[{"networkVolumeId":"v"}],"executionTimeoutMs":1}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var list ListEndpointsResponse
		err := DecodeResponse(body, "ListEndpoints", &list)
		var ge *errs.GraphQLError
		if errors.As(err, &ge) {
			if len(ge.Errors) == 0 {
				t.Fatal("a GraphQLError without errors")
			}
			_ = ge.Error()
		}
		var save SaveEndpointResponse
		_ = DecodeResponse(body, "SaveEndpoint", &save)
	})
}

const testKey = "rpa_0123456789ABCDEF0123456789ABCDEF"

// goneServer answers every request 410 Gone, as a retired GraphQL API
// does, and records the requests.
func goneServer(t *testing.T) (Client, func() []*http.Request) {
	t.Helper()
	var mu sync.Mutex
	var reqs []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		reqs = append(reqs, r.Clone(context.Background()))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "req-410")
		w.WriteHeader(http.StatusGone)
		_, _ = io.WriteString(w, `{"title":"Gone","status":410,"detail":"The GraphQL API is retired: use the REST API v2."}`)
	}))
	t.Cleanup(srv.Close)
	tr := transport.New(option.Config{APIKey: secret.NewString(testKey), BaseURL: srv.URL, InferenceURL: srv.URL, MaxRetries: -1})
	t.Cleanup(tr.CloseIdleConnections)
	return Client{T: tr}, func() []*http.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]*http.Request(nil), reqs...)
	}
}

// TestRetiredPerOperation: a 410 from /graphql matches
// errs.ErrGraphQLRetired, keeps the *errs.APIError (status 410), and names
// the REST v2 call that does the operation's work. A 410 is not retried,
// and the key went in the Authorization header, in no URL.
func TestRetiredPerOperation(t *testing.T) {
	c, reqs := goneServer(t)
	ctx := t.Context()
	for _, tc := range []struct {
		op      string
		call    func() error
		instead []string
	}{
		{"SaveEndpoint", func() error {
			_, err := SaveEndpoint(ctx, c, EndpointInput{Name: "abc", TemplateId: "t"})
			return err
		}, []string{"rp.Serverless.Endpoints.Create", "rp.Serverless.Endpoints.Update"}},
		{"ListEndpoints", func() error { _, err := ListEndpoints(ctx, c); return err },
			[]string{"rp.Serverless.Endpoints.List", "rp.Serverless.Endpoints.Get", "serverless discount has no REST v2 equivalent"}},
		{"EndpointSettings", func() error { _, err := EndpointSettings(ctx, c); return err },
			[]string{"rp.Serverless.Endpoints.Update"}},
		{"DeleteEndpoint", func() error { _, err := DeleteEndpoint(ctx, c, "ep1"); return err },
			[]string{"rp.Serverless.Endpoints.Delete"}},
		{"UpdateEndpointTemplate", func() error {
			_, err := UpdateEndpointTemplate(ctx, c, UpdateEndpointTemplateInput{EndpointId: "ep1", TemplateId: "t2"})
			return err
		}, []string{"rp.Serverless.Endpoints.Update with UpdateEndpointRequest.TemplateID"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			before := len(reqs())
			err := tc.call()
			require.ErrorIs(t, err, errs.ErrGraphQLRetired)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusGone, apiErr.StatusCode)
			var re *RetiredError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tc.op, re.Operation)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "runpod: graphql "+tc.op+": the platform retired its GraphQL API (410 Gone); use "), msg)
			for _, want := range tc.instead {
				assert.Contains(t, msg, want)
			}
			assert.Contains(t, msg, "The GraphQL API is retired", "the platform's words are kept")
			assert.Contains(t, msg, "req-410")
			assert.False(t, errors.Is(err, errs.ErrOutcomeUnknown), "a 410 was not acted on")
			testkit.NoSecret(t, err)
			assert.Len(t, reqs(), before+1, "a 410 is not retried")
		})
	}
	for _, r := range reqs() {
		assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
		assert.Empty(t, r.URL.RawQuery, "no key in any URL")
	}
}

// TestInsteadOf: a method that runs several operations names its own
// REST v2 call, and the error still matches as before; other errors pass
// through untouched.
func TestInsteadOf(t *testing.T) {
	c, _ := goneServer(t)
	_, err := ListEndpoints(t.Context(), c)
	relabelled := InsteadOf(err, "rp.Serverless.Endpoints.Delete")
	require.ErrorIs(t, relabelled, errs.ErrGraphQLRetired)
	var apiErr *errs.APIError
	require.ErrorAs(t, relabelled, &apiErr)
	assert.Contains(t, relabelled.Error(), "runpod: graphql ListEndpoints: the platform retired its GraphQL API (410 Gone); use rp.Serverless.Endpoints.Delete (REST v2) instead")
	assert.NotContains(t, err.Error(), "Endpoints.Delete", "the original is not modified")

	wrapped := fmt.Errorf("outer: %w", err)
	assert.Same(t, wrapped, InsteadOf(wrapped, "x"), "a wrapped RetiredError keeps its wrapper")

	other := errors.New("boom")
	assert.Same(t, other, InsteadOf(other, "x"))
	assert.NoError(t, InsteadOf(nil, "x"))
}
