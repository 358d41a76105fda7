package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// field returns the field err names, failing t when err is not a
// *errs.ValidationError.
func field(t *testing.T, err error) string {
	t.Helper()
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	return ve.Field
}

func TestContainer(t *testing.T) {
	zero, one := 0, 1
	require.NoError(t, Container("R", &one, []string{"22/tcp", "8888/http", "70000/tcp"}, map[string]string{"A": "x"}))
	require.NoError(t, Container("R", nil, nil, nil))
	assert.Equal(t, "R.Disk", field(t, Container("R", &zero, nil, nil)))
	assert.Equal(t, "R.Ports[1]", field(t, Container("R", nil, []string{"22/tcp", "70000/http"}, nil)))
	assert.Equal(t, "R.Env", field(t, Container("R", nil, nil, map[string]string{"A=B": "x"})))
}

func TestCUDAVersions(t *testing.T) {
	require.NoError(t, CUDAVersions("R.V", []string{"12.4", "11.8"}))
	assert.Equal(t, "R.V[1]", field(t, CUDAVersions("R.V", []string{"12.4", "12"})))
	assert.Equal(t, "R.Min", field(t, CUDAVersion("R.Min", "12.x")))
}

func TestPersistentMount(t *testing.T) {
	require.NoError(t, PersistentMount("R.P", 10, "/workspace"))
	assert.Equal(t, "R.P.Size", field(t, PersistentMount("R.P", 9, "/workspace")))
	assert.Equal(t, "R.P.Path", field(t, PersistentMount("R.P", 10, "workspace")))
}
