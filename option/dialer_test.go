package option_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
)

// TestWithDialer: the dialer is kept in the Config, out of JSON; a nil
// one is refused naming the option.
func TestWithDialer(t *testing.T) {
	called := false
	dial := func(context.Context, string, string) (net.Conn, error) {
		called = true
		return nil, errors.New("no network here")
	}
	cfg, err := option.NewConfig(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithDialer(dial))
	require.NoError(t, err)
	require.NotNil(t, cfg.Dialer)
	_, err = cfg.Dialer(t.Context(), "tcp", "203.0.113.1:22")
	require.Error(t, err)
	assert.True(t, called)

	_, err = option.NewConfig(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithDialer(nil))
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithDialer", ve.Field)
}
