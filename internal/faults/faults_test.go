package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/globalvolumes"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/sandboxes"
	"github.com/runpodkit/runpod-go/secret"
	"github.com/runpodkit/runpod-go/secrets"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
	"github.com/runpodkit/runpod-go/templates"
	"github.com/runpodkit/runpod-go/video"
	"github.com/runpodkit/runpod-go/volumes"
	"github.com/runpodkit/runpod-go/volumes/files"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// oddKey has characters URL escaping changes; escapedKey is its query
// spelling, which a server may echo too.
const (
	oddKey     = "rpa_odd+key/with=chars"
	escapedKey = "rpa_odd%2Bkey%2Fwith%3Dchars"
)

// op is one SDK operation: how to call it with valid arguments, and which
// of its requests the fault lands on.
type op struct {
	// name is "<package>.<Type>.<Method>", as enumerated from the SDK.
	name string
	// on selects the request that gets the fault (the operation's first
	// request of that route); arrivals count the requests it selects.
	on func(*http.Request) bool
	// idempotent says the faulted request may be repeated (the retry
	// table's left column).
	idempotent bool
	// stream says the faulted answer's body is read as it comes (SSE,
	// a download), not whole: a fault in it ends the iteration.
	stream bool
	// noBody says the faulted answer has no body (204).
	noBody bool
	// swallows says the operation turns HTTP errors into a state (Ping);
	// call then reports errNotReady.
	swallows bool
	// quietCancel says the operation ends without an error when the
	// caller cancels (following logs: cancelling is how one stops).
	quietCancel bool
	// resumes says a stream cut after it began reconnects by itself from
	// the last event received (log streams).
	resumes bool
	// noCapacity503 says a 503 answering the operation is the platform's
	// documented "no capacity, nothing created" (a sandbox create): an
	// *errs.CapacityError whose outcome is known.
	noCapacity503 bool
	call          func(ctx context.Context, rp *runpod.Client) error
}

var errNotReady = errors.New("not ready")

// matrixEndpoint is a valid endpoint to create.
var matrixEndpoint = serverless.CreateEndpointRequest{Name: "matrix", Type: serverless.EndpointTypeQueue, TemplateID: runpod.Ptr("tmpl1"),
	GPU: &serverless.CreateEndpointGPUConfig{Pools: []serverless.GPUPool{serverless.GPUPoolAmpere16}}, Scaling: serverless.ScaleByQueueDelay(4)}

func route(method, path string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Method == method && r.URL.Path == path }
}

func routeSuffix(method, suffix string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Method == method && strings.HasSuffix(r.URL.Path, suffix) }
}

// graphql selects GraphQL requests of one operation.
func graphql(opName string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		if r.URL.Path != "/graphql" || r.GetBody == nil && r.Body == nil {
			return false
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		return bytes.Contains(b, []byte(`"operationName":"`+opName+`"`))
	}
}

// drain runs an iterator to its end and returns its first error.
func drain[T any](seq iter.Seq2[T, error]) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func ignore[T any](_ T, err error) error { return err }

var jobInput = map[string]string{"prompt": "hi"}

// batchInputs are the inputs of the requests a batch is made or filled
// with: few enough for one call.
var batchInputs = []any{jobInput, map[string]string{"prompt": "bye"}}

var chat = openai.ChatCompletionParams{Model: "m", Messages: []openai.Message{openai.UserMessage("hi")}}

