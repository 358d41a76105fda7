package podtask_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/pods/podtask"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// t0 is when the fake's clock starts. The tests move it by hand: the
// pods' boot, the task's Duration and the leases' deadlines are all read
// from it.
var t0 = time.Date(2090, 1, 1, 12, 0, 0, 0, time.UTC)

const (
	outOfStock = "NVIDIA GeForce RTX 4090" // run out of stock everywhere by setup
	inStock    = "NVIDIA L40S"             // 0.86 USD/h on secure cloud
	inStockHr  = 0.86
)

// env is a fake platform on a hand-moved clock, with SSH to its pods, an
// account key and a task service aimed at it.
type env struct {
	srv   *runpodtest.Server
	rp    *runpod.Client
	clock *testkit.Clock
	tasks *podtask.Service
	key   podssh.Key
	pem   []byte
}

func setup(t *testing.T) *env {
	t.Helper()
	clock := testkit.NewClock(t0)
	srv, rp, _ := fixture.New(t, fixture.Server(runpodtest.WithClock(clock.Now), fakessh.Serve()))
	key, pemBytes := newKey(t)
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(key.PublicKey())))
	dcs, err := rp.Catalog.DataCenters(t.Context(), catalog.ListDataCentersParams{})
	require.NoError(t, err)
	for _, dc := range dcs {
		srv.SetGPUStock(outOfStock, dc.ID, catalog.AvailabilityLevelNone)
	}
	return &env{srv: srv, rp: rp, clock: clock, tasks: podtask.NewFromConfig(rp.Config()), key: key, pem: pemBytes}
}

func newKey(t testing.TB) (podssh.Key, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	block, err := ssh.MarshalPrivateKey(priv, "")
	require.NoError(t, err)
	b := pem.EncodeToMemory(block)
	testkit.RegisterSecret(string(b))
	key, err := podssh.ParseKey(b, nil)
	require.NoError(t, err)
	return key, b
}

// task is a task on the first GPU type (out of stock), then the second.
// Its OnPod moves the clock by a second, so that the pod, PROVISIONING
// when created, boots, and gives the pod the handler h.
func (e *env) task(h fakessh.PodCommandHandler) podtask.Task {
	return podtask.Task{
		Pod: pods.CreatePodRequest{
			Name:  "train",
			Image: runpod.Ptr("runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"),
			GPU:   &pods.CreateGPUConfig{ID: outOfStock},
		},
		Candidates: []pods.Candidate{{GPUTypeID: outOfStock}, {GPUTypeID: inStock}},
		Timeout:    time.Hour,
		Key:        e.key,
		Command:    "python train.py",
		Clock:      e.clock.Now,
		OnPod: func(p *pods.Pod) {
			fakessh.HandlePodCommand(e.srv, p.ID, h)
			e.clock.Add(time.Second)
		},
	}
}

// running returns the fake's pods that are not terminated.
func (e *env) running() []runpodtest.Pod {
	var out []runpodtest.Pod
	for _, p := range e.srv.Pods() {
		if p.Status != pods.PodStatusTerminated {
			out = append(out, p)
		}
	}
	return out
}

// reapAtDeadline moves the fake's clock to deadline, runs lease.Reap
// there and checks that no pod is left running.
func (e *env) reapAtDeadline(t *testing.T, deadline time.Time) lease.Report {
	t.Helper()
	if d := deadline.Sub(e.clock.Now()); d > 0 {
		e.clock.Add(d)
	}
	rep, err := lease.Reap(t.Context(), e.rp, lease.ReapOptions{Now: e.clock.Now})
	require.NoError(t, err)
	assert.Empty(t, e.running(), "the fake holds no running pod once Reap ran at the lease's deadline")
	return rep
}

