package leasetest_test

import (
	"testing"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/lease/leasetest"
	"github.com/runpodkit/runpod-go/volumes"
)

// An integration test gives Track to the client it creates with: what it
// creates is deleted when the test ends, failed or not, and carries a
// lease in case the process dies first.
func ExampleTrack() {
	testSomething := func(t *testing.T) {
		rp, err := runpod.NewClient() // RUNPOD_API_KEY
		if err != nil {
			t.Skip("no key")
		}
		tracked, err := runpod.NewClient(leasetest.Track(t, rp, leasetest.TrackOptions{TTL: 30 * time.Minute}))
		if err != nil {
			t.Fatal(err)
		}
		v, err := tracked.Volumes.Create(t.Context(), volumes.CreateNetworkVolumeRequest{Name: "it-data", Size: 10, DataCenter: "EU-RO-1"})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(v.Name) // it-data~lease-…, deleted at t.Cleanup
	}
	_ = testSomething
}
