package podtask

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podssh"
)

// Service runs tasks on fresh pods. Build it with NewFromConfig; it is
// safe for concurrent use, each Run creating a pod of its own.
type Service struct {
	pods    *pods.Service
	catalog *catalog.Service
	ssh     *podssh.Service
}

// NewFromConfig returns the service built from cfg (option.NewConfig,
// or runpod.Client.Config): it calls the pods and catalog APIs with
// cfg's key and options and dials the pods' SSH ports with cfg.Dialer,
// as podssh.NewFromConfig does.
func NewFromConfig(cfg option.Config) *Service {
	return &Service{pods: pods.NewFromConfig(cfg), catalog: catalog.NewFromConfig(cfg), ssh: podssh.NewFromConfig(cfg)}
}

// DefaultName is the base of a task's pod name when Task.Pod.Name is
// empty.
const DefaultName = "podtask"

// DefaultTerminateWait is how long Run tries, by default, to terminate
// the pod once the task is over (retries included), under a context of
// its own.
const DefaultTerminateWait = time.Minute

// SSHPort is the pod's port Run connects to; Run exposes it ("22/tcp")
// when Task.Pod.Ports does not.
const SSHPort = "22/tcp"

// File is a file or directory copied to the pod before the command
// (Task.Inputs) or from it after (Task.Outputs), as podssh.Conn.Upload
// and Download copy them.
type File struct {
	// Local is the path on this machine: what is uploaded, or where a
	// download goes (a directory that exists receives the copy under
	// the remote base name). Required.
	Local string
	// Remote is the path on the pod. Required.
	Remote string
}

// Task is a command to run on a fresh pod, and the pod to run it on.
type Task struct {
	// Pod is the pod to create. Name is the base of its name (DefaultName
	// when empty): Run makes it unique to the call and adds the lease,
	// "<Name>-<8 hex digits>~lease-<deadline>", so it must not carry a
	// lease already. Ports gets SSHPort when it lacks it, and StartSSH
	// is true when nil, so that the account's SSH keys are let in. For a
	// GPU pod, GPU is required; its ID may be empty when Candidates or
	// Query choose the type. Image (or TemplateID) is required as for
	// pods.Service.Create.
	Pod pods.CreatePodRequest
	// Candidates are the places to try, in order, as
	// pods.Service.CreateWithFallback tries them: the next one only
	// while the platform answers that it has no capacity (nothing was
	// created). Empty means: the catalog's offers for Query when
	// Pod.GPU.ID is empty, else Pod as it is.
	Candidates []pods.Candidate
	// Query finds the GPU types to try when Candidates is empty and
	// Pod.GPU.ID is empty (catalog.Service.FindGPUs, the cheapest in stock
	// first, each in its data centers with stock, pods.CandidatesFrom).
	// Its Count, Cloud and MinCUDAVersion, when zero, are taken from Pod.
	Query catalog.GPUQuery
	// Timeout is the task's budget, from the moment Run is called: the
	// pod's create, boot, copies and command must end within it, and the
	// pod's lease ends with it. With a context that has a deadline, the
	// earlier of the two counts; one of them is required, since a pod
	// without a deadline would have no lease.
	Timeout time.Duration

	// Key logs in to the pod over SSH; its public half must be one of the
	// account's SSH keys (podssh.DialOptions.Key). Required.
	Key podssh.Key
	// HostKeys checks the pod's host key; nil means a new
	// podssh.MemoryHostKeys for the call: a fresh pod's key cannot be
	// known beforehand, so it is trusted on first use and required of
	// every later connection of the call.
	HostKeys podssh.HostKeyStore
	// Poll tunes the wait for the pod to run with its SSH port mapped
	// (podssh.DialOptions.Poll); its OnCheck sees the pod at each check.
	Poll option.Poll[*pods.Pod]

	// Inputs are copied to the pod, in order, before the command runs.
	Inputs []File
	// Command is the command line the pod's login shell runs
	// (podssh.RunParams.Command). Required.
	Command string
	// Stdin is what the command reads (podssh.RunParams.Stdin); nil means
	// nothing.
	Stdin io.Reader
	// Stdout and Stderr receive the command's output as it comes; nil
	// discards it.
	Stdout, Stderr io.Writer
	// Grace is how long a command that must stop (the context ended) is
	// given between SIGTERM and SIGKILL: podssh.RunParams.Grace.
	Grace time.Duration
	// Outputs are copied from the pod, in order, once the command exited
	// with status 0 (after another status they are not copied).
	// Downloads write under Local through an os.Root and take no name
	// from the pod that is not a plain name (see podssh.Conn.Download).
	Outputs []File

	// OnPod, when set, is called once the pod exists, before Run waits
	// for it: the place to record its id. It must not block for long:
	// the pod bills meanwhile.
	OnPod func(*pods.Pod)
	// TerminateWait bounds the terminate that ends every Run (retries
	// included): DefaultTerminateWait when zero.
	TerminateWait time.Duration
	// Clock reads the time for the lease's deadline and the task's
	// Duration; nil means time.Now. (Timeouts are measured by the
	// context, in real time.)
	Clock func() time.Time
}