var ops = []op{
	{name: "runpod.Client.Do", on: route("GET", "/v2/account/ssh-keys"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Do(ctx, "GET", "/v2/account/ssh-keys", nil, &struct{}{})
		}},

	{name: "account.Service.SSHKeys", on: route("GET", "/v2/account/ssh-keys"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Account.SSHKeys(ctx)) }},
	{name: "account.Service.SetSSHKeys", on: route("PUT", "/v2/account/ssh-keys"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me@example.com"}}))
		}},

	{name: "billing.Service.Serverless", on: route("GET", "/v2/billing/serverless"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Billing.Serverless(ctx, billing.Params{}))
		}},
	{name: "billing.Service.Summary", on: route("GET", "/v2/billing"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Billing.Summary(ctx, billing.Params{}))
		}},
	{name: "billing.Service.Pods", on: route("GET", "/v2/billing/pods"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Billing.Pods(ctx, billing.Params{}))
		}},
	{name: "billing.Service.Endpoints", on: route("GET", "/v2/billing/endpoints"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Billing.Endpoints(ctx, billing.Params{}))
		}},
	{name: "billing.Service.NetworkVolumes", on: route("GET", "/v2/billing/network-volumes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Billing.NetworkVolumes(ctx, billing.Params{}))
		}},
	{name: "billing.Service.Clusters", on: route("GET", "/v2/billing/clusters"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Billing.Clusters(ctx, billing.Params{}))
		}},

	{name: "serverless.Endpoints.Create", on: route("POST", "/v2/serverless"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Create(ctx, matrixEndpoint))
		}},
	{name: "serverless.Endpoints.Apply", on: route("POST", "/v2/serverless"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			spec := matrixEndpoint
			spec.Name = "new-name" // not listed, so Apply creates it
			return ignore(rp.Serverless.Endpoints.Apply(ctx, spec))
		}},
	{name: "serverless.Endpoints.All", on: route("GET", "/v2/serverless"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Serverless.Endpoints.All(ctx)) }},
	{name: "serverless.Endpoints.List", on: route("GET", "/v2/serverless"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Serverless.Endpoints.List(ctx)) }},
	{name: "serverless.Endpoints.Get", on: route("GET", "/v2/serverless/ep1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Get(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.Update", on: route("PATCH", "/v2/serverless/ep1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Update(ctx, "ep1", serverless.UpdateEndpointRequest{Name: runpod.Ptr("renamed")}))
		}},
	{name: "serverless.Endpoints.ScaleToZero", on: route("PATCH", "/v2/serverless/ep1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.ScaleToZero(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.Delete", on: route("DELETE", "/v2/serverless/ep1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Serverless.Endpoints.Delete(ctx, "ep1") }},
	{name: "serverless.Endpoints.DeleteNow", on: route("DELETE", "/v2/serverless/ep1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Serverless.Endpoints.DeleteNow(ctx, "ep1")
		}},
	{name: "serverless.Endpoints.ScaleDownAndDelete", on: route("DELETE", "/v2/serverless/ep2"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Serverless.Endpoints.ScaleDownAndDelete(ctx, "ep2", option.Poll[int]{Interval: time.Millisecond})
		}},

	{name: "graphqlendpoints.Service.Create", on: graphql("SaveEndpoint"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(graphqlendpoints.NewFromConfig(rp.Config()).Create(ctx, graphqlendpoints.EndpointParams{Name: "matrix", TemplateID: "tmpl1", GPUs: []serverless.GPUPool{serverless.GPUPoolAmpere16}}))
		}},
	{name: "graphqlendpoints.Service.List", on: graphql("ListEndpoints"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(graphqlendpoints.NewFromConfig(rp.Config()).List(ctx))
		}},
	{name: "graphqlendpoints.Service.Get", on: graphql("ListEndpoints"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(graphqlendpoints.NewFromConfig(rp.Config()).Get(ctx, "ep1"))
		}},
	{name: "graphqlendpoints.Service.Update", on: graphql("SaveEndpoint"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(graphqlendpoints.NewFromConfig(rp.Config()).Update(ctx, "ep1", func(s *graphqlendpoints.EndpointParams) { s.Name = "renamed" }))
		}},
	{name: "graphqlendpoints.Service.ScaleToZero", on: graphql("SaveEndpoint"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(graphqlendpoints.NewFromConfig(rp.Config()).ScaleToZero(ctx, "ep1"))
		}},
	{name: "graphqlendpoints.Service.SetTemplate", on: graphql("UpdateEndpointTemplate"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return graphqlendpoints.NewFromConfig(rp.Config()).SetTemplate(ctx, "ep1", "tmpl2")
		}},
	{name: "graphqlendpoints.Service.Delete", on: graphql("DeleteEndpoint"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return graphqlendpoints.NewFromConfig(rp.Config()).Delete(ctx, "ep1")
		}},
	{name: "graphqlendpoints.Service.ScaleDownAndDelete", on: graphql("DeleteEndpoint"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return graphqlendpoints.NewFromConfig(rp.Config()).ScaleDownAndDelete(ctx, "ep1", option.Poll[int]{Interval: time.Millisecond})
		}},

	{name: "serverless.Endpoints.AllWorkers", on: route("GET", "/v2/serverless/ep1/workers"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Serverless.Endpoints.AllWorkers(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.Workers", on: route("GET", "/v2/serverless/ep1/workers"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Workers(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.AllReleases", on: route("GET", "/v2/serverless/ep1/releases"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Serverless.Endpoints.AllReleases(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.Releases", on: route("GET", "/v2/serverless/ep1/releases"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Releases(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.Builds", on: route("GET", "/v2/serverless/ep1/builds"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Builds(ctx, "ep1"))
		}},
	{name: "serverless.Endpoints.Build", on: route("GET", "/v2/serverless/ep1/builds/b1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Endpoints.Build(ctx, "ep1", "b1"))
		}},
	{name: "serverless.Endpoints.WorkerLogs", on: route("GET", "/v2/serverless/ep1/workers/wk1/logs"), idempotent: true, stream: true, quietCancel: true, resumes: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Serverless.Endpoints.WorkerLogs(ctx, "ep1", "wk1", serverless.GetWorkerLogsParams{}))
		}},

	{name: "serverless.Queue.Run", on: route("POST", "/v2/ep1/run"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Run(ctx, serverless.RunParams{Input: jobInput}))
		}},
	{name: "serverless.Queue.RunSync", on: route("POST", "/v2/ep1/runsync"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").RunSync(ctx, serverless.RunParams{Input: jobInput}, serverless.WaitOptions{}))
		}},
	{name: "serverless.Queue.Status", on: route("GET", "/v2/ep1/status/job-1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Status(ctx, "job-1"))
		}},
	{name: "serverless.Queue.Wait", on: route("GET", "/v2/ep1/status/job-1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Wait(ctx, "job-1", serverless.WaitOptions{Poll: option.Poll[*serverless.Job]{Interval: time.Millisecond}}))
		}},
	{name: "serverless.Queue.Stream", on: route("GET", "/v2/ep1/stream/job-1"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Serverless.Queue("ep1").Stream(ctx, "job-1"))
		}},
	{name: "serverless.Queue.Cancel", on: route("POST", "/v2/ep1/cancel/job-1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Cancel(ctx, "job-1"))
		}},
	{name: "serverless.Queue.Retry", on: route("POST", "/v2/ep1/retry/job-1"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Retry(ctx, "job-1"))
		}},
	{name: "serverless.Queue.Purge", on: route("POST", "/v2/ep1/purge-queue"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Purge(ctx))
		}},
	{name: "serverless.Queue.Health", on: route("GET", "/v2/ep1/health"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Health(ctx))
		}},

	// The batch API: the create, add and finalize calls change what the
	// batch holds or does and are not repeated; rename (a PUT of the
	// name), remove (a DELETE) and cancel are, as reads are.
	{name: "serverless.Batches.Create", on: route("POST", "/v2/ep1/batch"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Batches().Create(ctx, serverless.BatchParams{Name: "nightly", Inputs: batchInputs}))
		}},
	{name: "serverless.Batches.Add", on: route("POST", "/v2/ep1/batch/batch_1/requests"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Serverless.Queue("ep1").Batches().Add(ctx, "batch_1", batchInputs)
		}},
	{name: "serverless.Batches.Finalize", on: route("POST", "/v2/ep1/batch/batch_1/finalize"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Batches().Finalize(ctx, "batch_1"))
		}},
	{name: "serverless.Batches.Rename", on: route("PUT", "/v2/ep1/batch/batch_1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Serverless.Queue("ep1").Batches().Rename(ctx, "batch_1", "nightly")
		}},
	{name: "serverless.Batches.RemoveRequest", on: route("DELETE", "/v2/ep1/batch/batch_1/requests/req_1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Serverless.Queue("ep1").Batches().RemoveRequest(ctx, "batch_1", "req_1")
		}},
	{name: "serverless.Batches.List", on: route("GET", "/v2/ep1/batch"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			batches, err := rp.Serverless.Queue("ep1").Batches().List(ctx)
			if err == nil && len(batches) == 0 {
				return errors.New("no batch listed by the happy platform")
			}
			return err
		}},
	{name: "serverless.Batches.Get", on: route("GET", "/v2/ep1/batch/batch_1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Batches().Get(ctx, "batch_1"))
		}},
	{name: "serverless.Batches.Cancel", on: route("POST", "/v2/ep1/batch/batch_1/cancel"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Batches().Cancel(ctx, "batch_1"))
		}},
	{name: "serverless.Batches.Results", on: route("GET", "/v2/ep1/batch/batch_1/requests"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			n := 0
			for _, err := range rp.Serverless.Queue("ep1").Batches().Results(ctx, "batch_1", serverless.BatchResultsParams{}) {
				if err != nil {
					return err
				}
				n++
			}
			if n != 2 {
				return fmt.Errorf("read %d requests of the happy batch's 2", n)
			}
			return nil
		}},
	{name: "serverless.Batches.Wait", on: route("GET", "/v2/ep1/batch/batch_1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.Queue("ep1").Batches().Wait(ctx, "batch_1", option.Poll[*serverless.Batch]{Interval: time.Millisecond}))
		}},

	{name: "serverless.LoadBalancer.Do", on: route("POST", "/generate"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Serverless.LoadBalancer("ep-lb").Do(ctx, serverless.LBParams{Method: "POST", Path: "/generate", Body: []byte(`{}`)}))
		}},
	{name: "serverless.LoadBalancer.Ping", on: route("GET", "/ping"), idempotent: true, swallows: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			state, err := rp.Serverless.LoadBalancer("ep-lb").Ping(ctx)
			if err == nil && state != serverless.PingStateReady {
				return errNotReady
			}
			return err
		}},
	{name: "serverless.LoadBalancer.WaitReady", on: route("GET", "/ping"), idempotent: true, swallows: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Serverless.LoadBalancer("ep-lb").WaitReady(ctx, option.Poll[serverless.PingState]{Interval: time.Millisecond})
		}},

	{name: "video.Service.Generate", on: route("POST", "/v2/wan-2-5/run"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Video.Generate(ctx, &video.Wan25Input{Prompt: "a cat", Image: "https://example.com/cat.png"},
				video.WaitOptions{Poll: option.Poll[video.Progress]{Interval: time.Millisecond}}))
		}},
	{name: "video.Service.Wait", on: route("GET", "/v2/wan-2-5/status/job-1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Video.Wait(ctx, video.ModelWan25, "job-1", video.WaitOptions{Poll: option.Poll[video.Progress]{Interval: time.Millisecond}}))
		}},
	{name: "video.Service.Download", on: route("GET", "/video.mp4"), idempotent: true, stream: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return rp.Video.Download(ctx, inference(ctx)+"/video.mp4", io.Discard, nil)
		}},

	{name: "pods.Service.All", on: route("GET", "/v2/pods"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Pods.All(ctx, pods.ListPodsParams{}))
		}},
	{name: "pods.Service.List", on: route("GET", "/v2/pods"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Pods.List(ctx, pods.ListPodsParams{}))
		}},
	{name: "pods.Service.Get", on: route("GET", "/v2/pods/pod1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Pods.Get(ctx, "pod1")) }},
	{name: "pods.Service.Create", on: route("POST", "/v2/pods"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			image := "runpod/base:0.6.2"
			return ignore(rp.Pods.Create(ctx, pods.CreatePodRequest{Name: "matrix", Image: &image, GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}}))
		}},
	{name: "pods.Service.CreateWithFallback", on: route("POST", "/v2/pods"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			image := "runpod/base:0.6.2"
			return ignore(rp.Pods.CreateWithFallback(ctx, pods.CreatePodRequest{Name: "matrix", Image: &image, GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}},
				[]pods.Candidate{{GPUTypeID: "NVIDIA L4"}, {GPUTypeID: "NVIDIA L40S"}}))
		}},
	{name: "pods.Service.CreateWhenAvailable", on: route("POST", "/v2/pods"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			image := "runpod/base:0.6.2"
			return ignore(rp.Pods.CreateWhenAvailable(ctx, pods.CreatePodRequest{Name: "matrix", Image: &image, GPU: &pods.CreateGPUConfig{ID: "NVIDIA L4"}},
				option.Poll[[]catalog.DataCenterAvailability]{}))
		}},
	{name: "pods.Service.Update", on: route("PATCH", "/v2/pods/pod1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			name := "renamed"
			return ignore(rp.Pods.Update(ctx, "pod1", pods.UpdatePodRequest{Name: &name}))
		}},
	{name: "pods.Service.Delete", on: route("DELETE", "/v2/pods/pod1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Pods.Delete(ctx, "pod1") }},
	{name: "pods.Service.Terminate", on: route("POST", "/v2/pods/pod1/action"),
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Pods.Terminate(ctx, "pod1") }},
	{name: "pods.Service.Start", on: route("POST", "/v2/pods/pod1/action"),
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Pods.Start(ctx, "pod1")) }},
	{name: "pods.Service.Stop", on: route("POST", "/v2/pods/pod1/action"),
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Pods.Stop(ctx, "pod1")) }},
	{name: "pods.Service.Restart", on: route("POST", "/v2/pods/pod1/action"),
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Pods.Restart(ctx, "pod1")) }},
	{name: "pods.Service.Logs", on: route("GET", "/v2/pods/pod1/logs"), idempotent: true, stream: true, quietCancel: true, resumes: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Pods.Logs(ctx, "pod1", pods.GetPodLogsParams{}))
		}},
	{name: "pods.Service.TCPAddress", on: route("GET", "/v2/pods/pod1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Pods.TCPAddress(ctx, "pod1", 22)) }},
	{name: "pods.Service.WaitForTCP", on: route("GET", "/v2/pods/pod1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Pods.WaitForTCP(ctx, "pod1", 22, option.Poll[*pods.Pod]{Interval: time.Millisecond}))
		}},

	{name: "templates.Service.All", on: route("GET", "/v2/templates"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Templates.All(ctx)) }},
	{name: "templates.Service.List", on: route("GET", "/v2/templates"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Templates.List(ctx)) }},
	{name: "templates.Service.Get", on: route("GET", "/v2/templates/tpl1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Templates.Get(ctx, "tpl1")) }},
	{name: "templates.Service.Create", on: route("POST", "/v2/templates"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Templates.Create(ctx, templates.CreateTemplateRequest{Name: "matrix", Image: "runpod/base:0.6.2"}))
		}},
	{name: "templates.Service.Update", on: route("PATCH", "/v2/templates/tpl1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Templates.Update(ctx, "tpl1", templates.UpdateTemplateRequest{Disk: runpod.Ptr(30)}))
		}},
	{name: "templates.Service.Delete", on: route("DELETE", "/v2/templates/tpl1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Templates.Delete(ctx, "tpl1") }},

	{name: "catalog.Service.AllGPUTypes", on: route("GET", "/v2/catalog/gpus"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Catalog.AllGPUTypes(ctx, catalog.ListGPUTypesParams{}))
		}},
	{name: "catalog.Service.GPUTypes", on: route("GET", "/v2/catalog/gpus"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{}))
		}},
	{name: "catalog.Service.GPUType", on: route("GET", "/v2/catalog/gpus/NVIDIA L4"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.GPUType(ctx, "NVIDIA L4", catalog.GetGPUTypeParams{
				Include: []catalog.CatalogInclude{catalog.CatalogIncludeAvailability}, Product: []catalog.Product{catalog.ProductPod}}))
		}},
	{name: "catalog.Service.AllCPUTypes", on: route("GET", "/v2/catalog/cpus"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Catalog.AllCPUTypes(ctx, catalog.ListCPUTypesParams{}))
		}},
	{name: "catalog.Service.CPUTypes", on: route("GET", "/v2/catalog/cpus"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{}))
		}},
	{name: "catalog.Service.CPUType", on: route("GET", "/v2/catalog/cpus/cpu3c"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.CPUType(ctx, "cpu3c", catalog.GetCPUTypeParams{}))
		}},
	{name: "catalog.Service.AllDataCenters", on: route("GET", "/v2/catalog/datacenters"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Catalog.AllDataCenters(ctx, catalog.ListDataCentersParams{}))
		}},
	{name: "catalog.Service.DataCenters", on: route("GET", "/v2/catalog/datacenters"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{}))
		}},
	{name: "catalog.Service.DataCenter", on: route("GET", "/v2/catalog/datacenters/EU-RO-1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.DataCenter(ctx, "EU-RO-1", catalog.GetDataCenterParams{
				Include: []catalog.DataCenterInclude{catalog.DataCenterIncludeGPUAvailability}}))
		}},
	{name: "catalog.Service.PublicTemplates", on: route("GET", "/v2/catalog/templates"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{}))
		}},
	{name: "catalog.Service.FindGPUs", on: route("GET", "/v2/catalog/gpus"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			offers, err := rp.Catalog.FindGPUs(ctx, catalog.GPUQuery{MinMemoryGB: 24, DataCenters: []string{"EU-RO-1"}})
			if err == nil && len(offers) == 0 {
				return errors.New("no offer found in the happy catalog")
			}
			return err
		}},

	{name: "clusters.Service.All", on: route("GET", "/v2/clusters"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Clusters.All(ctx)) }},
	{name: "clusters.Service.List", on: route("GET", "/v2/clusters"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Clusters.List(ctx)) }},
	{name: "clusters.Service.Get", on: route("GET", "/v2/clusters/cl1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Clusters.Get(ctx, "cl1")) }},
	{name: "clusters.Service.Create", on: route("POST", "/v2/clusters"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Clusters.Create(ctx, clusters.CreateClusterRequest{Name: "matrix", Type: clusters.ClusterTypeTraining,
				Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 2},
				Image:   runpod.Ptr("runpod/base:0.6.2"), Ports: []string{"22/tcp"}}))
		}},
	{name: "clusters.Service.CreateWithFallback", on: route("POST", "/v2/clusters"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Clusters.CreateWithFallback(ctx, clusters.CreateClusterRequest{Name: "matrix", Type: clusters.ClusterTypeTraining,
				Compute: clusters.ClusterCompute{GPUTypeID: "NVIDIA H100 80GB HBM3", GPUCountPerPod: 8, PodCount: 2},
				Image:   runpod.Ptr("runpod/base:0.6.2"), Ports: []string{"22/tcp"}}, []pods.Candidate{{DataCenterIDs: []string{"US-TX-3"}}, {DataCenterIDs: []string{"EU-SE-1"}}}))
		}},
	{name: "clusters.Service.Update", on: route("PATCH", "/v2/clusters/cl1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Clusters.Update(ctx, "cl1", clusters.UpdateClusterRequest{Name: runpod.Ptr("renamed")}))
		}},
	{name: "clusters.Service.Delete", on: route("DELETE", "/v2/clusters/cl1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Clusters.Delete(ctx, "cl1") }},
	{name: "clusters.Service.AllPods", on: route("GET", "/v2/clusters/cl1/pods"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Clusters.AllPods(ctx, "cl1")) }},
	{name: "clusters.Service.Pods", on: route("GET", "/v2/clusters/cl1/pods"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Clusters.Pods(ctx, "cl1")) }},

	{name: "sandboxes.Service.Create", on: route("POST", "/v2/sandboxes"), noCapacity503: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Sandboxes.Create(ctx, sandboxes.CreateSandboxRequest{ImageName: runpod.Ptr("python:3.12-slim"), Env: map[string]string{"K": "v"}}))
		}},
	{name: "sandboxes.Service.FindByToken", on: route("GET", "/v2/sandboxes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			sb, err := rp.Sandboxes.FindByToken(ctx, "tok1")
			if err == nil && sb == nil {
				return errors.New("the happy platform's sandbox carries tok1")
			}
			return err
		}},
	{name: "sandboxes.Service.All", on: route("GET", "/v2/sandboxes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Sandboxes.All(ctx, sandboxes.ListSandboxesParams{Labels: []string{"team=a"}}))
		}},
	{name: "sandboxes.Service.List", on: route("GET", "/v2/sandboxes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Sandboxes.List(ctx, sandboxes.ListSandboxesParams{}))
		}},
	{name: "sandboxes.Service.Get", on: route("GET", "/v2/sandboxes/sb1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Sandboxes.Get(ctx, "sb1")) }},
	{name: "sandboxes.Service.Wait", on: route("GET", "/v2/sandboxes/sb1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Sandboxes.Wait(ctx, "sb1", option.Poll[*sandboxes.Sandbox]{Interval: time.Millisecond}))
		}},
	{name: "sandboxes.Service.Exec", on: route("POST", "/v2/sandboxes/sb1/exec"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Sandboxes.Exec(ctx, "sb1", []string{"echo", "hi"}))
		}},
	{name: "sandboxes.Service.Logs", on: route("GET", "/v2/sandboxes/sb1/logs"), idempotent: true, stream: true, quietCancel: true, resumes: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.Sandboxes.Logs(ctx, "sb1", sandboxes.GetSandboxLogsParams{}))
		}},
	{name: "sandboxes.Service.Terminate", on: route("DELETE", "/v2/sandboxes/sb1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Sandboxes.Terminate(ctx, "sb1") }},

	{name: "registries.Service.All", on: route("GET", "/v2/registries"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Registries.All(ctx)) }},
	{name: "registries.Service.List", on: route("GET", "/v2/registries"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Registries.List(ctx)) }},
	{name: "registries.Service.Get", on: route("GET", "/v2/registries/reg1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Registries.Get(ctx, "reg1")) }},
	{name: "registries.Service.Create", on: route("POST", "/v2/registries"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Registries.Create(ctx, registries.CreateRegistryRequest{Name: "matrix", Username: "me", Password: "hunter2"}))
		}},
	{name: "registries.Service.Delete", on: route("DELETE", "/v2/registries/reg1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Registries.Delete(ctx, "reg1") }},
	{name: "registries.Service.AllDelegations", on: route("GET", "/v2/registries/delegations"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Registries.AllDelegations(ctx)) }},
	{name: "registries.Service.ListDelegations", on: route("GET", "/v2/registries/delegations"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Registries.ListDelegations(ctx)) }},
	{name: "registries.Service.CreateDelegation", on: route("POST", "/v2/registries/delegations"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Registries.CreateDelegation(ctx, registries.CreateDelegationRequest{
				Resource: "arn:aws:ecr:us-east-1:123456789012:repository/matrix"}))
		}},
	{name: "registries.Service.RevokeDelegation", on: route("DELETE", "/v2/registries/delegations/del1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Registries.RevokeDelegation(ctx, "del1") }},

	{name: "secrets.Service.List", on: route("GET", "/v2/account/secrets"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Secrets.List(ctx)) }},
	{name: "secrets.Service.Find", on: route("GET", "/v2/account/secrets"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Secrets.Find(ctx, "matrix")) }},
	{name: "secrets.Service.Get", on: route("GET", "/v2/account/secrets/sec1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Secrets.Get(ctx, "sec1")) }},
	{name: "secrets.Service.Create", on: route("POST", "/v2/account/secrets"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Secrets.Create(ctx, secrets.CreateSecretRequest{Name: "matrix", Value: secret.NewString("hunter2")}))
		}},
	{name: "secrets.Service.Rotate", on: route("PATCH", "/v2/account/secrets/sec1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Secrets.Rotate(ctx, "sec1", secret.NewString("hunter3")))
		}},
	{name: "secrets.Service.SetDescription", on: route("PATCH", "/v2/account/secrets/sec1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Secrets.SetDescription(ctx, "sec1", "d"))
		}},
	{name: "secrets.Service.Delete", on: route("DELETE", "/v2/account/secrets/sec1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Secrets.Delete(ctx, "sec1") }},

	{name: "globalvolumes.Service.All", on: route("GET", "/v2/global-volumes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.GlobalVolumes.All(ctx)) }},
	{name: "globalvolumes.Service.List", on: route("GET", "/v2/global-volumes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.GlobalVolumes.List(ctx)) }},
	{name: "globalvolumes.Service.Get", on: route("GET", "/v2/global-volumes/gsb_1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.GlobalVolumes.Get(ctx, "gsb_1")) }},
	{name: "globalvolumes.Service.Create", on: route("POST", "/v2/global-volumes"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.GlobalVolumes.Create(ctx, globalvolumes.CreateGlobalVolumeRequest{Name: "matrix"}))
		}},
	{name: "globalvolumes.Service.Rename", on: route("PATCH", "/v2/global-volumes/gsb_1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.GlobalVolumes.Rename(ctx, "gsb_1", "m"))
		}},
	{name: "globalvolumes.Service.Delete", on: route("DELETE", "/v2/global-volumes/gsb_1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.GlobalVolumes.Delete(ctx, "gsb_1") }},

	{name: "volumes.Service.All", on: route("GET", "/v2/network-volumes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return drain(rp.Volumes.All(ctx)) }},
	{name: "volumes.Service.List", on: route("GET", "/v2/network-volumes"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Volumes.List(ctx)) }},
	{name: "volumes.Service.Get", on: route("GET", "/v2/network-volumes/vol1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return ignore(rp.Volumes.Get(ctx, "vol1")) }},
	{name: "volumes.Service.Create", on: route("POST", "/v2/network-volumes"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Volumes.Create(ctx, volumes.CreateNetworkVolumeRequest{Name: "matrix", Size: 50, DataCenter: "EU-RO-1",
				Type: runpod.Ptr(volumes.VolumeTypeStandard)}))
		}},
	{name: "volumes.Service.Update", on: route("PATCH", "/v2/network-volumes/vol1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.Volumes.Update(ctx, "vol1", volumes.UpdateNetworkVolumeRequest{Size: runpod.Ptr(100)}))
		}},
	{name: "volumes.Service.Delete", on: route("DELETE", "/v2/network-volumes/vol1"), idempotent: true, noBody: true,
		call: func(ctx context.Context, rp *runpod.Client) error { return rp.Volumes.Delete(ctx, "vol1") }},
	// Volume reads the volume over REST, then builds the S3 handle, which
	// this client (no S3 API key) cannot have: past the read, that
	// refusal is the success; the S3 API's own faults are volumes/files'.
	{name: "files.Service.Volume", on: route("GET", "/v2/network-volumes/vol1"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			_, err := files.NewFromConfig(rp.Config()).Volume(ctx, "vol1")
			if errors.Is(err, files.ErrNoS3Credentials) || errors.Is(err, files.ErrNoS3API) {
				return nil
			}
			return err
		}},

	{name: "openai.Route.ChatCompletion", on: routeSuffix("POST", "/openai/v1/chat/completions"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.OpenAI.Route("ep1").ChatCompletion(ctx, chat))
		}},
	{name: "openai.Route.ChatCompletionStream", on: routeSuffix("POST", "/openai/v1/chat/completions"), stream: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return drain(rp.OpenAI.Route("ep1").ChatCompletionStream(ctx, chat))
		}},
	{name: "openai.Route.Completion", on: routeSuffix("POST", "/openai/v1/completions"),
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.OpenAI.Route("ep1").Completion(ctx, openai.CompletionParams{Model: "m", Prompt: "hi"}))
		}},
	{name: "openai.Route.Models", on: routeSuffix("GET", "/openai/v1/models"), idempotent: true,
		call: func(ctx context.Context, rp *runpod.Client) error {
			return ignore(rp.OpenAI.Route("ep1").Models(ctx))
		}},
}

type inferenceKey struct{}

// inference is the inference host of the client running in ctx.
func inference(ctx context.Context) string { s, _ := ctx.Value(inferenceKey{}).(string); return s }

// TestEveryOperationIsInTheMatrix enumerates, by reflection, every
// exported method that takes a context of every service the client
// reaches, or that a service built from its Config (fromConfig)
// reaches, and fails on one the matrix does not run: a new operation must
// join the matrix.
func TestEveryOperationIsInTheMatrix(t *testing.T) {
	rp, err := runpod.NewClient(option.WithAPIKey(oddKey), option.WithBaseURL("https://api.example.test"))
	require.NoError(t, err)
	var found []string
	seen := map[reflect.Type]bool{}
	var visit func(v reflect.Value)
	ctxType := reflect.TypeFor[context.Context]()
	visit = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		typ := v.Type()
		if seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			if m.Type.NumIn() > 1 && m.Type.In(1) == ctxType {
				found = append(found, name(typ)+"."+m.Name)
			}
			// Handles: a method taking an id string and returning a
			// service (Queue, LoadBalancer, Route).
			if m.Type.NumIn() == 2 && m.Type.In(1).Kind() == reflect.String && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Pointer {
				out := v.Method(i).Call([]reflect.Value{reflect.ValueOf("x")})[0]
				visit(out)
			}
			// Handles reached without an id: a method taking nothing and
			// returning one pointer to a struct of this module
			// (Queue.Batches). Only getters checked by hand are called.
			if m.Type.NumIn() == 1 && m.Type.NumOut() == 1 && moduleStructPointer(m.Type.Out(0)) {
				getter := name(typ) + "." + m.Name
				follow, checked := noArgGetters[getter]
				switch {
				case !checked:
					t.Errorf("%s takes nothing and returns %s: check whether it is a pure handle getter, and list it in noArgGetters", getter, m.Type.Out(0))
				case follow:
					visit(v.Method(i).Call(nil)[0])
				}
			}
		}
		if typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct {
			for i := range typ.Elem().NumField() {
				if f := typ.Elem().Field(i); f.IsExported() && f.Type.Kind() == reflect.Pointer {
					visit(v.Elem().Field(i))
				}
			}
		}
	}
	visit(reflect.ValueOf(rp))
	for _, build := range fromConfig {
		visit(reflect.ValueOf(build(rp.Config())))
	}
	var listed []string
	for _, o := range ops {
		listed = append(listed, o.name)
	}
	slices.Sort(found)
	slices.Sort(listed)
	assert.Equal(t, found, listed, "every operation of the SDK runs in the fault matrix")
	assert.GreaterOrEqual(t, len(found), 40)
}

// fromConfig builds the services a program makes from its client's
// Config (pkg.NewFromConfig(rp.Config())) because they are packages of
// their own, kept apart so that the client does not link their libraries:
// the walk follows them as it follows the client's fields. podssh is not
// here: it speaks SSH, which this matrix of HTTP faults does not cover.
var fromConfig = []func(option.Config) any{
	func(cfg option.Config) any { return files.NewFromConfig(cfg) },
	func(cfg option.Config) any { return graphqlendpoints.NewFromConfig(cfg) },
}

// noArgGetters are the methods, on the types the client reaches, that
// take nothing and return one pointer to a struct of this module, each
// checked by hand. true: a pure handle getter (it builds a handle from its
// receiver; it sends nothing, starts nothing, changes nothing and needs
// no setup), which the walk calls and follows. false: a method the walk
// must not call, with why. The walk calls no method missing here: it
// fails instead, so that a new one is looked at before it is run. The
// methods of the reached types that are not candidates are not called:
// Client.CloseIdleConnections (it acts on the client's connections)
// returns nothing, and Client.Config and Client.RateLimit return values.
var noArgGetters = map[string]bool{
	"serverless.Queue.Batches": true, // &Batches{q: r}, nothing else
}

// modulePath is the module's path: the walk follows only handles of it.
const modulePath = "github.com/runpodkit/runpod-go"

// moduleStructPointer reports whether t is a pointer to a struct type
// declared in this module.
func moduleStructPointer(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	pkg := t.Elem().PkgPath()
	return pkg == modulePath || strings.HasPrefix(pkg, modulePath+"/")
}

func name(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	if pkg == modulePath {
		return "runpod." + t.Name()
	}
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
}

// TestFaultMatrix runs every operation against every fault.
func TestFaultMatrix(t *testing.T) {
	testkit.RegisterSecret(oddKey)
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			fs := newFaultServer(t, oddKey)
			log, lines := testkit.Logger()
			inferenceURL := strings.Replace(fs.srv.URL, "127.0.0.1", "localhost", 1)
			rp, err := runpod.NewClient(option.WithAPIKey(oddKey), option.WithBaseURL(fs.srv.URL), option.WithInferenceURL(inferenceURL),
				option.WithHTTPClient(&http.Client{Transport: &http.Transport{DialContext: dialLoopback, MaxResponseHeaderBytes: 1 << 20}}),
				option.WithLogger(log), option.WithBackoff(time.Millisecond, 2*time.Millisecond), option.WithMaxResponseBytes(maxBody))
			require.NoError(t, err)
			t.Cleanup(rp.CloseIdleConnections)
			for i := range faults {
				flt := &faults[i]
				t.Run(flt.name, func(t *testing.T) {
					fs.arm(flt, o.on)
					ctx, cancel := context.WithTimeout(context.WithValue(t.Context(), inferenceKey{}, inferenceURL), guard)
					defer cancel()
					if flt.name == "hung server, caller cancels" {
						go func() {
							select {
							case <-fs.arrived:
								cancel()
							case <-ctx.Done():
							}
						}()
					}
					start := time.Now()
					var before runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					err := o.call(ctx, rp)
					var after runtime.MemStats
					runtime.ReadMemStats(&after)
					elapsed := time.Since(start)
					arrivals, _ := fs.counts()
					var heap uint64
					if after.HeapAlloc > before.HeapAlloc {
						heap = after.HeapAlloc - before.HeapAlloc
					}
					check(t, o, flt.name, err, arrivals, heap, fs)
					assert.Less(t, elapsed, guard, "bounded time")
					testkit.NoSecret(t, err)
					for _, l := range strings.Split(lines.String(), "\n") {
						assert.NotContains(t, l, oddKey)
						assert.NotContains(t, strings.ToLower(l), strings.ToLower(escapedKey))
					}
				})
			}
		})
	}
}

// check asserts the outcome the retry table promises for o under fault.
func check(t *testing.T, o op, fault string, err error, arrivals int, heap uint64, fs *faultServer) {
	t.Helper()
	t.Logf("outcome: %v (arrivals %d)", err, arrivals)
	var apiErr *errs.APIError
	var te *errs.TransportError
	var re *errs.ResponseError
	unknown := errors.Is(err, errs.ErrOutcomeUnknown)
	switch fault {
	case "reset before acting", "reset after acting", "oversized headers":
		if o.idempotent {
			require.NoError(t, err, "retried")
			assert.Equal(t, 2, arrivals)
			return
		}
		require.ErrorAs(t, err, &te)
		assert.True(t, unknown, "outcome unknown: %v", err)
		assert.Equal(t, 1, arrivals, "never sent twice")
	case "503":
		if o.idempotent {
			require.NoError(t, err, "retried")
			assert.Equal(t, 2, arrivals)
			return
		}
		if o.swallows {
			require.ErrorIs(t, err, errNotReady)
			return
		}
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		if o.noCapacity503 {
			require.ErrorIs(t, err, errs.ErrNoCapacity, "the documented no-capacity answer")
			assert.False(t, unknown, "nothing was created: %v", err)
			assert.Equal(t, 1, arrivals, "never sent twice")
			return
		}
		assert.True(t, unknown, "outcome unknown: %v", err)
		assert.Equal(t, 1, arrivals, "never sent twice")
	case "429 Retry-After seconds", "429 Retry-After date", "429 RateLimit window":
		require.NoError(t, err, "a 429 is retried for every call: the server did not act")
		assert.Equal(t, 2, arrivals)
	case "429 wait over the cap":
		if o.swallows {
			if o.name == "serverless.LoadBalancer.WaitReady" {
				require.NoError(t, err, "polls on")
			} else {
				require.ErrorIs(t, err, errNotReady)
			}
			return
		}
		require.ErrorIs(t, err, errs.ErrRateLimited)
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, time.Hour, apiErr.RetryAfter)
		assert.Equal(t, 1, arrivals, "returned at once")
	case "2xx body cut off":
		switch {
		case o.noBody:
			require.NoError(t, err)
		case o.resumes:
			require.NoError(t, err, "resumed from the last event")
			assert.Equal(t, 2, arrivals)
		case o.stream:
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 1, arrivals)
		case o.idempotent:
			require.NoError(t, err, "retried")
			assert.Equal(t, 2, arrivals)
		case o.swallows:
			require.ErrorIs(t, err, errNotReady)
		default:
			require.ErrorAs(t, err, &te)
			assert.True(t, unknown, "outcome unknown: %v", err)
			assert.Equal(t, 1, arrivals, "never sent twice")
		}
	case "2xx body too large":
		if errors.As(err, &re) && heap > 0 {
			// The limit's worth of buffer as it grows, plus what the test
			// server in this same process allocates meanwhile.
			assert.Less(t, heap, uint64(3*re.Limit+1<<20), "memory bounded by the limit (%d bytes)", re.Limit)
		}
		switch {
		case o.noBody:
			require.NoError(t, err)
		case o.name == "video.Service.Download":
			require.NoError(t, err, "a download is written out, never held")
		default:
			// WaitReady too: only server errors, failed connections and
			// 204 are waited through.
			require.ErrorIs(t, err, errs.ErrResponseTooLarge)
			require.ErrorAs(t, err, &re)
			assert.Equal(t, 1, arrivals, "not retried")
			if !o.stream {
				assert.Equal(t, !o.idempotent, unknown, "outcome unknown for calls not safe to repeat")
			}
		}
	case "redirect to another origin":
		fs.mu.Lock()
		defer fs.mu.Unlock()
		for _, saw := range fs.otherSaw {
			assert.NotContains(t, saw, "rpa_", "the key never follows a redirect to another origin")
		}
	case "hung server, caller cancels":
		if o.quietCancel {
			require.NoError(t, err)
			assert.Equal(t, 1, arrivals)
			return
		}
		require.ErrorIs(t, err, context.Canceled)
		if !o.idempotent && !o.swallows {
			assert.True(t, unknown, "outcome unknown: %v", err)
		}
		assert.Equal(t, 1, arrivals)
	case "key echoed in an error":
		// A 401 is final everywhere, /ping included: it is returned at
		// once, redacted.
		if o.swallows && !strings.HasPrefix(o.name, "serverless.LoadBalancer.") {
			require.ErrorIs(t, err, errNotReady)
			return
		}
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 401, apiErr.StatusCode)
		testkit.NoSecret(t, apiErr.Detail, apiErr.Errors, apiErr.Excerpt, string(apiErr.Body), apiErr.RequestID)
		assert.Contains(t, apiErr.Detail, "[REDACTED]")
	default:
		t.Fatalf("no expectation for fault %q", fault)
	}
}
