// Command quickstart walks through the SDK, one step per surface of the
// platform. With RUNPOD_API_KEY set it uses your account (read-only
// calls); without it, it runs against the built-in fake platform.
//
//	go run ./examples/quickstart
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demossh"
	"github.com/runpodkit/runpod-go/lease"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/pods/podtask"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/sandboxes"
	"github.com/runpodkit/runpod-go/secret"
	"github.com/runpodkit/runpod-go/secrets"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
	"github.com/runpodkit/runpod-go/templates"
	"github.com/runpodkit/runpod-go/video"
	"github.com/runpodkit/runpod-go/volumes"
	"github.com/runpodkit/runpod-go/volumes/files"
)

func main() { demo.Main(run) }

// run walks through the SDK; it takes no flags.
func run(ctx context.Context, args []string, w io.Writer) error {
	if err := demo.Parse(flag.NewFlagSet("quickstart", flag.ContinueOnError), args, w); err != nil {
		return err
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-quickstart"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	// Step 1: a typed REST v2 call through the shared transport, with the
	// response's metadata (status, request id, rate limits).
	var info option.ResponseInfo
	running, err := rp.Pods.List(ctx, pods.ListPodsParams{}, option.WithResponseInto(&info))
	if err != nil {
		return fmt.Errorf("step 1 (pods): %w", err)
	}
	fmt.Fprintf(w, "1. pods: %d (HTTP %d, request %s)\n", len(running), info.StatusCode, info.RequestID)
	fmt.Fprintf(w, "   rate limits: %s\n", rp.RateLimit())

	// Step 2: billing. Serverless spend of the last 7 days, per endpoint.
	rep, err := rp.Billing.Serverless(ctx, billing.Params{LastN: 7, Bucket: billing.BillingBucketSizeDay})
	if err != nil {
		return fmt.Errorf("step 2 (billing): %w", err)
	}
	window := rep.Window()
	fmt.Fprintf(w, "2. billing: %s serverless spend from %s to %s over %d endpoint(s)\n",
		rep.Metadata.Totals.TotalAmount, window.StartTime.Format(time.DateOnly), window.EndTime.Format(time.DateOnly), rep.Metadata.UniqueServerlessCount)
	for _, g := range billing.ByResource(rep.Records) {
		fmt.Fprintf(w, "   %-20s %s\n", g.Resource, g.Total)
	}

	// Step 3: serverless endpoints (REST v2). Offline, Apply makes an
	// endpoint match a spec (it creates one here: workers.min 0 bills
	// nothing); on your account the quickstart only lists them.
	eps := rp.Serverless.Endpoints
	if s.Fake != nil {
		res, err := eps.Apply(ctx, serverless.CreateEndpointRequest{
			Name: "quickstart", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr(demo.DemoTemplate),
			GPU:     &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAda24}},
			Scaling: serverless.ScaleByQueueDelay(4), Workers: &serverless.EndpointWorkers{Min: runpod.Ptr(0), Max: runpod.Ptr(1)},
		})
		if err != nil {
			return fmt.Errorf("step 3 (apply): %w", err)
		}
		fmt.Fprintf(w, "3. serverless: applied %q (created %s: %v)\n", res.Endpoint.Name, res.Endpoint.ID, res.Created)
	} else {
		fmt.Fprintln(w, "3. serverless:")
	}
	list, err := eps.List(ctx)
	if err != nil {
		return fmt.Errorf("step 3 (endpoints): %w", err)
	}
	fmt.Fprintf(w, "   %d endpoint(s)\n", len(list))
	for _, ep := range list {
		gpus := []serverless.GPUPool{}
		if ep.GPU != nil {
			gpus = ep.GPU.Pools
		}
		fmt.Fprintf(w, "   %-20s %-12s gpus=%v workers min %d, max %d\n",
			ep.ID, ep.Name, gpus, value(ep.Workers.Min), value(ep.Workers.Max))
	}
	// An endpoint's workers and the last line of a worker's log (REST v2).
	if len(list) > 0 {
		id := list[0].ID
		for _, ep := range list { // an endpoint with workers, if one has them
			if value(ep.Workers.Min) > 0 {
				id = ep.ID
				break
			}
		}
		workers, err := eps.Workers(ctx, id)
		if err != nil {
			return fmt.Errorf("step 3 (workers): %w", err)
		}
		fmt.Fprintf(w, "   %s: %d worker(s), %d idle, %d running\n", id, workers.Summary.Total, workers.Summary.Idle, workers.Summary.Running)
		if len(workers.Workers) > 0 {
			wk := workers.Workers[0].ID
			follow, stop := context.WithTimeout(ctx, time.Second) // the last line, if it comes within a second
			for line, err := range eps.WorkerLogs(follow, id, wk, serverless.GetWorkerLogsParams{Tail: runpod.Ptr(1)}) {
				if err == nil {
					fmt.Fprintf(w, "   worker %s: %q\n", wk, line.Line)
				}
				break
			}
			stop()
		}
	}

	// Step 4: jobs. Offline, run one on the demo endpoint; on your account,
	// only read the first endpoint's health (running a job costs money).
	switch {
	case s.Fake != nil:
		job, err := rp.Serverless.Queue(demo.DemoQueueEndpoint).RunSync(ctx, serverless.RunParams{Input: map[string]string{"prompt": "hello"}}, serverless.WaitOptions{})
		if err != nil {
			return fmt.Errorf("step 4 (jobs): %w", err)
		}
		fmt.Fprintf(w, "4. jobs: %s %s in %s, output %s\n", job.ID, job.Status, job.ExecutionTime.Round(time.Millisecond), job.Output)
	case len(list) > 0:
		h, err := rp.Serverless.Queue(list[0].ID).Health(ctx)
		if err != nil {
			return fmt.Errorf("step 4 (jobs): %w", err)
		}
		fmt.Fprintf(w, "4. jobs: %s has %d queued, %d running, %d completed\n", list[0].ID, h.Jobs.InQueue, h.Jobs.InProgress, h.Jobs.Completed)
	}

	// Step 5: video. The price is known before the call; offline, generate
	// and download one (on your account that would cost the estimate).
	clip := &video.Wan25Input{Prompt: "a paper boat drifting down a stream", Image: "https://example.com/boat.jpg", Duration: 5}
	estimate, err := video.EstimateCost(video.ModelWan25, clip)
	if err != nil {
		return fmt.Errorf("step 5 (video): %w", err)
	}
	fmt.Fprintf(w, "5. video: a 5 s 720p %s clip costs $%.2f", video.ModelWan25, estimate)
	if s.Fake != nil {
		res, err := rp.Video.Generate(ctx, clip, video.WaitOptions{Poll: option.Poll[video.Progress]{Interval: 250 * time.Millisecond}})
		if err != nil {
			return fmt.Errorf("step 5 (video): %w", err)
		}
		var mp4 bytes.Buffer
		if err := rp.Video.Download(ctx, res.VideoURL, &mp4, nil); err != nil {
			return fmt.Errorf("step 5 (video): %w", err)
		}
		fmt.Fprintf(w, "; generated %s, charged $%.2f, downloaded %d KiB", res.ID, res.Cost, mp4.Len()>>10)
	}
	fmt.Fprintln(w)

	// Step 6: pods, with the addresses of their exposed ports.
	podList, err := rp.Pods.List(ctx, pods.ListPodsParams{})
	if err != nil {
		return fmt.Errorf("step 6 (pods): %w", err)
	}
	fmt.Fprintf(w, "6. pods: %d\n", len(podList))
	for _, p := range podList {
		fmt.Fprintf(w, "   %s %-14s %s $%.2f/h\n", p.ID, p.Name, p.Status, p.Cost)
		if u, err := rp.Pods.ProxyURL(p.ID, 8888); err == nil && slices.Contains(p.Ports, "8888/http") {
			fmt.Fprintf(w, "     8888/http -> %s\n", u)
		}
		if addr, err := p.TCPAddress(22); err == nil {
			fmt.Fprintf(w, "     22/tcp    -> %s\n", addr)
		}
	}

	// Step 7: the OpenAI-compatible route. The model list is free; offline,
	// also ask the fake Qwen3 something.
	qwen := rp.OpenAI.Route(openai.PublicQwen3)
	models, err := qwen.Models(ctx)
	if err != nil {
		return fmt.Errorf("step 7 (openai): %w", err)
	}
	fmt.Fprintf(w, "7. openai: %s serves %s at %s\n", openai.PublicQwen3, models[0].ID, qwen.BaseURL())
	if s.Fake != nil {
		res, err := qwen.ChatCompletion(ctx, openai.ChatCompletionParams{Model: openai.Qwen3Model, Messages: []openai.Message{openai.UserMessage("hi")}})
		if err != nil {
			return fmt.Errorf("step 7 (openai): %w", err)
		}
		fmt.Fprintf(w, "   reply: %q\n", res.Choices[0].Message.Content.String())
	}

	// Step 8: a handler of your own, run by the worker runtime in local test
	// mode (what `go run ./examples/worker` does with test_input.json).
	var logs bytes.Buffer
	handler := func(_ context.Context, job *worker.Job) (any, error) {
		var in struct{ Name string }
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return map[string]string{"greeting": "hello, " + in.Name}, nil
	}
	err = worker.Run(ctx, handler, worker.WithArgs([]string{"--test_input", `{"input":{"name":"gopher"}}`}),
		worker.WithOutput(&logs), worker.WithEnv(func(string) string { return "" }))
	if err != nil {
		return fmt.Errorf("step 8 (worker): %w", err)
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if _, result, ok := strings.Cut(line, "Job result: "); ok {
			fmt.Fprintf(w, "8. worker: local test run of a handler: %s\n", result)
		}
	}

	// Step 9: the account's SSH keys, through the typed account API.
	keys, err := rp.Account.SSHKeys(ctx)
	if err != nil {
		return fmt.Errorf("step 9 (account): %w", err)
	}
	fmt.Fprintf(w, "9. account: %d SSH key(s)\n", len(keys))

	// Step 10: templates, what pods and endpoints start from. Printed, a
	// template shows the names of its environment, never the values.
	tmpls, err := rp.Templates.List(ctx)
	if err != nil {
		return fmt.Errorf("step 10 (templates): %w", err)
	}
	fmt.Fprintf(w, "10. templates: %d\n", len(tmpls))
	for _, t := range tmpls {
		kind := "pod"
		if t.Serverless {
			kind = "serverless"
		}
		fmt.Fprintf(w, "   %-16s %-18s %-10s env: %s\n", t.ID, t.Name, kind, strings.Join(t.Env.Names(), ", "))
	}

	// Step 11: network volumes, storage that outlives the pods that mount it.
	vols, err := rp.Volumes.List(ctx)
	if err != nil {
		return fmt.Errorf("step 11 (volumes): %w", err)
	}
	fmt.Fprintf(w, "11. network volumes: %d\n", len(vols))
	for _, v := range vols {
		fmt.Fprintf(w, "   %s %-14s %4d GB %s %s\n", v.ID, v.Name, v.Size, v.DataCenter, v.Type)
	}

	// Step 12: private-registry credentials (write-only: only ids and
	// names come back) and ECR delegations.
	regs, err := rp.Registries.List(ctx)
	if err != nil {
		return fmt.Errorf("step 12 (registries): %w", err)
	}
	dels, err := rp.Registries.ListDelegations(ctx)
	if err != nil {
		return fmt.Errorf("step 12 (registries): %w", err)
	}
	fmt.Fprintf(w, "12. registries: %d credential(s), %d ECR delegation(s)\n", len(regs), len(dels))

	// Step 13: the catalog: GPU types with 48 GB or more in stock in one
	// data center, cheapest first.
	offers, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 48, DataCenters: []string{"EU-RO-1"}})
	if err != nil {
		return fmt.Errorf("step 13 (catalog): %w", err)
	}
	fmt.Fprintf(w, "13. catalog: %d GPU type(s) with 48 GB or more in stock in EU-RO-1, cheapest first\n", len(offers))
	for _, o := range offers[:min(2, len(offers))] {
		fmt.Fprintf(w, "   %-12s %3d GB  $%.2f/h per GPU\n", o.GPU.Name, o.GPU.Memory, o.Price)
	}

	// Step 14: instant clusters, with how many of their pods run.
	clusterList, err := rp.Clusters.List(ctx)
	if err != nil {
		return fmt.Errorf("step 14 (clusters): %w", err)
	}
	fmt.Fprintf(w, "14. clusters: %d\n", len(clusterList))
	for _, c := range clusterList {
		fmt.Fprintf(w, "   %s %-14s %s, %d pods x %d %s, %d running\n", c.ID, c.Name, c.Type,
			c.Compute.PodCount, c.Compute.GPUCountPerPod, c.Compute.GPUTypeID, c.Pods.ByStatus[pods.PodStatusRunning])
	}

	// Step 15: the files on a network volume, read without a pod through
	// the platform's S3 API (it takes an S3 API key, not the API key).
	if err := volumeFiles(ctx, w, rp, vols); err != nil {
		return err
	}

	// Step 16: batch jobs. Offline, run a batch of three prompts on the
	// demo endpoint; on your account, only list the first endpoint's
	// batches (a batch's requests are billed jobs).
	if err := batches(ctx, w, rp, s.Fake != nil, list); err != nil {
		return err
	}

	// Step 17: pods in practice. Where a 24 GB pod could go now, in the
	// order a fallback create would try; what is past its lease (a dry
	// run: nothing is deleted).
	offers, err = rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 24})
	if err != nil {
		return fmt.Errorf("step 17 (placement): %w", err)
	}
	candidates := pods.CandidatesFrom(offers)
	fmt.Fprintf(w, "17. placement: %d candidate(s) for a 24 GB pod", len(candidates))
	if len(candidates) > 0 {
		fmt.Fprintf(w, ", first %s in %s", candidates[0].GPUTypeID, candidates[0].DataCenterIDs[0])
	}
	fmt.Fprintln(w)
	report, err := lease.Reap(ctx, rp, lease.ReapOptions{DryRun: true})
	if err != nil {
		return fmt.Errorf("step 17 (leases): %w", err)
	}
	fmt.Fprintf(w, "    leases: %d leased resource(s), %d past their deadline (dry run, nothing deleted)\n", len(report.Found), len(report.WouldDelete))

	// Step 18: a command on a fresh GPU pod (pods/podtask): placed on the
	// cheapest type in stock with fallback, leased until its budget ends,
	// run over SSH, terminated. Offline only: on your account it would
	// create a billed pod (examples/task does, with -confirm).
	if err := task(ctx, w, rp, s.Fake != nil); err != nil {
		return err
	}

	// Step 19: a sandbox for untrusted code. Offline, create one, run a
	// command and terminate it; on your account, only list the live ones
	// (a sandbox is billed per second).
	if err := sandbox(ctx, w, rp, s.Fake != nil); err != nil {
		return err
	}

	// Step 20: a secret kept out of a template: stored once, referred to
	// by name from the environment, resolved when a pod boots. Offline
	// only: on your account it would store a secret.
	return secretStep(ctx, w, rp, s.Fake)
}

