package sandboxes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/sandboxes"
)

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// fake starts a fake platform on a clock the test moves (sandboxes are
// CREATING for 5 s of it and take 15 s more to start their container),
// and a client of it with opts.
func fake(t *testing.T, opts ...option.RequestOption) (*runpodtest.Server, *runpod.Client, *testkit.Clock) {
	t.Helper()
	clk := testkit.NewClock(t0)
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithClock(clk.Now)), fixture.Client(opts...))
	return srv, rp, clk
}

// ticking moves clk on by step before every read of a sandbox (GET
// /v2/sandboxes/{id}): the platform's time passes between a wait's checks.
func ticking(clk *testkit.Clock, step time.Duration) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if req.Method == http.MethodGet && strings.Count(strings.TrimPrefix(req.URL.Path, "/v2/sandboxes/"), "/") == 0 &&
			strings.HasPrefix(req.URL.Path, "/v2/sandboxes/") {
			clk.Add(step)
		}
		return next(req)
	})
}

func python() sandboxes.CreateSandboxRequest {
	return sandboxes.CreateSandboxRequest{
		Name:      runpod.Ptr("agent"),
		ImageName: runpod.Ptr("python:3.12-slim"),
		Env:       map[string]string{"APP_ENV": "test"},
		Labels:    map[string]string{"project": "checkout"},
	}
}

// TestLifecycle: a sandbox created (CREATING), waited for until RUNNING,
// exec'd through the 409 window of its container's start, its logs read,
// terminated (twice: the second is a no-op) and then refused commands as
// ended; it billed per second until it was terminated.
func TestLifecycle(t *testing.T) {
	srv, rp, clk := fake(t)
	ctx := t.Context()
	sb, err := rp.Sandboxes.Create(ctx, python())
	require.NoError(t, err)
	assert.Equal(t, sandboxes.SandboxStateCreating, sb.State)
	assert.Equal(t, "agent", sb.Name)
	assert.Nil(t, sb.Compute, "no compute while CREATING")
	assert.Equal(t, "checkout", sb.Labels["project"])
	assert.Len(t, sb.Labels[sandboxes.TokenLabel], 32, "Create's token")
	assert.Equal(t, sandboxes.DefaultIdleTimeoutSeconds, sb.IdleTimeoutSeconds)
	assert.Equal(t, sandboxes.DefaultMaxLifetimeSeconds, sb.MaxLifetimeSeconds)

	var seen []sandboxes.SandboxState
	sb, err = rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{Interval: time.Millisecond, OnCheck: func(s *sandboxes.Sandbox) {
		seen = append(seen, s.State)
		clk.Add(2 * time.Second)
	}})
	require.NoError(t, err)
	assert.Equal(t, []sandboxes.SandboxState{"CREATING", "CREATING", "CREATING", "RUNNING"}, seen)
	require.NotNil(t, sb.Compute)
	assert.InDelta(t, 0.026, sb.Compute.CostPerHr, 1e-9)

	// The container starts 15 s after RUNNING: the first execs are
	// answered 409, and Exec reads the sandbox after each (the platform's
	// clock moves 4 s a read) until one is taken.
	tick, _ := fixture.NewClient(t, srv, ticking(clk, 4*time.Second))
	from := len(srv.Requests())
	res, err := tick.Sandboxes.Exec(ctx, sb.ID, []string{"sh", "-c", "echo hello && env"})
	require.NoError(t, err)
	assert.Equal(t, "hello\nAPP_ENV=test\n", res.Output)
	assert.Empty(t, res.Error)
	var conflicts, execs int
	for _, r := range srv.Requests()[from:] {
		if r.Route == runpodtest.RouteSandboxExec {
			execs++
			if r.Status == http.StatusConflict {
				conflicts++
			}
		}
	}
	assert.GreaterOrEqual(t, conflicts, 1, "the 409 window was crossed")
	assert.Equal(t, conflicts+1, execs)

	require.True(t, srv.AppendSandboxLog(sb.ID, "worker ready"))
	var lines []string
	logCtx, stop := context.WithCancel(ctx)
	defer stop()
	for l, err := range rp.Sandboxes.Logs(logCtx, sb.ID, sandboxes.GetSandboxLogsParams{}) {
		require.NoError(t, err)
		lines = append(lines, string(l.Source)+": "+l.Line)
		if l.Line == "worker ready" {
			break
		}
	}
	assert.Equal(t, []string{"system: Pulling image python:3.12-slim", "system: Sandbox running", "system: Container started", "container: worker ready"}, lines)

	clk.Add(time.Minute)
	require.NoError(t, rp.Sandboxes.Terminate(ctx, sb.ID))
	require.NoError(t, rp.Sandboxes.Terminate(ctx, sb.ID), "terminating a terminated sandbox succeeds")
	got, err := rp.Sandboxes.Get(ctx, sb.ID)
	require.NoError(t, err)
	assert.Equal(t, sandboxes.SandboxStateTerminated, got.State)
	require.NotNil(t, got.TerminationReason)
	require.NotNil(t, got.TerminatedAt)

	_, err = rp.Sandboxes.Exec(ctx, sb.ID, []string{"true"})
	var ended *sandboxes.EndedError
	require.ErrorAs(t, err, &ended)
	assert.ErrorIs(t, err, sandboxes.ErrEnded)
	assert.Equal(t, sandboxes.SandboxStateTerminated, ended.State)
	for _, err := range rp.Sandboxes.Logs(ctx, sb.ID, sandboxes.GetSandboxLogsParams{}) {
		assert.ErrorIs(t, err, sandboxes.ErrEnded, "an ended sandbox has no log stream")
	}

	clk.Add(time.Hour)
	all := srv.Sandboxes()
	require.Len(t, all, 1)
	// Billed from its create to its termination: 5 s CREATING, the
	// Wait's and Exec's reads, the minute; nothing after.
	secs := all[0].TerminatedAt.Sub(all[0].CreatedAt).Seconds()
	assert.InDelta(t, 0.026*secs/3600, all[0].Cost, 1e-9)
	assert.Greater(t, secs, 60.0)
}

