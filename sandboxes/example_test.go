package sandboxes_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/sandboxes"
)

// platform starts a fake platform whose sandboxes start at once (no
// CREATING time, no container warm-up), and a client of it.
func platform() (*runpodtest.Server, *runpod.Client) {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithSandboxTiming(0, 0))
	rp, _ := srv.NewClient()
	return srv, rp
}

// Run untrusted code in a sandbox: create it, wait until it runs, run a
// command, and terminate it, on error paths too.
func Example() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()

	sb, err := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{
		ImageName: runpod.Ptr("python:3.12-slim"),
		Labels:    map[string]string{"project": "agent"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rp.Sandboxes.Terminate(context.WithoutCancel(ctx), sb.ID) // billing stops here

	sb, err = rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sb.State)
	res, err := rp.Sandboxes.Exec(ctx, sb.ID, []string{"sh", "-c", "echo hello && echo world"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Output)
	// Output:
	// RUNNING
	// hello
	// world
}

func ExampleService_Create() {
	srv := runpodtest.NewServer(contract.Check()) // sandboxes take 5 s to leave CREATING
	defer srv.Close()
	rp, _ := srv.NewClient()
	sb, err := rp.Sandboxes.Create(context.Background(), sandboxes.CreateSandboxRequest{
		Name:               runpod.Ptr("eval-42"),
		ImageName:          runpod.Ptr("python:3.12-slim"),
		VcpuCount:          runpod.Ptr(2),
		IdleTimeoutSeconds: runpod.Ptr(300),
		MaxLifetimeSeconds: runpod.Ptr(100000), // the platform clamps it
		Env:                map[string]string{"APP_ENV": "test"},
		Labels:             map[string]string{"job": "eval-42"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sb.Name, sb.State, sb.IdleTimeoutSeconds, sb.MaxLifetimeSeconds, sb.Labels["job"])
	// Output: eval-42 CREATING 300 86400 eval-42
}

// A create whose connection is reset after the platform made the sandbox
// returns that sandbox, found by Create's token label: one sandbox, one
// POST.
func ExampleService_Create_recovered() {
	srv, rp := platform()
	defer srv.Close()
	srv.FailNext(runpodtest.RouteCreateSandbox, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	sb, err := rp.Sandboxes.Create(context.Background(), sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})
	fmt.Println(err, sb.ID == srv.Sandboxes()[0].ID, len(srv.Sandboxes()), srv.Count(runpodtest.RouteCreateSandbox))
	// Output: <nil> true 1 1
}

// A 402 (balance too low) and a 503 (no capacity) create nothing, and say
// so with the SDK's sentinels.
func ExampleService_Create_refused() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	req := sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")}

	srv.SetBalance(0)
	_, err := rp.Sandboxes.Create(ctx, req)
	fmt.Println(errors.Is(err, errs.ErrPaymentRequired))

	srv.SetBalance(100)
	srv.SetSandboxCapacity(0)
	_, err = rp.Sandboxes.Create(ctx, req)
	fmt.Println(errors.Is(err, errs.ErrNoCapacity), errors.Is(err, errs.ErrOutcomeUnknown), len(srv.Sandboxes()))
	// Output:
	// true
	// true false 0
}

func ExampleService_Get() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	sb, _ := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})
	got, err := rp.Sandboxes.Get(ctx, sb.ID)
	fmt.Println(got.State, got.Compute.VcpuCount, err)
	_, err = rp.Sandboxes.Get(ctx, "nosuchsandbox")
	fmt.Println(errors.Is(err, errs.ErrNotFound))
	// Output:
	// RUNNING 2 <nil>
	// true
}

func ExampleService_List() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	for _, job := range []string{"a", "b"} {
		_, _ = rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim"), Labels: map[string]string{"job": job}})
	}
	list, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{
		State:  runpod.Ptr(sandboxes.SandboxStateRunning),
		Labels: []string{sandboxes.Label("job", "b")},
	})
	fmt.Println(len(list), list[0].Labels["job"], err)
	// Output: 1 b <nil>
}

func ExampleService_All() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	for range 3 {
		_, _ = rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})
	}
	n := 0
	for _, err := range rp.Sandboxes.All(ctx, sandboxes.ListSandboxesParams{}, option.WithPageSize(2)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Println(n)
	// Output: 3
}

func ExampleService_Wait() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	srv.FailSandboxImage("broken:latest", "image pull failed")
	sb, _ := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("broken:latest")})
	_, err := rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{})
	var ended *sandboxes.EndedError
	fmt.Println(errors.As(err, &ended), ended.State, ended.Reason)
	// Output: true FAILED image pull failed
}

func ExampleService_Exec() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	sb, _ := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})

	res, err := rp.Sandboxes.Exec(ctx, sb.ID, []string{"echo", "hello"})
	fmt.Printf("%q %v\n", res.Output, err)

	res, err = rp.Sandboxes.Exec(ctx, sb.ID, []string{"sh", "-c", "echo partial && exit 2"})
	fmt.Printf("%q %v %v\n", res.Output, errors.Is(err, sandboxes.ErrCommandFailed), res.Error)
	// Output:
	// "hello\n" <nil>
	// "partial\n" true exit status 2
}

func ExampleService_Logs() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	sb, _ := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})
	srv.AppendSandboxLog(sb.ID, "listening on :8000")

	for line, err := range rp.Sandboxes.Logs(ctx, sb.ID, sandboxes.GetSandboxLogsParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(line.Source, line.Line)
		if line.Source == sandboxes.LogSourceContainer {
			break // stop following
		}
	}
	// Output:
	// system Pulling image python:3.12-slim
	// system Sandbox running
	// system Container started
	// container listening on :8000
}

func ExampleService_Terminate() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	sb, _ := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})
	fmt.Println(rp.Sandboxes.Terminate(ctx, sb.ID))
	fmt.Println(rp.Sandboxes.Terminate(ctx, sb.ID)) // idempotent
	got, _ := rp.Sandboxes.Get(ctx, sb.ID)
	fmt.Println(got.State, *got.TerminationReason)
	// Output:
	// <nil>
	// <nil>
	// TERMINATED terminated by request
}

// A program that records its token before creating can find the sandbox
// after it was killed mid-create.
func ExampleService_FindByToken() {
	srv, rp := platform()
	defer srv.Close()
	ctx := context.Background()
	token := sandboxes.NewToken() // saved somewhere durable first
	_, _ = rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{
		ImageName: runpod.Ptr("python:3.12-slim"),
		Labels:    map[string]string{sandboxes.TokenLabel: token},
	})

	sb, err := rp.Sandboxes.FindByToken(ctx, token)
	fmt.Println(sb != nil, err)
	sb, err = rp.Sandboxes.FindByToken(ctx, sandboxes.NewToken())
	fmt.Println(sb == nil, err)
	// Output:
	// true <nil>
	// true <nil>
}

func ExampleLabel() {
	fmt.Println(sandboxes.Label("team", "search"))
	// Output: team=search
}

// Printing or encoding a create request shows the names of Env only.
func ExampleCreateSandboxRequest_String() {
	req := sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim"), Env: map[string]string{"OPENAI_API_KEY": "sk-…"}}
	fmt.Println(req)
	// Output: sandboxes.CreateSandboxRequest{ImageName:"python:3.12-slim" Env:{"OPENAI_API_KEY":[REDACTED]}}
}
