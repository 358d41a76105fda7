package gql

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestIsQuery(t *testing.T) {
	for doc, want := range map[string]bool{
		ListEndpoints_Operation:      true,
		SaveEndpoint_Operation:       false,
		DeleteEndpoint_Operation:     false,
		"{ myself { id } }":          true,
		"# comment\n  query X { a }": true,
		"# query\nmutation M { a }":  false,
		"queryX { a }":               false,
		"subscription S { a }":       false,
		"\ufeff query":               true,
		"":                           false,
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