// TestCreateAfterResetFindsTheSandbox: the connection is reset after the
// platform created the sandbox; Create finds it by its token label and
// returns it, and exactly one sandbox exists, made by one POST.
func TestCreateAfterResetFindsTheSandbox(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.FailNext(runpodtest.RouteCreateSandbox, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	sb, err := rp.Sandboxes.Create(t.Context(), python())
	require.NoError(t, err)
	all := srv.Sandboxes()
	require.Len(t, all, 1, "exactly one sandbox")
	assert.Equal(t, all[0].ID, sb.ID)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateSandbox), "the create was not sent again")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteSandboxes), "one lookup by label")
	assert.Equal(t, all[0].Labels[sandboxes.TokenLabel], sb.Labels[sandboxes.TokenLabel])
}

// TestCreateAfterResetWithContextGone: the caller's context ends while the
// create is in flight and the platform acted; the lookup still runs, so the
// sandbox's id is not lost.
func TestCreateAfterResetWithContextGone(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx, cancel := context.WithCancel(t.Context())
	tripped, _ := fixture.NewClient(t, srv, option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if req.Method == http.MethodPost {
			cancel() // Ctrl-C while the answer is on its way
			_ = resp.Body.Close()
			return nil, context.Canceled
		}
		return resp, err
	}))
	_ = rp
	sb, err := tripped.Sandboxes.Create(ctx, python())
	require.NoError(t, err)
	require.Len(t, srv.Sandboxes(), 1)
	assert.Equal(t, srv.Sandboxes()[0].ID, sb.ID)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateSandbox))
}

// TestCreateUnknownOutcomeNothingFound: a 500 whose request the platform
// did not act on: Create looks, finds nothing, and keeps the error
// ambiguous, naming the token to look for; it never sends the create again.
func TestCreateUnknownOutcomeNothingFound(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.FailNext(runpodtest.RouteCreateSandbox, 1, runpodtest.Fault{Status: http.StatusInternalServerError})
	req := python()
	req.Labels[sandboxes.TokenLabel] = "tok-1"
	_, err := rp.Sandboxes.Create(t.Context(), req)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Contains(t, err.Error(), sandboxes.TokenLabel+"=tok-1")
	assert.Empty(t, srv.Sandboxes())
	assert.Equal(t, 1, srv.Count(runpodtest.RouteCreateSandbox))

	// Later, the program looks again with the token it recorded.
	found, err := rp.Sandboxes.FindByToken(t.Context(), "tok-1")
	require.NoError(t, err)
	assert.Nil(t, found)
}

// TestCreateLowBalance: a 402 matches errs.ErrPaymentRequired; nothing was
// created, and the outcome is known.
func TestCreateLowBalance(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.SetBalance(0)
	_, err := rp.Sandboxes.Create(t.Context(), python())
	require.ErrorIs(t, err, errs.ErrPaymentRequired)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	var api *errs.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, http.StatusPaymentRequired, api.StatusCode)
	assert.Empty(t, srv.Sandboxes())
	assert.Equal(t, 0, srv.Count(runpodtest.RouteSandboxes), "a 402 needs no lookup")
}

