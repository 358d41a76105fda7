package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/webhook"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// exampleSecret stands for a secret read from the environment.
var exampleSecret = []byte("example-only-secret-of-32-bytes-or-more")

// A job's webhook, end to end against the fake platform: the URL is
// minted for the endpoint, the platform delivers the finished job to it,
// and the receiver confirms the result with Status before using it.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("upper", func(ctx context.Context, job *worker.Job) (any, error) {
		var in struct{ Text string }
		_ = job.Decode(&in)
		return map[string]string{"text": strings.ToUpper(in.Text)}, nil
	})
	rp, _ := srv.NewClient()
	signer, _ := webhook.NewSigner(exampleSecret)

	done := make(chan string, 1)
	hooks := httptest.NewServer(signer.Handler(func(ctx context.Context, job *serverless.Job) error {
		tok, _ := webhook.TokenFrom(ctx)
		confirmed, err := rp.Serverless.Queue(tok.EndpointID).Status(ctx, job.ID)
		if err != nil {
			return err // 500: the platform delivers again
		}
		out, _ := serverless.Output[struct{ Text string }](confirmed)
		done <- fmt.Sprint(tok.EndpointID, " ", confirmed.Status, " ", out.Text)
		return nil
	}))
	defer hooks.Close()

	queue := rp.Serverless.Queue("upper")
	hook, err := signer.URL(hooks.URL+"/runpod/done", webhook.ForEndpoint(queue.ID()))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := queue.Run(context.Background(), serverless.RunParams{Input: map[string]string{"text": "hello"}, Webhook: hook}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-done)
	// Output: upper COMPLETED HELLO
}

// Testing a receiver without the platform: NewRequest builds the
// platform's delivery, to a minted URL or a forged one.
func ExampleNewRequest() {
	signer, _ := webhook.NewSigner(exampleSecret)
	handler := signer.Handler(func(ctx context.Context, job *serverless.Job) error {
		fmt.Println("handled", job.ID, job.Status)
		return nil
	})
	job := &serverless.Job{ID: "job-1", Status: serverless.JobStatusCompleted, Output: []byte(`{"text":"HELLO"}`)}
	deliver := func(url string) {
		r, err := webhook.NewRequest(context.Background(), url, job)
		if err != nil {
			fmt.Println(err)
			return
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	}

	hook, _ := signer.URL("https://hooks.example.com/runpod/done")
	forged, _ := signer.ForgedURL("https://hooks.example.com/runpod/done")
	deliver(hook)
	deliver(hook) // the platform's retry
	deliver(forged)
	// Output:
	// handled job-1 COMPLETED
	// 200 accepted
	// 200 duplicate
	// 403 forged
}

// A receiver of your own with Verify: answer a duplicate 200, so the
// platform stops retrying; a delivery still being handled 503, so the
// platform comes back; record the job as done with Done once acted on,
// and undo the claim with Forget when acting on it fails, so its retry is
// acted on.
func ExampleSigner_Verify() {
	signer, _ := webhook.NewSigner(exampleSecret)
	save := func(job *serverless.Job) error { fmt.Println("saved", job.ID); return nil }

	receive := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		job, err := signer.Verify(r)
		var refused *webhook.Error
		switch {
		case errors.Is(err, webhook.ErrDuplicate):
			w.WriteHeader(http.StatusOK)
		case errors.Is(err, webhook.ErrInProgress):
			w.Header().Set("Retry-After", "10")
			http.Error(w, "in progress", http.StatusServiceUnavailable)
		case errors.As(err, &refused):
			http.Error(w, string(refused.Reason), refused.Reason.StatusCode())
		case err != nil:
			http.Error(w, "try again", http.StatusServiceUnavailable)
		default:
			ctx := context.WithoutCancel(r.Context())
			if err := save(job); err != nil {
				_ = signer.Forget(ctx, r, job)
				http.Error(w, "try again", http.StatusServiceUnavailable)
				return
			}
			_ = signer.Done(ctx, r, job)
		}
	})

	hook, _ := signer.URL("https://hooks.example.com/runpod/done")
	r, _ := webhook.NewRequest(context.Background(), hook, &serverless.Job{ID: "job-1", Status: serverless.JobStatusFailed, Error: "out of memory"})
	rec := httptest.NewRecorder()
	receive.ServeHTTP(rec, r)
	fmt.Println(rec.Code)
	// Output:
	// saved job-1
	// 200
}

// URL mints one URL per submission: the receiver's URL with a token in
// its query.
func ExampleSigner_URL() {
	signer, _ := webhook.NewSigner(exampleSecret)
	hook, err := signer.URL("https://hooks.example.com/runpod/done", webhook.ForEndpoint("my-endpoint"))
	if err != nil {
		fmt.Println(err)
		return
	}
	prefix, token, _ := strings.Cut(hook, "?"+webhook.DefaultParam+"=")
	parts := strings.Split(token, ".")
	fmt.Println(prefix)
	fmt.Println(parts[0], parts[3], len(parts[4]))

	_, err = signer.URL("http://hooks.example.com/runpod/done")
	fmt.Println(err)
	// Output:
	// https://hooks.example.com/runpod/done
	// v1 my-endpoint 43
	// runpod: invalid base: plain http is allowed only for a loopback host; use https
}
