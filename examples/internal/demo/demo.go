// Package demo connects the examples to RunPod: to the real platform when
// RUNPOD_API_KEY is set, and otherwise to an in-process fake
// (runpodtest) filled with demo data, so every example runs offline.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
	"github.com/runpodkit/runpod-go/volumes"
)

// Session is a connected client and, offline, the fake behind it.
type Session struct {
	Client *runpod.Client
	// Fake is the fake platform, or nil when talking to the real one.
	Fake *runpodtest.Server
	// release lets the fake go when the session closes.
	release func()
}

// OutOfStock makes gpuTypeID out of stock in every data center of the
// fake, so that an example shows its fallback to the next type; on the
// real platform it does nothing.
func (s *Session) OutOfStock(ctx context.Context, gpuTypeID string) error {
	if s.Fake == nil {
		return nil
	}
	dcs, err := s.Client.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{})
	if err != nil {
		return err
	}
	for _, dc := range dcs {
		s.Fake.SetGPUStock(gpuTypeID, dc.ID, catalog.AvailabilityLevelNone)
	}
	return nil
}

// Close releases the client's connections and the fake.
func (s *Session) Close() {
	s.Client.CloseIdleConnections()
	if s.release != nil {
		s.release()
	}
}

// Connect returns a session on the real platform when RUNPOD_API_KEY is
// set, and on a seeded fake otherwise; it says which on w.
func Connect(w io.Writer, opts ...option.RequestOption) (*Session, error) {
	if Online() {
		rp, err := runpod.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(w, "Using your RunPod account (RUNPOD_API_KEY is set).")
		return &Session{Client: rp}, nil
	}
	srv, release := StartFake()
	rp, err := srv.NewClient(opts...)
	if err != nil {
		release()
		return nil, err
	}
	fmt.Fprintln(w, "RUNPOD_API_KEY is not set: running against the built-in fake platform (runpodtest).")
	return &Session{Client: rp, Fake: srv, release: release}, nil
}

// StartFake returns the fake platform Connect uses when RUNPOD_API_KEY is
// not set, and the function that releases it when the session closes. By
// default it starts a NewFake, which the session closes. Tests replace it
// to keep a handle on the fake: to inject faults, to count its requests,
// to run an example twice against it.
var StartFake = func() (*runpodtest.Server, func()) {
	srv := NewFake()
	return srv, srv.Close
}

// NewFake starts a fake platform seeded with the demo account, with
// short worker drains, a video generation that takes 1.5 s, long
// enough to show progress, and sandboxes that run after 1 s and take
// commands 2 s later (the platform: seconds, then 10 to 30 s). Its
// GraphQL API is retired (410), as the platform's will be in early 2027:
// the examples manage endpoints over REST v2. Its pods serve SSH
// (fakessh) and its volumes the S3 API (fakes3), for the pods and volumes
// examples. opts are applied after those.
func NewFake(opts ...runpodtest.Option) *runpodtest.Server {
	opts = append([]runpodtest.Option{runpodtest.WithWorkerDrain(300 * time.Millisecond), runpodtest.WithVideoDelay(1500 * time.Millisecond),
		runpodtest.WithSandboxTiming(time.Second, 2*time.Second),
		fakessh.Serve(), fakes3.Serve(), contract.Check()}, opts...)
	srv := runpodtest.NewServer(opts...)
	Seed(srv)
	return srv
}

