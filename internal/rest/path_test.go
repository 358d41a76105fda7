package rest

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

func pathTransport() *transport.Transport {
	return transport.New(option.Config{APIKey: secret.NewString("k"), BaseURL: "https://api.example.test/gw"})
}

// body is a request body that checks itself.
type body struct{ ok bool }

func (b body) Validate() error {
	if !b.ok {
		return errors.New("bad body")
	}
	return nil
}

func TestPath(t *testing.T) {
	tr := pathTransport()
	gpu := ID{Field: "gpuTypeID", Loose: true}
	worker := ID{Field: "workerID", Extra: "-_"}

	_, err := At("/v2/catalog/gpus/{gpuTypeId}", gpu.Of("NVIDIA A100/x?")).URL(tr)
	require.Error(t, err, "a slash is refused")
	u, err := At("/v2/catalog/gpus/{gpuTypeId}", gpu.Of("NVIDIA A100 80%")).Query("count=1").URL(tr)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.test/gw/v2/catalog/gpus/NVIDIA%20A100%2080%25?count=1", u.String())

	u, err = At("/v2/serverless/{id}/workers/{workerId}/logs", podID.Of("ep1"), worker.Of("w-1")).URL(tr)
	require.NoError(t, err)
	assert.Equal(t, "/gw/v2/serverless/ep1/workers/w-1/logs", u.EscapedPath())

	_, err = At("/v2/pods/{podId}").URL(tr)
	assert.ErrorContains(t, err, "more parameters")
	_, err = At("/v2/pods", podID.Of("p1")).URL(tr)
	assert.ErrorContains(t, err, "fewer parameters")

	// The ids first, then the caller's error, then the body.
	bad := errors.New("bad params")
	_, err = At("/v2/pods/{podId}", podID.Of("a/b")).Check(bad).Request(tr, http.MethodPatch, body{})
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "podID", ve.Field)
	_, err = At("/v2/pods/{podId}", podID.Of("p1")).Check(bad).Check(errors.New("later")).Request(tr, http.MethodPatch, body{})
	assert.Equal(t, bad, err)
	_, err = At("/v2/pods/{podId}", podID.Of("p1")).Request(tr, http.MethodPatch, body{})
	assert.EqualError(t, err, "bad body")

	r, err := At("/v2/pods/{podId}", podID.Of("p1")).Request(tr, http.MethodPatch, body{ok: true})
	require.NoError(t, err)
	assert.Equal(t, "/v2/pods/{podId}", r.Route)
	assert.True(t, r.Idempotent)
	assert.Equal(t, body{ok: true}, r.JSON)
	r, err = At("/v2/pods").Request(tr, http.MethodPost, nil)
	require.NoError(t, err)
	assert.False(t, r.Idempotent, "a POST is not repeated")
	assert.Nil(t, r.JSON)
}

func TestIDLoose(t *testing.T) {
	r := ID{Field: "f", Loose: true}
	require.NoError(t, r.Check("NVIDIA GeForce RTX 4090"))
	for _, id := range []string{"", " ", ".", "..", "a/b", `a\b`, "a\nb"} {
		var ve *errs.ValidationError
		require.ErrorAs(t, r.Check(id), &ve, "%q", id)
		assert.Equal(t, "f", ve.Field)
	}
}