// trainer stands for "python train.py": it reads /workspace/data/in.txt,
// writes its upper case to /workspace/out/result.txt and a log beside
// it, takes 90 s of the fake's clock, and exits with status.
func (e *env) trainer(t *testing.T, status int) fakessh.PodCommandHandler {
	return func(_ context.Context, cmd string, _ io.Reader, stdout, stderr io.Writer) int {
		assert.Equal(t, "python train.py", cmd)
		id := e.podID(t)
		in, err := fakessh.PodFile(e.srv, id, "/workspace/data/in.txt")
		if !assert.NoError(t, err) {
			return 1
		}
		assert.NoError(t, fakessh.WritePodFile(e.srv, id, "/workspace/out/result.txt", bytes.ToUpper(in)))
		assert.NoError(t, fakessh.WritePodFile(e.srv, id, "/workspace/out/logs/epoch1.log", []byte("loss 0.1\n")))
		fmt.Fprintf(stdout, "read %d bytes\n", len(in))
		fmt.Fprintln(stderr, "warning: no GPU seen")
		e.clock.Add(90 * time.Second)
		return status
	}
}

// podID returns the id of the one pod the fake runs.
func (e *env) podID(t *testing.T) string {
	t.Helper()
	ps := e.running()
	require.Len(t, ps, 1)
	return ps[0].ID
}

// inputs writes the task's local input directory and returns its path.
func inputs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.txt"), []byte("hello gpu\n"), 0o644))
	return dir
}

// TestRunFallsBackAndCopiesBothWays: with the first GPU type out of
// stock, the task runs on the second; its input directory reaches the
// pod, its output and exit status come back, its output file and
// directory are downloaded, the pod is terminated, and the Result's cost
// is the pod's price over the 91 s the fake's clock moved.
func TestRunFallsBackAndCopiesBothWays(t *testing.T) {
	e := setup(t)
	out := t.TempDir()
	task := e.task(e.trainer(t, 0))
	task.Inputs = []podtask.File{{Local: inputs(t), Remote: "/workspace"}}
	task.Outputs = []podtask.File{
		{Local: filepath.Join(out, "result.txt"), Remote: "/workspace/out/result.txt"},
		{Local: out, Remote: "/workspace/out/logs"},
	}
	var stdout, stderr bytes.Buffer
	task.Stdout, task.Stderr = &stdout, &stderr
	const token = "hf_podtask-secret-0123456789"
	testkit.RegisterSecret(token)
	task.Pod.Env = map[string]string{"HF_TOKEN": token}

	res, err := e.tasks.Run(t.Context(), task)
	require.NoError(t, err)
	testkit.NoSecret(t, res, err, task)
	js, jerr := json.Marshal(task)
	require.NoError(t, jerr)
	assert.Empty(t, testkit.Leak(string(js)), "encoding/json of a Task")
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("task", "task", task, "nested", map[string]any{"t": task})
	assert.Empty(t, testkit.Leak(logged.String()), "a Task logged")
	assert.Contains(t, fmt.Sprint(task), "HF_TOKEN=[REDACTED]")
	assert.Equal(t, "read 10 bytes\n", stdout.String())
	assert.Equal(t, "warning: no GPU seen\n", stderr.String())
	assert.True(t, res.Ran)
	assert.Zero(t, res.ExitStatus)
	assert.Equal(t, inStock, res.GPUTypeID)
	assert.Equal(t, 1, res.GPUCount)
	assert.NotEmpty(t, res.DataCenterID)
	assert.Equal(t, task.Outputs, res.Outputs)
	assert.Regexp(t, `^train-[0-9a-f]{8}~lease-20900101T1300Z$`, res.PodName, "leased until the end of the hour's budget")
	assert.Equal(t, t0.Add(time.Hour), res.Deadline)
	assert.Equal(t, inStockHr, res.CostPerHr)
	assert.Equal(t, 91*time.Second, res.Duration)
	assert.InDelta(t, inStockHr*91/3600, res.Cost, 1e-12)
	assert.True(t, res.Terminated)
	assert.Equal(t, 2, e.srv.Count(runpodtest.RouteCreatePod), "one create per candidate")

	b, err := os.ReadFile(filepath.Join(out, "result.txt"))
	require.NoError(t, err)
	assert.Equal(t, "HELLO GPU\n", string(b))
	b, err = os.ReadFile(filepath.Join(out, "logs", "epoch1.log"))
	require.NoError(t, err)
	assert.Equal(t, "loss 0.1\n", string(b))

	assert.Empty(t, e.running(), "the pod was terminated")
	rep := e.reapAtDeadline(t, res.Deadline)
	assert.Empty(t, rep.Deleted, "nothing was left for Reap")
}