// TestCreateNoCapacity: a 503 is the documented "no capacity": after a
// lookup that finds nothing, an *errs.CapacityError matching
// errs.ErrNoCapacity and not ErrOutcomeUnknown.
func TestCreateNoCapacity(t *testing.T) {
	srv, rp, _ := fake(t)
	srv.SetSandboxCapacity(1)
	_, err := rp.Sandboxes.Create(t.Context(), python())
	require.NoError(t, err)
	_, err = rp.Sandboxes.Create(t.Context(), python())
	var c *errs.CapacityError
	require.ErrorAs(t, err, &c)
	assert.ErrorIs(t, err, errs.ErrNoCapacity)
	assert.NotErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Equal(t, http.StatusServiceUnavailable, c.APIError.StatusCode)
	assert.Len(t, srv.Sandboxes(), 1)
	assert.Equal(t, 2, srv.Count(runpodtest.RouteCreateSandbox))
}

// TestWaitFailed: a sandbox that ends FAILED instead of RUNNING is an
// *EndedError with the platform's reason.
func TestWaitFailed(t *testing.T) {
	srv, rp, clk := fake(t)
	srv.FailSandboxImage("python:3.12-slim", "image pull failed")
	sb, err := rp.Sandboxes.Create(t.Context(), python())
	require.NoError(t, err)
	clk.Add(10 * time.Second)
	_, err = rp.Sandboxes.Wait(t.Context(), sb.ID, option.Poll[*sandboxes.Sandbox]{})
	var ended *sandboxes.EndedError
	require.ErrorAs(t, err, &ended)
	assert.Equal(t, sandboxes.SandboxStateFailed, ended.State)
	assert.Equal(t, "image pull failed", ended.Reason)
	assert.Contains(t, err.Error(), "FAILED: image pull failed")
}

// TestWaitContextEnds: a wait the context cuts names the state it saw.
func TestWaitContextEnds(t *testing.T) {
	_, rp, _ := fake(t)
	sb, err := rp.Sandboxes.Create(t.Context(), python())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	n := 0
	_, err = rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{OnCheck: func(*sandboxes.Sandbox) {
		if n++; n == 2 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "CREATING")
}

// TestTimeoutsClampedByThePlatform: the SDK sends the timeouts as asked;
// the platform clamps them and the sandbox reports what it applied, and
// ends at its idle deadline on the platform's clock.
func TestTimeoutsClampedByThePlatform(t *testing.T) {
	srv, rp, clk := fake(t)
	req := python()
	req.IdleTimeoutSeconds = runpod.Ptr(100000)
	req.MaxLifetimeSeconds = runpod.Ptr(1000000)
	sb, err := rp.Sandboxes.Create(t.Context(), req)
	require.NoError(t, err)
	assert.Contains(t, string(srv.Requests()[0].Body), `"idleTimeoutSeconds":100000`, "sent as asked")
	assert.Equal(t, sandboxes.MaxIdleTimeoutSeconds, sb.IdleTimeoutSeconds)
	assert.Equal(t, sandboxes.MaxLifetimeSecondsLimit, sb.MaxLifetimeSeconds)
	assert.Equal(t, t0.Add(2*time.Hour), sb.IdleExpiresAt)
	assert.Equal(t, t0.Add(24*time.Hour), sb.ExpiresAt)

	clk.Add(2*time.Hour + time.Second)
	sb, err = rp.Sandboxes.Get(t.Context(), sb.ID)
	require.NoError(t, err)
	assert.Equal(t, sandboxes.SandboxStateTerminated, sb.State)
	assert.Equal(t, runpodtest.SandboxReasonIdle, *sb.TerminationReason)
}

// TestListByStateAndLabel: the list leaves out terminated sandboxes unless
// asked for them, filters by every label given, and is read across pages.
func TestListByStateAndLabel(t *testing.T) {
	_, rp, _ := fake(t, option.WithPageSize(1))
	ctx := t.Context()
	ids := map[string]string{}
	for _, team := range []string{"a", "a", "b"} {
		req := python()
		req.Labels = map[string]string{"team": team, "env": "ci"}
		sb, err := rp.Sandboxes.Create(ctx, req)
		require.NoError(t, err)
		ids[sb.ID] = team
	}
	all, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{})
	require.NoError(t, err)
	assert.Len(t, all, 3, "every page read")

	teamA, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{Labels: []string{sandboxes.Label("team", "a"), "env=ci"}})
	require.NoError(t, err)
	require.Len(t, teamA, 2)
	for _, sb := range teamA {
		assert.Equal(t, "a", ids[sb.ID])
	}
	require.NoError(t, rp.Sandboxes.Terminate(ctx, teamA[0].ID))

	n := 0
	for sb, err := range rp.Sandboxes.All(ctx, sandboxes.ListSandboxesParams{Labels: []string{"team=a"}}) {
		require.NoError(t, err)
		assert.Equal(t, teamA[1].ID, sb.ID)
		n++
	}
	assert.Equal(t, 1, n, "the terminated one is left out")
	done, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{State: runpod.Ptr(sandboxes.SandboxStateTerminated)})
	require.NoError(t, err)
	require.Len(t, done, 1)
	assert.Equal(t, teamA[0].ID, done[0].ID)
	none, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{Labels: []string{"team=c"}})
	require.NoError(t, err)
	assert.Empty(t, none)
}

