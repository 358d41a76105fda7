package serverless_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

func ExampleQueue_RunSync() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("upper", func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ Text string }
		_ = json.Unmarshal(job.Input, &in)
		return map[string]string{"text": strings.ToUpper(in.Text)}, nil
	})
	rp, _ := srv.NewClient()

	job, err := rp.Serverless.Queue("upper").RunSync(context.Background(), serverless.RunParams{Input: map[string]string{"text": "hello"}}, serverless.WaitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := serverless.Output[struct{ Text string }](job)
	fmt.Println(job.Status, out.Text)
	// Output: COMPLETED HELLO
}

func ExampleQueue_Stream() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("count", func(ctx context.Context, job *worker.Job) (any, error) {
		for i := 1; i <= 3; i++ {
			_ = job.Stream(i)
		}
		return "done", nil
	})
	rp, _ := srv.NewClient()
	ep := rp.Serverless.Queue("count")
	ctx := context.Background()

	job, _ := ep.Run(ctx, serverless.RunParams{Input: map[string]int{}})
	for chunk, err := range ep.Stream(ctx, job.ID) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(chunk.Output))
	}
	// Output:
	// 1
	// 2
	// 3
}

// A webhook receiver for job completions.
func ExampleReadWebhook() {
	http.HandleFunc("/runpod/done", func(w http.ResponseWriter, r *http.Request) {
		job, err := serverless.ReadWebhook(w, r, 0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Println(job.ID, job.Status) // deduplicate on job.ID: deliveries are retried
	})
}
