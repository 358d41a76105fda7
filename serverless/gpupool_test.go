package serverless_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go/serverless"
)

// TestGPUPoolsCurrent: the pools the platform lists now are there, under
// their wire ids, in GPUPools once each (issue 26 item 10).
func TestGPUPoolsCurrent(t *testing.T) {
	for pool, id := range map[serverless.GPUPool]string{
		serverless.GPUPoolAda32Pro:     "ADA_32_PRO",
		serverless.GPUPoolHopper141:    "HOPPER_141",
		serverless.GPUPoolBlackwell96:  "BLACKWELL_96",
		serverless.GPUPoolBlackwell180: "BLACKWELL_180",
	} {
		assert.Equal(t, id, string(pool))
		assert.Contains(t, serverless.GPUPools(), pool)
	}
	seen := map[serverless.GPUPool]bool{}
	for _, p := range serverless.GPUPools() {
		assert.False(t, seen[p], "%s listed twice", p)
		seen[p] = true
	}
	assert.Len(t, serverless.GPUPools(), 11)
}
