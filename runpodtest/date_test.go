package runpodtest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
)

// TestDateIsTheServersClock: every answer of the API host carries a Date
// header, as an origin server's does (RFC 9110, section 6.6.1), read from
// the server's clock (WithClock), on success and on an injected fault.
func TestDateIsTheServersClock(t *testing.T) {
	at := time.Date(2090, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := runpodtest.NewServer(runpodtest.WithClock(func() time.Time { return at }))
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient(option.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)

	var info option.ResponseInfo
	_, err = rp.Volumes.List(t.Context(), option.WithResponseInto(&info))
	require.NoError(t, err)
	date, err := http.ParseTime(info.Header.Get("Date"))
	require.NoError(t, err)
	assert.Equal(t, at, date.UTC())

	srv.FailNext(runpodtest.RouteNetworkVolumes, 1, runpodtest.Fault{Status: http.StatusForbidden})
	_, err = rp.Volumes.List(t.Context(), option.WithResponseInto(&info))
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, info.StatusCode)
	assert.Equal(t, at.Format(http.TimeFormat), info.Header.Get("Date"))
}
