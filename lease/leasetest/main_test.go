package leasetest_test

import (
	"testing"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

// The tests of Track are in package lease's directory, beside Reap's,
// whose machine clock they set (lease's export_test.go).

func TestMain(m *testing.M) { testkit.Main(m) }
