package option_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/secret"
)

// TestWithPageSize: a page size is 1 to MaxPageSize, given as an option
// or in a Config made by hand (where zero means the platform's default).
func TestWithPageSize(t *testing.T) {
	for _, n := range []int{1, 100, option.MaxPageSize} {
		c, err := option.NewConfig(option.WithAPIKey(key), option.WithPageSize(n))
		require.NoError(t, err)
		require.Equal(t, n, c.PageSize)
	}
	for _, n := range []int{0, -1, option.MaxPageSize + 1} {
		_, err := option.NewConfig(option.WithAPIKey(key), option.WithPageSize(n))
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, n)
		require.Equal(t, "WithPageSize", ve.Field)
	}
	require.NoError(t, option.Config{APIKey: secret.NewString(key)}.Validate())
	for _, n := range []int{-1, option.MaxPageSize + 1} {
		var ve *errs.ValidationError
		require.ErrorAs(t, option.Config{APIKey: secret.NewString(key), PageSize: n}.Validate(), &ve, n)
		require.Equal(t, "Config.PageSize", ve.Field)
	}
}
