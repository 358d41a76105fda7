// Package podtask runs one command on a fresh pod and leaves nothing
// billing: it places the pod on the first GPU type with capacity, names
// it with a lease that ends with the caller's budget, waits for its SSH
// server, uploads the inputs, runs the command with its output streamed,
// downloads the outputs and terminates the pod, as runpod-python's
// @app.task runs one pod per call.
//
//	tasks := podtask.NewFromConfig(rp.Config())
//	res, err := tasks.Run(ctx, podtask.Task{
//		Pod: pods.CreatePodRequest{
//			Name:  "train",
//			Image: runpod.Ptr("runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"),
//			GPU:   &pods.CreateGPUConfig{},
//		},
//		Query:   catalog.GPUQuery{MinMemoryGB: 24, MaxPrice: 1},
//		Timeout: time.Hour,
//		Key:     key,
//		Inputs:  []podtask.File{{Local: "train.py", Remote: "/workspace/train.py"}},
//		Command: "cd /workspace && python train.py",
//		Stdout:  os.Stdout,
//		Stderr:  os.Stderr,
//		Outputs: []podtask.File{{Local: "out", Remote: "/workspace/model.pt"}},
//	})
//
// # Nothing left billing
//
// Run terminates the pod it created before it returns, whatever ended
// the task: success, a command that failed, a failed copy, a lost
// connection, the end of the context (a deadline, or Ctrl-C through
// signal.NotifyContext), or a panic in a writer it was given. The
// terminate is sent under a context of its own, detached from the one
// that may have ended and bounded by Task.TerminateWait. When the
// platform cannot be told (the network is gone, the key was revoked),
// the error is a *TerminateError that carries the pod's id and leased
// name, and so does the Result: a paid pod never loses its id.
//
// A program that is killed while Run runs (SIGKILL, a crash, a machine
// that loses power, Ctrl-C in a program that does not hand SIGINT to
// the context) cannot terminate anything. The pod's name then ends the
// last line of defence: "<name>-<random>~lease-<deadline>", where the
// deadline is the end of the task's budget (Task.Timeout or the
// context's deadline, whichever comes first) rounded up to the minute,
// in UTC (package lease). A later lease.Reap (from a cron job, or at the
// start of the program's next run) lists the account's pods, finds this
// one once the platform's clock has passed the deadline, and deletes it
// (its Report lists it under Deleted, KindPod); before the deadline Reap
// leaves it alone, since the task may still be running. So a killed
// program's pod bills at most until the deadline plus the time until the
// next Reap.
//
// A create whose outcome is unknown (the connection was cut after the
// request was sent) may have made a pod Run has no id for: Run then lists
// the account's pods and deletes the ones with the task's name, which is
// unique to the call, before it returns the error.
//
// # Why a package of its own
//
// Run needs SSH, so it cannot live in package pods, which links no SSH
// library (a program that only manages pods does not pay for one); and
// it composes catalog, lease, pods and podssh, which podssh, a package
// for SSH connections to any pod, should not import. Importing podtask
// links what podssh links (golang.org/x/crypto/ssh, github.com/pkg/sftp)
// and the client of package runpod (through lease).
package podtask
