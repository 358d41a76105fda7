package lease_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/volumes"
)

// A name carries its deadline in UTC, to the minute; Parse reads it back,
// also after the " -fb" the platform appends to a FlashBoot endpoint's
// name.
func ExampleName() {
	name, _ := lease.Name("nightly-eval", time.Date(2026, 11, 28, 1, 30, 0, 0, time.UTC))
	fmt.Println(name)
	base, deadline, ok := lease.Parse(name + " -fb")
	fmt.Println(base, deadline, ok)
	_, _, ok = lease.Parse("nightly-eval")
	fmt.Println(ok)
	// Output:
	// nightly-eval~lease-20261128T0130Z
	// nightly-eval 2026-11-28 01:30:00 +0000 UTC true
	// false
}

// Reap deletes what is past its lease by the platform's clock (here the
// fake's, moved two hours on) and leaves alone what has no lease.
func ExampleReap() {
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	var now atomic.Pointer[time.Time]
	now.Store(&start)
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { return *now.Load() }))
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	scratch, _ := lease.Name("scratch", start.Add(time.Hour))
	for _, name := range []string{scratch, "datasets"} {
		_, _ = rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{Name: name, Size: 10, DataCenter: "EU-RO-1"})
	}
	later := start.Add(2 * time.Hour)
	now.Store(&later) // the platform's clock moves on

	dry, _ := lease.Reap(ctx, rp, lease.ReapOptions{DryRun: true})
	fmt.Println("would delete:", len(dry.WouldDelete), dry.WouldDelete[0].Name)
	report, err := lease.Reap(ctx, rp, lease.ReapOptions{})
	fmt.Println("deleted:", len(report.Deleted), report.Deleted[0].Kind, report.Deleted[0].Base, err)
	left, _ := rp.Volumes.List(ctx)
	fmt.Println("left:", left[0].Name)
	// Output:
	// would delete: 1 scratch~lease-20261128T0100Z
	// deleted: 1 network volume scratch <nil>
	// left: datasets
}