// TestExecFailure: a command that fails returns its output and an
// *ExecError; one past the execution cap is killed with an error.
func TestExecFailure(t *testing.T) {
	srv, rp, clk := fake(t)
	srv.HandleSandboxCommand(nil)
	sb := running(t, rp, clk)
	res, err := rp.Sandboxes.Exec(t.Context(), sb, []string{"sh", "-c", "echo partial && exit 3"})
	var e *sandboxes.ExecError
	require.ErrorAs(t, err, &e)
	assert.ErrorIs(t, err, sandboxes.ErrCommandFailed)
	assert.Equal(t, "sh", e.Program)
	assert.Equal(t, "exit status 3", e.Message)
	require.NotNil(t, res)
	assert.Equal(t, "partial\n", res.Output)

	res, err = rp.Sandboxes.Exec(t.Context(), sb, []string{"sleep", "40"})
	require.ErrorIs(t, err, sandboxes.ErrCommandFailed)
	assert.Contains(t, res.Error, "execution cap")

	srv.HandleSandboxCommand(func(_ string, argv []string, _ map[string]string) runpodtest.SandboxResult {
		return runpodtest.SandboxResult{Output: strings.Join(argv, "|")}
	})
	res, err = rp.Sandboxes.Exec(t.Context(), sb, []string{"python", "-c", "print(1)"})
	require.NoError(t, err)
	assert.Equal(t, "python|-c|print(1)", res.Output)
}

// running creates a sandbox and moves the platform's clock past its start
// (5 s CREATING, 15 s more for its container), and returns its id.
func running(t *testing.T, rp *runpod.Client, clk *testkit.Clock) string {
	t.Helper()
	sb, err := rp.Sandboxes.Create(t.Context(), python())
	require.NoError(t, err)
	clk.Add(20 * time.Second)
	return sb.ID
}

// TestTerminateUnknown: terminating a sandbox the platform does not know
// succeeds (nothing of that id bills).
func TestTerminateUnknown(t *testing.T) {
	_, rp, _ := fake(t)
	require.NoError(t, rp.Sandboxes.Terminate(t.Context(), "nosuchsandbox"))
	_, err := rp.Sandboxes.Get(t.Context(), "nosuchsandbox")
	require.ErrorIs(t, err, errs.ErrNotFound)
}