// secretStep stores a secret on the fake, refers to it from a template's
// environment and shows the value a pod made from it booted with (step 20).
func secretStep(ctx context.Context, w io.Writer, rp *runpod.Client, fake *runpodtest.Server) error {
	if fake == nil {
		fmt.Fprintln(w, "20. secrets: skipped (it stores a secret: see package secrets)")
		return nil
	}
	sec, err := rp.Secrets.Create(ctx, secrets.CreateSecretRequest{Name: "hf-token", Value: secret.NewString("hf_quickstart")})
	if err != nil {
		return fmt.Errorf("step 20 (secret): %w", err)
	}
	defer func() { _ = rp.Secrets.Delete(context.WithoutCancel(ctx), sec.ID) }()
	tmpl, err := rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "quickstart-secret", Image: "python:3.12-slim",
		Env: map[string]string{"HF_TOKEN": secrets.Ref(sec.Name)}}) // the value never sits in the template
	if err != nil {
		return fmt.Errorf("step 20 (template): %w", err)
	}
	defer func() { _ = rp.Templates.Delete(context.WithoutCancel(ctx), tmpl.ID) }()
	pod, err := rp.Pods.Create(ctx, pods.CreatePodRequest{Name: "quickstart-secret", TemplateID: &tmpl.ID, Ports: []string{"22/tcp"},
		CPU: &pods.CreateCPUConfig{ID: "cpu3c", VcpuCount: 2}})
	if err != nil {
		return fmt.Errorf("step 20 (pod): %w", err)
	}
	defer func() { _ = rp.Pods.Delete(context.WithoutCancel(ctx), pod.ID) }()
	if _, err := rp.Pods.WaitForTCP(ctx, pod.ID, 22, option.Poll[*pods.Pod]{}); err != nil { // booted
		return fmt.Errorf("step 20 (pod): %w", err)
	}
	env, _ := fake.PodEnv(pod.ID) // the fake shows what the pod's container got
	fmt.Fprintf(w, "20. secret %q: the template holds %q; the pod booted with HF_TOKEN of %d characters\n",
		sec.Name, secrets.Ref(sec.Name), len(env["HF_TOKEN"]))
	return nil
}