// TestRunCommandFails: a command that exits 3 gives a Result with that
// status and a *podssh.ExitError; the outputs are not copied and the pod
// is terminated.
func TestRunCommandFails(t *testing.T) {
	e := setup(t)
	out := t.TempDir()
	task := e.task(e.trainer(t, 3))
	task.Inputs = []podtask.File{{Local: inputs(t), Remote: "/workspace"}}
	task.Outputs = []podtask.File{{Local: out, Remote: "/workspace/out"}}

	res, err := e.tasks.Run(t.Context(), task)
	var exit *podssh.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitStatus)
	require.NotNil(t, res)
	assert.True(t, res.Ran)
	assert.Equal(t, 3, res.ExitStatus)
	assert.Empty(t, res.Outputs)
	assert.True(t, res.Terminated)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "outputs are not copied after a failure")
	assert.Empty(t, e.running())
	e.reapAtDeadline(t, res.Deadline)
}

// TestRunCancelledMidRun: the context ends while the command runs; Run
// stops the command on the pod (SIGTERM to its process group), then
// terminates the pod under a context of its own, and reports the cancel.
func TestRunCancelledMidRun(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stopped := make(chan struct{})
	task := e.task(func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) int {
		fmt.Fprintln(stdout, "epoch 1")
		<-ctx.Done() // the process was signalled
		close(stopped)
		return 143
	})
	task.Stdout = writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), "epoch 1") {
			cancel()
		}
		return len(p), nil
	})

	res, err := e.tasks.Run(ctx, task)
	require.ErrorIs(t, err, context.Canceled)
	var ie *podssh.InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{"TERM"}, ie.Sent)
	<-stopped
	require.NotNil(t, res)
	assert.False(t, res.Ran)
	assert.True(t, res.Terminated, "terminated after the cancel, under a context of its own")
	assert.Empty(t, e.running())
	e.reapAtDeadline(t, res.Deadline)
}

// TestRunCancelledWhileBooting: a context that ends while the pod boots
// (before SSH) terminates the pod too.
func TestRunCancelledWhileBooting(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	task := e.task(nil)
	task.OnPod = func(*pods.Pod) { cancel() } // the clock does not move: the pod stays PROVISIONING
	res, err := e.tasks.Run(ctx, task)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, res)
	assert.True(t, res.Terminated)
	assert.Empty(t, e.running())
	e.reapAtDeadline(t, res.Deadline)
}

// TestRunTerminateFails: when the terminate is refused, the error is a
// *TerminateError carrying the pod's id and lease, the Result has them
// too, and Reap at the lease's deadline deletes the pod.
func TestRunTerminateFails(t *testing.T) {
	e := setup(t)
	e.srv.FailNext(runpodtest.RouteDeletePod, 1, runpodtest.Fault{Status: 403})
	task := e.task(e.trainer(t, 0))
	task.Inputs = []podtask.File{{Local: inputs(t), Remote: "/workspace"}}
	res, err := e.tasks.Run(t.Context(), task)
	var te *podtask.TerminateError
	require.ErrorAs(t, err, &te)
	require.NotNil(t, res)
	assert.Equal(t, res.PodID, te.PodID)
	assert.Equal(t, res.PodName, te.PodName)
	assert.Equal(t, res.Deadline, te.Deadline)
	assert.Contains(t, err.Error(), res.PodID)
	assert.False(t, res.Terminated)
	assert.Len(t, e.running(), 1, "the pod is left to its lease")

	e.clock.Add(time.Minute)
	rep, err := lease.Reap(t.Context(), e.rp, lease.ReapOptions{Now: e.clock.Now})
	require.NoError(t, err)
	assert.Empty(t, rep.Deleted, "Reap leaves a pod alone before its deadline")
	rep = e.reapAtDeadline(t, res.Deadline)
	require.Len(t, rep.Deleted, 1)
	assert.Equal(t, res.PodID, rep.Deleted[0].ID)
}