// TestValidation: bad requests are refused before anything is sent, with
// the field named.
func TestValidation(t *testing.T) {
	srv, rp, _ := fake(t)
	ctx := t.Context()
	img := runpod.Ptr("python:3.12-slim")
	for field, req := range map[string]sandboxes.CreateSandboxRequest{
		"CreateSandboxRequest.ImageName":                              {},
		"CreateSandboxRequest.ImageName ":                             {ImageName: img, TemplateID: runpod.Ptr("t1")},
		"CreateSandboxRequest.TemplateID":                             {TemplateID: runpod.Ptr(" ")},
		"CreateSandboxRequest.Name":                                   {ImageName: img, Name: runpod.Ptr("a\nb")},
		"CreateSandboxRequest.CPUFlavorID":                            {ImageName: img, CPUFlavorID: runpod.Ptr("cpu 3c")},
		"CreateSandboxRequest.VcpuCount":                              {ImageName: img, VcpuCount: runpod.Ptr(0)},
		"CreateSandboxRequest.MemoryInGb":                             {ImageName: img, MemoryInGb: runpod.Ptr(-1)},
		"CreateSandboxRequest.IdleTimeoutSeconds":                     {ImageName: img, IdleTimeoutSeconds: runpod.Ptr(0)},
		"CreateSandboxRequest.MaxLifetimeSeconds":                     {ImageName: img, MaxLifetimeSeconds: runpod.Ptr(-5)},
		"CreateSandboxRequest.Env":                                    {ImageName: img, Env: map[string]string{"A=B": "secret-value-1"}},
		"CreateSandboxRequest.Labels":                                 {ImageName: img, Labels: map[string]string{"a=b": "c"}},
		`CreateSandboxRequest.Labels["x"]`:                            {ImageName: img, Labels: map[string]string{"x": "\x00"}},
		`CreateSandboxRequest.Labels["` + sandboxes.TokenLabel + `"]`: {ImageName: img, Labels: map[string]string{sandboxes.TokenLabel: ""}},
	} {
		_, err := rp.Sandboxes.Create(ctx, req)
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v, field)
		assert.Equal(t, strings.TrimSpace(field), v.Field)
		assert.NotContains(t, err.Error(), "secret-value-1")
	}
	for field, p := range map[string]sandboxes.ListSandboxesParams{
		"ListSandboxesParams.State":     {State: runpod.Ptr(sandboxes.SandboxState("GONE"))},
		"ListSandboxesParams.Labels[1]": {Labels: []string{"a=b", "novalue"}},
		"ListSandboxesParams.Labels[0]": {Labels: []string{"=v"}},
	} {
		_, err := rp.Sandboxes.List(ctx, p)
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v, field)
		assert.Equal(t, field, v.Field)
	}
	for field, argv := range map[string][]string{"argv": nil, "argv[0]": {""}, "argv[1]": {"echo", "a\x00b"}} {
		_, err := rp.Sandboxes.Exec(ctx, "sb1", argv)
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v, field)
		assert.Equal(t, field, v.Field)
	}
	_, err := rp.Sandboxes.Get(ctx, "../pods")
	require.ErrorIs(t, err, errs.ErrValidation)
	for _, err := range rp.Sandboxes.Logs(ctx, "sb1", sandboxes.GetSandboxLogsParams{Tail: runpod.Ptr(6000)}) {
		var v *errs.ValidationError
		require.ErrorAs(t, err, &v)
		assert.Equal(t, "GetSandboxLogsParams.Tail", v.Field)
	}
	assert.Empty(t, srv.Requests(), "nothing was sent")
}

// TestEnvValuesNeverShown: the values of a create's Env appear in no
// error, print or log of the request, even when the platform's answer
// quotes them.
func TestEnvValuesNeverShown(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	srv, rp, _ := fake(t)
	srv.FailNext(runpodtest.RouteCreateSandbox, 1, runpodtest.Fault{Status: http.StatusUnprocessableEntity,
		Body: `{"title":"Unprocessable Entity","status":422,"detail":"env OPENAI_KEY=` + secret + ` rejected"}`})
	req := python()
	req.Env = map[string]string{"OPENAI_KEY": secret}
	_, err := rp.Sandboxes.Create(t.Context(), req)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret)
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v %s", err, err, err, err), secret)

	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, req), secret, verb)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("create", "req", req, "nested", map[string]any{"r": req})
	assert.NotContains(t, buf.String(), secret)
	assert.Contains(t, buf.String(), "OPENAI_KEY")
	// The request is sent with the value, of course.
	assert.Contains(t, string(srv.Requests()[0].Body), secret)
	b, err := json.Marshal(req)
	require.NoError(t, err)
	assert.NotContains(t, string(b), secret)
	assert.Contains(t, string(b), `"OPENAI_KEY":"[REDACTED]"`)
}

// TestErrorsAreTyped: the *EndedError and *ExecError messages and
// matching.
func TestErrorsAreTyped(t *testing.T) {
	e := error(&sandboxes.EndedError{ID: "sb1", State: sandboxes.SandboxStateTerminated})
	assert.Equal(t, "sandboxes: sandbox sb1 is TERMINATED", e.Error())
	assert.True(t, errors.Is(fmt.Errorf("x: %w", e), sandboxes.ErrEnded))
	x := error(&sandboxes.ExecError{SandboxID: "sb1", Program: "python", Message: "exit status 1"})
	assert.Equal(t, "sandboxes: python in sandbox sb1: exit status 1", x.Error())
	assert.NotErrorIs(t, x, sandboxes.ErrEnded)
	assert.True(t, sandboxes.SandboxStateFailed.Final())
	assert.False(t, sandboxes.SandboxStateRunning.Final())
}