// sandbox creates a sandbox on the fake, runs a command in it and
// terminates it; on your account it lists the live ones (step 19).
func sandbox(ctx context.Context, w io.Writer, rp *runpod.Client, offline bool) error {
	if !offline {
		live, err := rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{})
		if err != nil {
			return fmt.Errorf("step 19 (sandboxes): %w", err)
		}
		fmt.Fprintf(w, "19. sandboxes: %d live (go run ./examples/sandbox -confirm creates one)\n", len(live))
		return nil
	}
	sb, err := rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim")})
	if err != nil {
		return fmt.Errorf("step 19 (sandbox): %w", err)
	}
	defer func() { _ = rp.Sandboxes.Terminate(context.WithoutCancel(ctx), sb.ID) }() // billing stops
	if _, err := rp.Sandboxes.Wait(ctx, sb.ID, option.Poll[*sandboxes.Sandbox]{}); err != nil {
		return fmt.Errorf("step 19 (sandbox): %w", err)
	}
	res, err := rp.Sandboxes.Exec(ctx, sb.ID, []string{"echo", "hello from a sandbox"})
	if err != nil {
		return fmt.Errorf("step 19 (sandbox): %w", err)
	}
	fmt.Fprintf(w, "19. sandbox %s: %s", sb.ID, res.Output)
	return nil
}

