package tracker_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/tracker"
	"github.com/runpodkit/runpod-go/serverless/webhook"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// upper is the examples' handler: it upper-cases its input.
func upper(_ context.Context, job *worker.Job) (any, error) {
	var s string
	if err := job.Decode(&s); err != nil {
		return nil, err
	}
	return strings.ToUpper(s), nil
}

// Submit jobs, then take each result once, as it comes.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("upper", upper)
	rp, _ := srv.NewClient()
	ctx := context.Background()

	t, err := tracker.New(rp.Serverless.Queue("upper"), tracker.NewMemoryStore())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, word := range []string{"alpha", "beta", "gamma"} {
		if _, err := t.Submit(ctx, "word "+word, serverless.RunParams{Input: word}); err != nil {
			fmt.Println(err) // a *tracker.StoreError still holds the job's id
			return
		}
	}
	var lines []string
	for res, err := range t.Results(ctx) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		out, _ := serverless.Output[string](res.Job)
		lines = append(lines, res.Record.Label+": "+out)
	}
	slices.Sort(lines) // results come as the jobs end
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// word alpha: ALPHA
	// word beta: BETA
	// word gamma: GAMMA
}

// A program submits jobs and stops before their results come; the next
// one opens the same file, resumes, and gets them.
func ExampleTracker_Resume() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.HandleQueue("upper", upper)
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "tracker")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "jobs.jsonl")

	// The first run.
	rp, _ := srv.NewClient()
	store, _ := tracker.NewFileStore(path)
	t, _ := tracker.New(rp.Serverless.Queue("upper"), store)
	_, _ = t.Submit(ctx, "greeting", serverless.RunParams{Input: "hello"})
	_ = store.Close()

	// The next run.
	store, err := tracker.NewFileStore(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	t, _ = tracker.New(rp.Serverless.Queue("upper"), store)
	resumed, _ := t.Resume(ctx)
	fmt.Println("resumed", len(resumed), "job")
	for res, err := range t.Results(ctx) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		out, _ := serverless.Output[string](res.Job)
		fmt.Println(res.Record.Label, res.Job.Status, out)
	}
	// Output:
	// resumed 1 job
	// greeting COMPLETED HELLO
}

// A 404 is told apart: a job whose result outlived the platform's
// retention is ReasonExpired, an id the endpoint never had is ReasonUnknown. Here the
// fake platform and the tracker share a clock that the example moves 31
// minutes on.
func ExampleLostJobError() {
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(now))
	defer srv.Close()
	srv.HandleQueue("upper", upper)
	rp, _ := srv.NewClient()
	q := rp.Serverless.Queue("upper")
	ctx := context.Background()
	t, _ := tracker.New(q, tracker.NewMemoryStore(), tracker.WithClock(now))

	job, _ := t.Submit(ctx, "", serverless.RunParams{Input: "hi"})
	_, _ = q.Wait(ctx, job.ID, serverless.WaitOptions{}) // it ends, unseen by the tracker
	skew.Add(int64(31 * time.Minute))

	_, err := t.Wait(ctx, job.ID)
	var lost *tracker.LostJobError
	if errors.As(err, &lost) {
		fmt.Println(lost.Reason, errors.Is(err, tracker.ErrExpired))
	}
	_, err = t.Wait(ctx, "not-a-job-of-this-endpoint")
	if errors.As(err, &lost) {
		fmt.Println(lost.Reason, errors.Is(err, tracker.ErrUnknownJob))
	}
	// Output:
	// expired true
	// unknown true
}

// A /run whose connection breaks after the platform accepted the job
// (the fake injects the reset) is not lost: the submission's record
// stays pending, the platform delivers the finished job to the
// submission's own webhook URL, and Results delivers it under its label.
// In a program, base is your receiver's public https URL, served by
// t.Handler().
func ExampleWithWebhooks() {
	srv := runpodtest.NewServer(contract.Check())
	defer srv.Close()
	hold := make(chan struct{}) // the job ends once Submit has returned
	srv.HandleQueue("upper", func(ctx context.Context, job *worker.Job) (any, error) {
		<-hold
		return upper(ctx, job)
	})
	rp, _ := srv.NewClient()
	ctx := context.Background()

	signer, _ := webhook.NewSigner([]byte("an example secret of 32 bytes or more"))
	var handler atomic.Pointer[http.Handler]
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*handler.Load()).ServeHTTP(w, r)
	}))
	defer receiver.Close()
	t, err := tracker.New(rp.Serverless.Queue("upper"), tracker.NewMemoryStore(),
		tracker.WithWebhooks(signer, receiver.URL+"/runpod/done"))
	if err != nil {
		fmt.Println(err)
		return
	}
	h := t.Handler()
	handler.Store(&h)

	srv.FailNext(runpodtest.RouteRun, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	_, err = t.Submit(ctx, "invoice-7", serverless.RunParams{Input: "paid once"})
	var se *tracker.SubmissionError
	if errors.As(err, &se) {
		fmt.Println("submit:", se.State, errors.Is(err, errs.ErrOutcomeUnknown))
	}
	close(hold)
	for res, err := range t.Results(ctx) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		out, _ := serverless.Output[string](res.Job)
		fmt.Println(res.Record.Label, res.Job.Status, out)
	}
	fmt.Println("submitted", srv.Acted(runpodtest.RouteRun), "time")
	// Output:
	// submit: pending true
	// invoice-7 COMPLETED PAID ONCE
	// submitted 1 time
}
