package serverless_test

import (
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
)

// List an endpoint's workers, see which run an older configuration after
// a change of settings, and how far the rollout has come.
func ExampleEndpoints_Workers() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "sdxl", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 1})
	rp, _ := srv.NewClient()
	ctx := context.Background()
	eps := rp.Serverless.Endpoints

	// One more worker: a change of settings, so a new release; the worker
	// that runs already keeps the configuration it started with.
	_, err := eps.Update(ctx, id, serverless.UpdateEndpointRequest{Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(2)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	list, err := eps.Workers(ctx, id)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range list.Workers {
		fmt.Printf("%s %s version %d stale %v\n", w.ID, w.Status, *w.Version, w.IsStale)
	}
	fmt.Printf("%d idle of %d\n", list.Summary.Idle, list.Summary.Total)

	rel, _ := eps.Releases(ctx, id)
	for _, r := range rel.Releases {
		for _, d := range r.Diff {
			fmt.Printf("version %d (%s): %s %s -> %s\n", *r.Version, r.Source, d.Field, d.Old, d.New)
		}
	}
	fmt.Printf("%d%% of the workers on version %d\n", rel.Rollout.PercentOnLatest, *rel.EndpointVersion)
	// Output:
	// wk00000001 IDLE version 1 stale true
	// wk00000002 IDLE version 2 stale false
	// 2 idle of 2
	// version 2 (MANUAL): workers.min 1 -> 2
	// 50% of the workers on version 2
}

// Follow a worker's log: the last lines first, then new ones as they come.
// Cancelling the context (or breaking out of the loop) ends the stream
// without an error.
func ExampleEndpoints_WorkerLogs() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	id := srv.AddEndpoint(runpodtest.Endpoint{Name: "sdxl", TemplateID: "tmpl-1", GPUs: []serverless.GPUPool{serverless.GPUPoolAda24}, WorkersMin: 1})
	worker := srv.WorkerIDs(id)[0]
	srv.AppendWorkerLog(id, worker, serverless.LogSourceContainer, "loading model")
	srv.AppendWorkerLog(id, worker, serverless.LogSourceContainer, "ready")
	rp, _ := srv.NewClient()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	n := 0
	for line, err := range rp.Serverless.Endpoints.WorkerLogs(ctx, id, worker, serverless.GetWorkerLogsParams{Tail: runpod.Ptr(10)}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("[%s] %s\n", line.Source, line.Line)
		if n++; n == 3 {
			cancel() // stop following
		}
	}
	fmt.Println("done")
	// Output:
	// [system] worker wk00000001 started
	// [container] loading model
	// [container] ready
	// done
}