// task runs a command on a fresh pod of the fake (step 18).
func task(ctx context.Context, w io.Writer, rp *runpod.Client, offline bool) error {
	if !offline {
		fmt.Fprintln(w, "18. task: skipped (it creates a billed pod: go run ./examples/task -confirm)")
		return nil
	}
	// The fake account's SSH key; in a program, podssh.LoadKey of one of
	// your account's keys.
	key, err := demossh.Key(ctx, rp, true, "")
	if err != nil {
		return fmt.Errorf("step 18 (task): %w", err)
	}
	var out bytes.Buffer
	res, err := podtask.NewFromConfig(rp.Config()).Run(ctx, podtask.Task{
		Pod:     pods.CreatePodRequest{Name: "quickstart", Image: runpod.Ptr("runpod/base:0.6.2"), GPU: &pods.CreateGPUConfig{}},
		Query:   catalog.GPUQuery{MinMemoryGB: 24},
		Timeout: 10 * time.Minute, // the budget; the pod's lease ends with it
		Key:     key,
		Command: "echo hello from a fresh GPU",
		Stdout:  &out,
	})
	if err != nil {
		return fmt.Errorf("step 18 (task): %w", err)
	}
	fmt.Fprintf(w, "18. task: %q on %s, exit status %d, pod terminated: %v, about $%.4f\n",
		strings.TrimSpace(out.String()), res.GPUTypeID, res.ExitStatus, res.Terminated, res.Cost)
	return nil
}