// Result is what became of a task once its pod was created. Run returns
// it, with the error when there is one, whenever a pod was created.
type Result struct {
	// PodID is the pod's id.
	PodID string
	// PodName is the pod's name, lease included.
	PodName string
	// Deadline is the pod's lease: a lease.Reap after it deletes the pod
	// if Run could not.
	Deadline time.Time
	// GPUTypeID is the GPU type the pod got, and GPUCount how many; empty
	// and 0 for a CPU pod.
	GPUTypeID string
	// GPUCount is the pod's number of GPUs.
	GPUCount int
	// DataCenterID is where the pod ran.
	DataCenterID string
	// CostPerHr is the pod's price, in USD per hour (pods.Pod.Cost), as
	// the create answered it, or as the wait for the pod first read it
	// when the create's answer had none.
	CostPerHr float64
	// Ran reports that the command ran to an exit status (ExitStatus).
	Ran bool
	// ExitStatus is the command's exit status when Ran.
	ExitStatus int
	// Outputs are the Task.Outputs copied, in order.
	Outputs []File
	// Duration is how long the pod existed as Run saw it: from just
	// before the create that made it to the answer of its terminate (or
	// Run's return, when the terminate failed).
	Duration time.Duration
	// Cost is CostPerHr × Duration, in USD: an estimate from the list
	// price, which the platform bills by the second while the pod
	// exists; the account's billing records are the reference.
	Cost float64
	// Terminated reports that the pod was terminated (or found gone).
	Terminated bool
}

// TerminateError reports that Run could not terminate the pod it created:
// the pod may still be billing. Terminate it with its PodID
// (pods.Service.Delete), or let lease.Reap delete it after Deadline.
type TerminateError struct {
	// PodID is the pod's id.
	PodID string
	// PodName is its name, lease included.
	PodName string
	// Deadline is its lease's end.
	Deadline time.Time
	// Err is why the terminate failed.
	Err error
}

// Error names the pod, its lease and the cause.
func (e *TerminateError) Error() string {
	return fmt.Sprintf("podtask: pod %s (%s) may still be billing: terminate failed: %v; delete it, or lease.Reap deletes it after %s",
		e.PodID, e.PodName, e.Err, e.Deadline.UTC().Format(time.RFC3339))
}

// Unwrap returns Err.
func (e *TerminateError) Unwrap() error { return e.Err }

// Run creates the task's pod, runs its command on it and terminates it
// (see the package documentation for what is left when it cannot):
//
//  1. the candidates (Task.Candidates, or the catalog's offers for
//     Task.Query) are tried in order, as CreateWithFallback tries them,
//     the pod named with a lease that ends with the task's budget;
//  2. once the pod runs with its SSH port mapped, Run logs in with
//     Task.Key and uploads Task.Inputs;
//  3. Task.Command runs with its output streamed to Task.Stdout and
//     Task.Stderr; when the context ends first, the command is stopped
//     (podssh.Conn.Run);
//  4. after exit status 0, Task.Outputs are downloaded;
//  5. the pod is terminated, under a context of its own.
//
// Bad input is a *errs.ValidationError before anything is sent. When no
// pod was created, the Result is nil and the error is the create's (a
// *errs.PlacementError matching errs.ErrNoCapacity when no candidate
// had capacity). Once a pod was created, the Result is never nil: a
// command that exited with another status than 0 gives a Result with
// Ran and ExitStatus and a *podssh.ExitError; a context that ended gives
// an error matching its error (a *podssh.InterruptedError while the
// command ran); and a failed terminate adds a *TerminateError.
func (s *Service) Run(ctx context.Context, t Task, opts ...option.RequestOption) (res *Result, err error) {
	now := t.Clock
	if now == nil {
		now = time.Now
	}
	budget, err := t.check(ctx)
	if err != nil {
		return nil, err
	}
	deadline := now().Add(budget)
	work, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	req := t.request()
	name, err := lease.Name(req.Name+"-"+token(), deadline)
	if ve := (*errs.ValidationError)(nil); errors.As(err, &ve) && ve.Field == "base" {
		return nil, fail.Invalid("Task.Pod.Name", "%s", ve.Message)
	} else if err != nil {
		return nil, err
	}
	req.Name = name
	_, deadline, _ = lease.Parse(name)
	candidates, err := s.candidates(work, t, req, opts)
	if err != nil {
		return nil, err
	}

	created := now()
	pod, err := s.pods.CreateWithFallback(work, req, candidates, opts...)
	if err != nil {
		if errors.Is(err, errs.ErrOutcomeUnknown) || work.Err() != nil {
			err = errors.Join(err, s.sweep(ctx, name, t.terminateWait(), opts))
		}
		return nil, err
	}
	res = &Result{PodID: pod.ID, PodName: name, Deadline: deadline, CostPerHr: pod.Cost}
	if pod.GPU != nil {
		res.GPUTypeID, res.GPUCount = pod.GPU.ID, 1
		if pod.GPU.Count != nil {
			res.GPUCount = *pod.GPU.Count
		}
	}
	if pod.DataCenterID != nil {
		res.DataCenterID = *pod.DataCenterID
	}
	defer func() {
		terr := s.terminate(ctx, pod.ID, t.terminateWait(), opts)
		res.Duration = max(now().Sub(created), 0)
		res.Cost = res.CostPerHr * res.Duration.Hours()
		if terr != nil {
			err = errors.Join(err, &TerminateError{PodID: pod.ID, PodName: name, Deadline: deadline, Err: terr})
			return
		}
		res.Terminated = true
	}()
	if t.OnPod != nil {
		t.OnPod(pod)
	}
	return res, s.runOn(work, pod.ID, t, res)
}