// Seed fills a fake with the demo account's data.
func Seed(srv *runpodtest.Server) {
	srv.SetSSHKeys(
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com",
	)
	seedBilling(srv, srv.Now())
	srv.AddTemplate(DemoTemplate)
	srv.AddEndpoint(runpodtest.Endpoint{
		ID: "llm-chat-7q2k", Name: "llm-chat", TemplateID: DemoTemplate,
		GPUs:      []serverless.GPUPool{serverless.GPUPoolAda48Pro, serverless.GPUPoolAmpere48},
		FlashBoot: serverless.FlashBootOn, WorkersMin: 1,
	})
	// The demo account's other endpoints, whose spend the billing ledger
	// holds: scaled to zero.
	for _, id := range DemoEndpoints[1:] {
		srv.AddEndpoint(runpodtest.Endpoint{ID: id, Name: id[:strings.LastIndex(id, "-")], TemplateID: DemoTemplate,
			GPUs: []serverless.GPUPool{serverless.GPUPoolAmpere24}})
	}
	seedWorkerLogs(srv)
	srv.SetDiscount(&runpodtest.Discount{Factor: 0.9, Type: "SERVERLESS", ExpirationDate: "2027-06-30"})
	srv.HandleQueue(DemoQueueEndpoint, demoWorker, runpodtest.WithWorkers(2))
	srv.AddPod(runpodtest.Pod{
		Name: "training-box", Image: "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04",
		GPU: "NVIDIA A100 80GB PCIe", GPUCount: 2, Ports: []string{"8888/http", "22/tcp"}, Status: pods.PodStatusRunning,
	})
	seedVolumes(srv)
	seedClusters(srv)
	// The public Qwen3 endpoint, streaming at a readable pace.
	srv.HandleOpenAI("qwen3-32b-awq", runpodtest.OpenAIOptions{Model: "Qwen/Qwen3-32B-AWQ", Reasoning: true, ChunkDelay: 25 * time.Millisecond})
	seedRegistries(srv)
	seedCatalog(srv)
	seedTemplates(srv)
}

// seedRegistries gives the demo account two registry credentials and an
// ECR delegation.
func seedRegistries(srv *runpodtest.Server) {
	srv.AddRegistry("dockerhub-private")
	srv.AddRegistry("ghcr-team")
	srv.AddDelegation(runpodtest.Delegation{Name: "inference-images", Resource: "arn:aws:ecr:us-east-2:123456789012:repository/team/inference"})
}

// seedVolumes gives the demo account two network volumes.
func seedVolumes(srv *runpodtest.Server) {
	srv.AddNetworkVolume(runpodtest.NetworkVolume{
		ID: "k7m2q9x4vd", Name: "training-data", Size: 500, DataCenter: "US-KS-2", Type: volumes.VolumeTypeHighPerformance,
	})
	srv.AddNetworkVolume(runpodtest.NetworkVolume{ID: "p3n8w5c1ra", Name: "model-cache", Size: 100, DataCenter: "EU-RO-1"})
	// What a pod left on the training data, for the S3 API to show.
	for path, body := range map[string]string{
		"datasets/chat/train.jsonl": strings.Repeat(`{"prompt":"hi","reply":"hello"}`+"\n", 400),
		"datasets/chat/eval.jsonl":  strings.Repeat(`{"prompt":"bye","reply":"goodbye"}`+"\n", 100),
		"checkpoints/README.txt":    "Checkpoints of the chat fine-tune go here.\n",
	} {
		if err := srv.WriteVolumeFile("k7m2q9x4vd", path, strings.NewReader(body)); err != nil {
			panic("demo: seeding the training data: " + err.Error())
		}
	}
}

// DemoCluster is the demo account's instant cluster: a running Slurm
// cluster of two pods with eight GPUs each.
const DemoCluster = "slurm-demo-3f8k"

// seedClusters adds the demo account's cluster and its pods. Cluster pods
// are listed by the pod routes only with includeClusterPods=true, so the
// examples that list pods see the same pods as before.
func seedClusters(srv *runpodtest.Server) {
	srv.AddCluster(runpodtest.Cluster{
		ID: DemoCluster, Name: "slurm-demo", Type: clusters.ClusterTypeSlurm,
		GPU: "NVIDIA H100 80GB HBM3", GPUsPerPod: 8, PodCount: 2,
		Image: "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", Ports: []string{"22/tcp"},
		DataCenterID: "US-TX-3",
	})
}

// seedCatalog shares the demo account's worker template in the catalog's
// community templates; the GPU types, data centers and official templates
// are the fake's default catalog.
func seedCatalog(srv *runpodtest.Server) {
	srv.AddPublicTemplate(runpodtest.PublicTemplate{
		ID: DemoTemplate, Name: "runpod-go demo worker", Source: catalog.ListPublicTemplatesParamsSourceCommunity,
		Serverless: true, Category: catalog.TemplateCategoryCPU, Image: "runpodkit/demo-worker:1.0", Disk: 10,
	})
}