// batches runs or lists batch jobs (step 16).
func batches(ctx context.Context, w io.Writer, rp *runpod.Client, offline bool, list []serverless.Endpoint) error {
	if !offline {
		if len(list) == 0 {
			fmt.Fprintln(w, "16. batches: no endpoint")
			return nil
		}
		bs, err := rp.Serverless.Queue(list[0].ID).Batches().List(ctx)
		if err != nil {
			return fmt.Errorf("step 16 (batches): %w", err)
		}
		fmt.Fprintf(w, "16. batches: %s has %d batch(es)\n", list[0].ID, len(bs))
		return nil
	}
	b := rp.Serverless.Queue(demo.DemoQueueEndpoint).Batches()
	batch, err := b.Create(ctx, serverless.BatchParams{Name: "quickstart", Inputs: []any{
		map[string]string{"prompt": "one"}, map[string]string{"prompt": "two"}, map[string]string{"prompt": "three"},
	}})
	if err == nil {
		_, err = b.Finalize(ctx, batch.ID)
	}
	if err == nil {
		batch, err = b.Wait(ctx, batch.ID, option.Poll[*serverless.Batch]{})
	}
	if err != nil {
		return fmt.Errorf("step 16 (batches): %w", err)
	}
	fmt.Fprintf(w, "16. batches: %s %s, %d of %d requests completed, %d failed\n", batch.ID, batch.Status, batch.RequestCompleted, batch.RequestTotal, batch.RequestFailed)
	return nil
}