// TestRunAmbiguousCreate: the create's connection is cut after the
// platform made the pod; Run, which has no id for it, finds it by its
// name (unique to the call) and deletes it.
func TestRunAmbiguousCreate(t *testing.T) {
	e := setup(t)
	e.srv.FailNext(runpodtest.RouteCreatePod, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	task := e.task(nil)
	task.Candidates = task.Candidates[1:]
	res, err := e.tasks.Run(t.Context(), task)
	require.ErrorIs(t, err, errs.ErrOutcomeUnknown)
	assert.Nil(t, res)
	assert.Equal(t, 1, e.srv.Acted(runpodtest.RouteCreatePod), "the pod was made once")
	assert.Empty(t, e.running(), "and deleted")
}

// TestRunFindsTheCheapestInStock: with no candidates and no GPU type,
// the task goes to the cheapest type the query finds in stock.
func TestRunFindsTheCheapestInStock(t *testing.T) {
	e := setup(t)
	task := e.task(e.trainer(t, 0))
	task.Candidates = nil
	task.Pod.GPU = &pods.CreateGPUConfig{}
	task.Query = catalog.GPUQuery{MinMemoryGB: 48}
	task.Inputs = []podtask.File{{Local: inputs(t), Remote: "/workspace"}}
	res, err := e.tasks.Run(t.Context(), task)
	require.NoError(t, err)
	assert.Equal(t, "NVIDIA RTX A6000", res.GPUTypeID, "the cheapest 48 GB type in stock")
	assert.Empty(t, e.running())
}

// TestRunRefusesBadInput: bad input sends nothing.
func TestRunRefusesBadInput(t *testing.T) {
	e := setup(t)
	before := e.srv.Count("*")
	ok := e.task(nil)
	for field, change := range map[string]func(*podtask.Task){
		"Task.Timeout":  func(t *podtask.Task) { t.Timeout = 0 },
		"Task.Command":  func(t *podtask.Task) { t.Command = " " },
		"Task.Key":      func(t *podtask.Task) { t.Key = podssh.Key{} },
		"Task.Pod.Name": func(t *podtask.Task) { t.Pod.Name = "x~lease-20900101T1200Z" },
		"Name":          func(t *podtask.Task) { t.Pod.Name = "a\x01b" },
		"Task.Inputs[0].Local": func(t *podtask.Task) {
			t.Inputs = []podtask.File{{Remote: "/workspace"}}
		},
		"Task.Outputs[0].Remote": func(t *podtask.Task) {
			t.Outputs = []podtask.File{{Local: "out"}}
		},
		"GPUQuery.MinMemoryGB": func(t *podtask.Task) {
			t.Candidates, t.Pod.GPU, t.Query = nil, &pods.CreateGPUConfig{}, catalog.GPUQuery{MinMemoryGB: -1}
		},
	} {
		task := ok
		change(&task)
		_, err := e.tasks.Run(t.Context(), task)
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Contains(t, ve.Field, field)
	}
	assert.Equal(t, before, e.srv.Count("*"), "nothing was sent")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRunCancelledDuringCreate: the context ends while the create's
// answer is on its way (the platform made the pod, the caller never
// learns its id); Run finds the pod by its name and deletes it.
func TestRunCancelledDuringCreate(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	lost := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err == nil && req.Method == http.MethodPost && req.URL.Path == "/v2/pods" && resp.StatusCode == http.StatusCreated {
			_ = resp.Body.Close()
			cancel() // Ctrl-C, as the answer arrives
			return nil, ctx.Err()
		}
		return resp, err
	})
	task := e.task(nil)
	res, err := e.tasks.Run(ctx, task, lost)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, res)
	assert.Equal(t, 2, e.srv.Count(runpodtest.RouteCreatePod), "the first candidate was out of stock, the second made the pod")
	assert.Empty(t, e.running(), "the pod made by the create was found by name and deleted")
}