// seedTemplates gives the demo account's serverless template (which
// llm-chat-7q2k runs) its settings, and adds a pod template.
func seedTemplates(srv *runpodtest.Server) {
	srv.StoreTemplate(runpodtest.Template{
		ID: DemoTemplate, Name: "llm-chat-worker", Image: "runpod/worker-v1-vllm:stable-cuda12.1.0", Disk: 20, Serverless: true,
		Env: map[string]string{"MODEL_NAME": "Qwen/Qwen3-8B", "HF_TOKEN": "hf_demoDEMOdemoDEMOdemoDEMOdemo"},
	})
	srv.StoreTemplate(runpodtest.Template{
		ID: "pytorch-nb-3k8d", Name: "pytorch-notebook", Image: "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04",
		Disk: 50, Ports: []string{"8888/http", "22/tcp"}, PersistentSize: 20, PersistentPath: "/workspace",
		Env: map[string]string{"JUPYTER_PASSWORD": "demo-jupyter-pw"}, StartSSH: true, StartJupyter: true,
	})
}

// seedWorkerLogs gives the workers of DemoQueueEndpoint a log of their
// start (Endpoints.WorkerLogs reads it).
func seedWorkerLogs(srv *runpodtest.Server) {
	for _, id := range srv.WorkerIDs(DemoQueueEndpoint) {
		for _, line := range []string{"starting the handler", "worker ready, waiting for jobs"} {
			srv.AppendWorkerLog(DemoQueueEndpoint, id, serverless.LogSourceContainer, line)
		}
	}
}

// DemoQueueEndpoint is the demo account's queue-based endpoint: it echoes
// a prompt back word by word, streaming each word.
const DemoQueueEndpoint = "llm-chat-7q2k"

// demoWorker is the handler behind DemoQueueEndpoint.
func demoWorker(ctx context.Context, job *worker.Job) (any, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(job.Input, &in); err != nil || strings.TrimSpace(in.Prompt) == "" {
		return nil, errors.New(`input must be {"prompt": "<text>"}`)
	}
	words := strings.Fields("You said: " + in.Prompt)
	for _, w := range words {
		select {
		case <-time.After(40 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		_ = job.Stream(map[string]string{"token": w})
	}
	return map[string]any{"text": strings.Join(words, " "), "tokens": len(words)}, nil
}

// DemoTemplate is the serverless template id the demo account has.
const DemoTemplate = "demo-worker-tmpl"

// DemoEndpoints are the serverless endpoints of the demo account.
var DemoEndpoints = []string{"llm-chat-7q2k", "sdxl-images-4m9x", "whisper-asr-8p1d"}

// seedBilling records 45 days of hourly serverless spend for the demo
// endpoints, ending now: a daily rhythm, a weekly one, and a slow growth,
// computed (not random) so every run shows the same shape.
func seedBilling(srv *runpodtest.Server, now time.Time) {
	start := now.Add(-45 * 24 * time.Hour).Truncate(time.Hour)
	var usage []runpodtest.ServerlessUsage
	for at := start; at.Before(now); at = at.Add(time.Hour) {
		day := at.Sub(start).Hours() / 24
		busy := 1 + 0.6*math.Sin(2*math.Pi*float64(at.Hour())/24) + 0.3*math.Cos(2*math.Pi*day/7)
		for i, id := range DemoEndpoints {
			scale := []float64{0.42, 0.27, 0.08}[i] * (1 + day/60) * busy
			usage = append(usage, runpodtest.ServerlessUsage{
				At: at, ServerlessID: id,
				GPU: round(scale), CPU: round(scale * 0.08), Disk: round(0.004 * float64(i+1)), Fee: round(scale * 0.05),
			})
		}
	}
	srv.AddServerlessUsage(usage...)
	srv.AddPublicEndpointUsage(runpodtest.PublicEndpointUsage{At: now.Add(-2 * time.Hour), Model: "wan-2-5", Amount: 0.5})
}

// round keeps amounts to a hundredth of a cent, as a ledger would.
func round(v float64) float64 { return math.Round(v*10000) / 10000 }