// volumeFiles lists the files of the first volume in a data center with
// the S3 API (step 15).
func volumeFiles(ctx context.Context, w io.Writer, rp *runpod.Client, vols []volumes.NetworkVolume) error {
	i := slices.IndexFunc(vols, func(v volumes.NetworkVolume) bool { return files.HasS3API(v.DataCenter) })
	if i < 0 {
		fmt.Fprintln(w, "15. volume files: no volume in a data center with the S3 API")
		return nil
	}
	vol, err := files.New(rp.Config(), vols[i].ID, vols[i].DataCenter)
	if errors.Is(err, files.ErrNoS3Credentials) {
		fmt.Fprintf(w, "15. volume files: skipped (%v)\n", err)
		return nil
	} else if err != nil {
		return fmt.Errorf("step 15 (volume files): %w", err)
	}
	var lines []string
	var total int64
	for e, err := range vol.List(ctx, "") {
		if err != nil {
			return fmt.Errorf("step 15 (volume files): %w", err)
		}
		total += e.Size
		if len(lines) < 3 {
			lines = append(lines, fmt.Sprintf("   %-36s %10d bytes", files.PodPath(e.Key), e.Size))
		}
	}
	fmt.Fprintf(w, "15. volume files: %s holds %d bytes (first entries, as a pod sees them)\n", vols[i].Name, total)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

func value(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