// runOn logs in to the pod, copies the inputs, runs the command and
// copies the outputs, filling res.
func (s *Service) runOn(ctx context.Context, podID string, t Task, res *Result) error {
	hostKeys := t.HostKeys
	if hostKeys == nil {
		hostKeys = &podssh.MemoryHostKeys{}
	}
	poll := t.Poll
	poll.OnCheck = func(p *pods.Pod) {
		if res.CostPerHr == 0 { // the create's answer had no price yet
			res.CostPerHr = p.Cost
		}
		if t.Poll.OnCheck != nil {
			t.Poll.OnCheck(p)
		}
	}
	conn, err := s.ssh.Dial(ctx, podID, podssh.DialOptions{Key: t.Key, HostKeys: hostKeys, Poll: poll})
	if err != nil {
		return fmt.Errorf("podtask: pod %s: %w", podID, err)
	}
	defer conn.Close()
	for _, f := range t.Inputs {
		if err := conn.Upload(ctx, f.Local, f.Remote); err != nil {
			return fmt.Errorf("podtask: pod %s: input %s: %w", podID, f.Local, err)
		}
	}
	err = conn.Run(ctx, podssh.RunParams{Command: t.Command, Stdin: t.Stdin, Stdout: t.Stdout, Stderr: t.Stderr, Grace: t.Grace})
	var exit *podssh.ExitError
	switch {
	case errors.As(err, &exit):
		res.Ran, res.ExitStatus = true, exit.ExitStatus
		return err
	case err != nil:
		return err
	}
	res.Ran = true
	for _, f := range t.Outputs {
		if err := conn.Download(ctx, f.Local, f.Remote); err != nil {
			return fmt.Errorf("podtask: pod %s: output %s: %w", podID, f.Remote, err)
		}
		res.Outputs = append(res.Outputs, f)
	}
	return nil
}

// terminate deletes the pod under a context detached from ctx (whose
// values it keeps), bounded by wait; a pod already gone is terminated.
func (s *Service) terminate(ctx context.Context, podID string, wait time.Duration, opts []option.RequestOption) error {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	err := s.pods.Delete(tctx, podID, opts...)
	if err == nil || errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	return err
}

// sweep deletes the pods named name, after a create whose outcome is
// unknown: the name is unique to the call, so any such pod is the one
// that create may have made.
func (s *Service) sweep(ctx context.Context, name string, wait time.Duration, opts []option.RequestOption) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	var failed []error
	for p, err := range s.pods.All(sctx, pods.ListPodsParams{}, opts...) {
		if err != nil {
			return fmt.Errorf("podtask: the create's outcome is unknown and the pods could not be listed: a pod named %s may be billing until lease.Reap deletes it: %w", name, err)
		}
		if p.Name != name {
			continue
		}
		if err := s.terminate(ctx, p.ID, wait, opts); err != nil {
			failed = append(failed, &TerminateError{PodID: p.ID, PodName: name, Err: err})
		}
	}
	return errors.Join(failed...)
}

