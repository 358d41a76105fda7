package serverless_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// Many jobs waited for at once on one endpoint share its status budget:
// raise it to what the endpoint's workers allow.
func ExampleService_SetWaitBudget() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("square", func(ctx context.Context, job *worker.Job) (any, error) {
		var n int
		_ = json.Unmarshal(job.Input, &n)
		return n * n, nil
	}, runpodtest.WithWorkers(4))
	rp, _ := srv.NewClient()
	// An endpoint whose running workers have raised its status limit to
	// 800 requests at once and 4,000 per 10 s:
	if err := rp.Serverless.SetWaitBudget(serverless.WaitBudget{Concurrent: 800, Per10s: 4000}); err != nil {
		fmt.Println(err)
		return
	}
	q := rp.Serverless.Queue("square")
	ctx := context.Background()

	squares := make([]int, 5)
	var wg sync.WaitGroup
	for i := range squares {
		job, err := q.Run(ctx, serverless.RunParams{Input: i + 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		wg.Go(func() {
			job, err := q.Wait(ctx, job.ID, serverless.WaitOptions{})
			if err != nil {
				fmt.Println(err)
				return
			}
			squares[i], _ = serverless.Output[int](job)
		})
	}
	wg.Wait()
	fmt.Println(squares)
	// Output: [1 4 9 16 25]
}