// check validates the task and returns its budget.
func (t Task) check(ctx context.Context) (time.Duration, error) {
	switch {
	case t.Timeout < 0:
		return 0, fail.Invalid("Task.Timeout", "must not be negative, got %s", t.Timeout)
	case strings.TrimSpace(t.Command) == "":
		return 0, fail.Invalid("Task.Command", "is empty")
	case t.Key.IsZero():
		return 0, fail.Invalid("Task.Key", "no key: use podssh.LoadKey, ParseKey or NewKey")
	case t.TerminateWait < 0:
		return 0, fail.Invalid("Task.TerminateWait", "must not be negative, got %s", t.TerminateWait)
	case strings.Contains(t.Pod.Name, lease.Marker):
		return 0, fail.Invalid("Task.Pod.Name", "carries a lease already: Run adds one that ends with the task's budget")
	}
	for i, f := range t.Inputs {
		if err := f.check(fmt.Sprintf("Task.Inputs[%d]", i)); err != nil {
			return 0, err
		}
	}
	for i, f := range t.Outputs {
		if err := f.check(fmt.Sprintf("Task.Outputs[%d]", i)); err != nil {
			return 0, err
		}
	}
	probe := t.request()
	if probe.GPU != nil && probe.GPU.ID == "" {
		g := *probe.GPU
		g.ID = "probe"
		probe.GPU = &g
	}
	if err := probe.Validate(); err != nil {
		return 0, err
	}
	if len(t.Candidates) == 0 && t.Pod.GPU != nil && t.Pod.GPU.ID == "" {
		q := t.query()
		if err := q.Validate(); err != nil {
			return 0, err
		}
	}
	budget := t.Timeout
	if d, ok := ctx.Deadline(); ok {
		if left := time.Until(d); budget == 0 || left < budget {
			budget = left
		}
	} else if budget == 0 {
		return 0, fail.Invalid("Task.Timeout", "is required when the context has no deadline: the pod's lease ends with the task's budget")
	}
	if err := ctx.Err(); err != nil || budget <= 0 {
		return 0, fmt.Errorf("podtask: no time left for the task, nothing was created: %w", cmp.Or(err, context.DeadlineExceeded))
	}
	return budget, nil
}

// check validates a copy, naming it field.
func (f File) check(field string) error {
	switch {
	case f.Local == "":
		return fail.Invalid(field+".Local", "is empty")
	case f.Remote == "":
		return fail.Invalid(field+".Remote", "is empty")
	}
	return nil
}

// request returns the pod's create request before its lease: its base
// name, SSHPort exposed and StartSSH on.
func (t Task) request() pods.CreatePodRequest {
	req := t.Pod
	req.Name = cmp.Or(strings.TrimSpace(req.Name), DefaultName)
	req.Ports = slices.Clone(req.Ports)
	if !slices.Contains(req.Ports, SSHPort) {
		req.Ports = append(req.Ports, SSHPort)
	}
	if req.StartSSH == nil {
		on := true
		req.StartSSH = &on
	}
	return req
}

// query returns Query with what Pod says of the GPUs filled in.
func (t Task) query() catalog.GPUQuery {
	q := t.Query
	g := t.Pod.GPU
	if q.Count == 0 && g != nil && g.Count != nil {
		q.Count = *g.Count
	}
	if q.Cloud == "" && t.Pod.Cloud != nil && *t.Pod.Cloud == pods.CloudCommunity {
		q.Cloud = catalog.GPUCloudFilterCommunity
	}
	if q.MinCUDAVersion == "" && g != nil && g.MinCUDAVersion != nil {
		q.MinCUDAVersion = *g.MinCUDAVersion
	}
	if len(q.DataCenters) == 0 {
		q.DataCenters = t.Pod.DataCenterIDs
	}
	return q
}

// candidates returns the places to try: Task.Candidates, the catalog's
// offers for the query, or the request as it is.
func (s *Service) candidates(ctx context.Context, t Task, req pods.CreatePodRequest, opts []option.RequestOption) ([]pods.Candidate, error) {
	switch {
	case len(t.Candidates) > 0:
		return t.Candidates, nil
	case req.GPU == nil || req.GPU.ID != "":
		return []pods.Candidate{{}}, nil
	}
	offers, err := s.catalog.FindGPUs(ctx, t.query(), opts...)
	if err != nil {
		return nil, fmt.Errorf("podtask: finding a GPU type, nothing was created: %w", err)
	}
	c := pods.CandidatesFrom(offers)
	if len(c) == 0 {
		return nil, fmt.Errorf("podtask: no GPU type in stock fits Task.Query: %w", errs.ErrNoCapacity)
	}
	return c, nil
}

// terminateWait is TerminateWait, or its default.
func (t Task) terminateWait() time.Duration { return cmp.Or(t.TerminateWait, DefaultTerminateWait) }

// token returns 8 random hex digits, which make a task's pod name unique.
func token() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
