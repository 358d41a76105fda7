package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The happy platform answers every route the SDK calls with the raw wire
// JSON the real platform sends, so that without a fault every operation
// succeeds. It keeps no state: faults are what the tests vary.

// endpointJSON is a serverless endpoint as GraphQL returns it, scaled to
// zero so that Delete and ScaleDownAndDelete may go ahead.
const endpointJSON = `{"id":"ep1","name":"matrix","templateId":"tmpl1","gpuIds":"AMPERE_16","type":"QB","idleTimeout":5,` +
	`"locations":null,"flashBootType":"OFF","scalerType":"QUEUE_DELAY","scalerValue":4,"workersMin":0,"workersMax":0,` +
	`"networkVolumeId":null,"networkVolumeIds":[],"gpuCount":1,"instanceIds":null,"executionTimeoutMs":600000,` +
	`"minCudaVersion":null,"modelReferences":null,"pods":[]}`

// restEndpointJSON is a serverless endpoint as REST v2 returns it, with
// every field the document requires, scaled to zero so that Delete may go
// ahead.
const restEndpointJSON = `{"id":"%s","name":"matrix","type":"QUEUE","workers":{"min":0,"max":0,"idleTimeout":5},` +
	`"scaling":{"type":"QUEUE_DELAY","queueDelay":4},"dataCenterIds":[],"networkVolumes":[],"timeout":300000,"flashboot":"OFF",` +
	`"createdAt":"2026-06-01T12:00:00Z","gpu":{"pools":["AMPERE_16"],"count":1,"allowedCudaVersions":[],"minCudaVersion":null},` +
	`"image":"runpod/base:0.6.2"}`

// podJSON is a running pod with 22/tcp mapped.
const podJSON = `{"id":"pod1","name":"matrix","image":"runpod/base:0.6.2","status":"RUNNING","actions":["stop","restart","terminate"],` +
	`"ports":["22/tcp"],"env":{},"disk":20,"cost":0.5,"createdAt":"2026-06-01T12:00:00Z","locked":false,"cloud":"SECURE",` +
	`"globalNetworking":{"enabled":false},"mounts":{},"ssh":{"direct":null,"proxy":null},` +
	`"runtime":{"uptime":10,"ports":[{"ip":"203.0.113.7","private":22,"public":40022,"type":"tcp"}]}}`

// templateJSON is a pod template, with every field the document requires.
const templateJSON = `{"id":"tpl1","name":"matrix","image":"runpod/base:0.6.2","args":"","disk":20,"ports":["22/tcp"],` +
	`"env":{"A":"1"},"registry":null,"mounts":{},"serverless":false,"public":false,"category":"NVIDIA","startSsh":true,` +
	`"startJupyter":true,"allowedCudaVersions":[]}`

// gpuJSON is a GPU type with every field the document requires, and the
// availability an include asks for: in stock for pods in EU-RO-1, so that
// FindGPUs finds it.
const gpuJSON = `{"id":"NVIDIA L4","name":"L4","pool":"ADA_24","manufacturer":"NVIDIA","memory":24,"secure":true,"community":true,` +
	`"price":{"secure":0.43,"community":0.39,"serverless":0.48},"maxCount":{"secure":8,"community":4},"availability":"HIGH",` +
	`"dataCenters":[{"id":"EU-RO-1","name":"Romania","availability":"HIGH"}],"cudaVersions":[{"version":"12.8","available":true}]}`

// cpuJSON is a CPU flavor, with every field the document requires.
const cpuJSON = `{"id":"cpu3c","name":"Compute-Optimized","group":"cpu3","vcpu":{"min":2,"max":32},"ramGbPerVcpu":2,` +
	`"price":{"securePerVcpu":0.04,"serverlessPerVcpu":0.05}}`

// dataCenterJSON is a data center, with every field the document requires.
const dataCenterJSON = `{"id":"EU-RO-1","name":"Romania","region":"EUROPE","networkVolumeTypes":["STANDARD"],"compliance":["GDPR"],` +
	`"globalNetwork":true,"gpuAvailability":[{"id":"NVIDIA L4","name":"L4","availability":"HIGH"}]}`

// clusterJSON is an instant cluster, with every field the document
// requires.
const clusterJSON = `{"id":"cl1","name":"matrix","type":"TRAINING","createdAt":"2026-06-01T12:00:00Z","dataCenterId":"EU-RO-1",` +
	`"compute":{"gpuTypeId":"NVIDIA H100 80GB HBM3","gpuCountPerPod":8,"podCount":2},"pods":{"total":2,"byStatus":{"RUNNING":2}},` +
	`"network":{"cidr":"10.65.0.0/16"},"primary":{"podId":"pod1","status":"RUNNING"}}`

// registryJSON is a registry credential: an id and a name, never the
// username or password.
const registryJSON = `{"id":"reg1","name":"matrix"}`

const secretJSON = `{"id":"sec1","name":"matrix","description":null,"createdAt":"2026-06-01T12:00:00Z","valueLastUpdatedAt":"2026-06-01T12:00:00Z"}`

const globalVolumeJSON = `{"id":"gsb_1","name":"matrix","createdAt":"2026-06-01T12:00:00Z","createdByUserId":null}`

// delegationJSON is an ECR delegation, with every field the document
// requires.
const delegationJSON = `{"id":"del1","name":null,"delegatorUserId":"user1","awsUser":"arn:aws:iam::123456789012:user/runpod",` +
	`"repository":"matrix","tag":"latest","awsRegion":"us-east-1","createdAt":"2026-06-01T12:00:00Z",` +
	`"dockerRegistryUri":"123456789012.dkr.ecr.us-east-1.amazonaws.com"}`

// sandboxJSON is a running sandbox, with every field the document
// requires, carrying the token label tok1.
const sandboxJSON = `{"id":"sb1","name":"matrix","state":"RUNNING","templateId":null,"imageName":"python:3.12-slim","cpuFlavorId":"cpu3c",` +
	`"compute":{"vcpuCount":2,"memoryInGb":4,"containerDiskInGb":10,"costPerHr":0.026},"idleTimeoutSeconds":600,"maxLifetimeSeconds":3600,` +
	`"lastActivityAt":"2026-06-01T12:00:00Z","idleExpiresAt":"2026-06-01T12:10:00Z","expiresAt":"2026-06-01T13:00:00Z",` +
	`"labels":{"runpod-go-create-token":"tok1"},"terminationReason":null,"terminatedAt":null,` +
	`"createdAt":"2026-06-01T12:00:00Z","updatedAt":"2026-06-01T12:00:00Z"}`

// volumeJSON is a network volume, with every field the document requires.
const volumeJSON = `{"id":"vol1","name":"matrix","size":50,"dataCenter":"EU-RO-1","type":"STANDARD"}`

// batchJSON is a batch's summary as GET /v2/{endpoint}/batch/{id}
// answers it (createdAt in epoch milliseconds), with the display name a
// PUT sets; the status and the counts of its two requests (in progress,
// completed, failed) are filled in.
const batchJSON = `{"id":"batch_1","endpointId":"ep1","name":"nightly","status":"%s","requestTotal":2,` +
	`"requestInProgress":%d,"requestCompleted":%d,"requestFailed":%d,"createdAt":1780315200000}`

// batchRequestsJSON is the one page of the batch's requests: one
// completed with its output, one failed with its error.
const batchRequestsJSON = `{"requests":[` +
	`{"id":"req_1","status":"COMPLETED","output":{"ok":true},"startedAt":"2026-06-01T12:00:01Z","completedAt":"2026-06-01T12:00:03Z"},` +
	`{"id":"req_2","status":"FAILED","error":"handler raised","startedAt":"2026-06-01T12:00:01Z","completedAt":"2026-06-01T12:00:02Z"}],` +
	`"total":2,"offset":0,"limit":50,"hasMore":false}`

// batch answers a route of the batch API of endpoint ep1, batch batch_1.
// Each answer is what the platform would send for a batch in the state the
// call leads to: created and filled as a DRAFT, finalized, cancelled with
// nothing running, and otherwise finished (every request ended, so that
// Wait returns at once).
func batch(js func(int, string), r *http.Request) bool {
	const base = "/v2/ep1/batch"
	summary := func(status string, inProgress, completed, failed int) {
		js(200, fmt.Sprintf(batchJSON, status, inProgress, completed, failed))
	}
	switch p := r.URL.Path; {
	case p == base && r.Method == http.MethodPost:
		js(200, `{"id":"batch_1","status":"DRAFT"}`)
	case p == base && r.Method == http.MethodGet:
		js(200, `{"batches":[`+fmt.Sprintf(batchJSON, "FINALIZED", 0, 1, 1)+`]}`)
	case p == base+"/batch_1" && r.Method == http.MethodGet:
		summary("FINALIZED", 0, 1, 1)
	case p == base+"/batch_1" && r.Method == http.MethodPut,
		p == base+"/batch_1/requests" && r.Method == http.MethodPost,
		p == base+"/batch_1/requests/req_1" && r.Method == http.MethodDelete:
		summary("DRAFT", 0, 0, 0)
	case p == base+"/batch_1/requests" && r.Method == http.MethodGet:
		js(200, batchRequestsJSON) // Results asks from offset 0, and this page is the last
	case p == base+"/batch_1/finalize" && r.Method == http.MethodPost:
		summary("FINALIZED", 0, 0, 0)
	case p == base+"/batch_1/cancel" && r.Method == http.MethodPost:
		summary("CANCELLED", 0, 0, 2)
	default:
		return false
	}
	return true
}

const jobDone = `{"id":"job-1","status":"COMPLETED","delayTime":10,"executionTime":20,"workerId":"w1","output":{"ok":true}}`

func happy(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	host, _, _ := net.SplitHostPort(r.Host)
	js := func(status int, s string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, s)
	}
	sse := func(events ...string) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			_, _ = io.WriteString(w, e)
		}
	}
	switch {
	case strings.HasPrefix(host, "ep-lb."): // a load-balancing endpoint's worker
		js(200, `{"ok":true}`)
	case path == "/graphql":
		var q struct {
			OperationName string `json:"operationName"`
		}
		_ = json.Unmarshal(body, &q)
		switch q.OperationName {
		case "ListEndpoints":
			js(200, `{"data":{"myself":{"endpoints":[`+endpointJSON+`],"serverlessDiscount":null}}}`)
		case "SaveEndpoint":
			js(200, `{"data":{"saveEndpoint":`+endpointJSON+`}}`)
		case "EndpointSettings":
			js(200, `{"data":{"myself":{"endpoints":[{"id":"ep1","flashBootType":"OFF","allowedCudaVersions":null,"instanceIds":null,`+
				`"networkVolumeIds":[],"executionTimeoutMs":600000,"minCudaVersion":null,"modelReferences":null}]}}}`)
		case "UpdateEndpointTemplate":
			js(200, `{"data":{"updateEndpointTemplate":{"id":"ep1","templateId":"tmpl2"}}}`)
		case "DeleteEndpoint":
			js(200, `{"data":{"deleteEndpoint":null}}`)
		default:
			js(200, `{"errors":[{"message":"unknown operation `+q.OperationName+`"}]}`)
		}
	case path == "/v2/account/ssh-keys":
		js(200, `{"keys":[]}`)
	case path == "/v2/serverless" && r.Method == http.MethodGet:
		js(200, `{"endpoints":[`+fmt.Sprintf(restEndpointJSON, "ep1")+`]}`)
	case path == "/v2/serverless" && r.Method == http.MethodPost:
		js(201, fmt.Sprintf(restEndpointJSON, "ep1"))
	case (path == "/v2/serverless/ep1" || path == "/v2/serverless/ep2") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case path == "/v2/serverless/ep1" || path == "/v2/serverless/ep2":
		js(200, fmt.Sprintf(restEndpointJSON, strings.TrimPrefix(path, "/v2/serverless/")))
	case path == "/v2/serverless/ep2/workers": // drained
		js(200, `{"endpointVersion":1,"summary":{"running":0,"idle":0,"initializing":0,"throttled":0,"unhealthy":0,"total":0},"workers":[]}`)
	case path == "/v2/serverless/ep1/workers":
		js(200, `{"endpointVersion":1,"summary":{"running":0,"idle":1,"initializing":0,"throttled":0,"unhealthy":0,"total":1},`+
			`"workers":[{"id":"wk1","status":"IDLE","isStale":false,"version":1,"gpuCount":1}]}`)
	case path == "/v2/serverless/ep1/releases":
		js(200, `{"endpointVersion":1,"rollout":{"inProgress":false,"workersOnLatest":1,"workersTotal":1,"percentOnLatest":100},"releases":[]}`)
	case path == "/v2/serverless/ep1/builds":
		js(200, `{"builds":[{"id":"b1","status":"COMPLETED"}]}`)
	case path == "/v2/serverless/ep1/builds/b1":
		js(200, `{"id":"b1","status":"COMPLETED"}`)
	case strings.HasPrefix(path, "/v2/ep1/batch") && batch(js, r):
	case strings.HasPrefix(path, "/v2/billing"):
		js(200, `{"records":[]}`)
	case path == "/v2/pods" && r.Method == http.MethodGet:
		js(200, `{"pods":[`+podJSON+`]}`)
	case path == "/v2/pods" && r.Method == http.MethodPost:
		js(201, podJSON)
	case path == "/v2/sandboxes" && r.Method == http.MethodGet:
		js(200, `{"sandboxes":[`+sandboxJSON+`]}`)
	case path == "/v2/sandboxes" && r.Method == http.MethodPost:
		js(201, sandboxJSON)
	case path == "/v2/sandboxes/sb1/exec":
		js(200, `{"output":"hi\n","error":null}`)
	case path == "/v2/sandboxes/sb1" && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case path == "/v2/sandboxes/sb1":
		js(200, sandboxJSON)
	case strings.HasSuffix(path, "/logs"):
		sse("id: 1\ndata: {\"message\":\"booted\",\"source\":\"container\",\"timestamp\":\"2026-06-01T12:00:00Z\"}\n\n")
	case strings.HasSuffix(path, "/action"):
		js(200, podJSON)
	case strings.HasPrefix(path, "/v2/pods/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/pods/"):
		js(200, podJSON)
	case path == "/v2/templates" && r.Method == http.MethodGet:
		js(200, `{"templates":[`+templateJSON+`]}`)
	case path == "/v2/templates" && r.Method == http.MethodPost:
		js(201, templateJSON)
	case strings.HasPrefix(path, "/v2/templates/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/templates/"):
		js(200, templateJSON)
	case path == "/v2/catalog/gpus":
		js(200, `{"gpus":[`+gpuJSON+`]}`)
	case strings.HasPrefix(path, "/v2/catalog/gpus/"):
		js(200, gpuJSON)
	case path == "/v2/catalog/cpus":
		js(200, `{"cpus":[`+cpuJSON+`]}`)
	case strings.HasPrefix(path, "/v2/catalog/cpus/"):
		js(200, cpuJSON)
	case path == "/v2/catalog/datacenters":
		js(200, `{"dataCenters":[`+dataCenterJSON+`]}`)
	case strings.HasPrefix(path, "/v2/catalog/datacenters/"):
		js(200, dataCenterJSON)
	case path == "/v2/catalog/templates":
		js(200, `{"templates":[`+strings.Replace(templateJSON, `"public":false`, `"public":true`, 1)+`]}`)
	case path == "/v2/clusters" && r.Method == http.MethodGet:
		js(200, `{"clusters":[`+clusterJSON+`]}`)
	case path == "/v2/clusters" && r.Method == http.MethodPost:
		js(201, clusterJSON)
	case strings.HasPrefix(path, "/v2/clusters/") && strings.HasSuffix(path, "/pods"):
		js(200, `{"pods":[`+podJSON+`]}`)
	case strings.HasPrefix(path, "/v2/clusters/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/clusters/"):
		js(200, clusterJSON)
	case path == "/v2/registries/delegations" && r.Method == http.MethodGet:
		js(200, `{"delegations":[`+delegationJSON+`]}`)
	case path == "/v2/registries/delegations" && r.Method == http.MethodPost:
		js(201, delegationJSON)
	case strings.HasPrefix(path, "/v2/registries/delegations/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case path == "/v2/registries" && r.Method == http.MethodGet:
		js(200, `{"registries":[`+registryJSON+`]}`)
	case path == "/v2/registries" && r.Method == http.MethodPost:
		js(201, registryJSON)
	case strings.HasPrefix(path, "/v2/registries/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/registries/"):
		js(200, registryJSON)
	case path == "/v2/account/secrets" && r.Method == http.MethodGet:
		js(200, `{"secrets":[`+secretJSON+`]}`)
	case path == "/v2/account/secrets" && r.Method == http.MethodPost:
		js(201, secretJSON)
	case strings.HasPrefix(path, "/v2/account/secrets/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/account/secrets/"):
		js(200, secretJSON)
	case path == "/v2/global-volumes" && r.Method == http.MethodGet:
		js(200, `{"globalVolumes":[`+globalVolumeJSON+`],"pagination":{"hasNextPage":false}}`)
	case path == "/v2/global-volumes" && r.Method == http.MethodPost:
		js(201, globalVolumeJSON)
	case strings.HasPrefix(path, "/v2/global-volumes/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/global-volumes/"):
		js(200, globalVolumeJSON)
	case path == "/v2/network-volumes" && r.Method == http.MethodGet:
		js(200, `{"networkVolumes":[`+volumeJSON+`]}`)
	case path == "/v2/network-volumes" && r.Method == http.MethodPost:
		js(201, volumeJSON)
	case strings.HasPrefix(path, "/v2/network-volumes/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/v2/network-volumes/"):
		js(200, volumeJSON)
	case strings.HasSuffix(path, "/openai/v1/chat/completions") && bytes.Contains(body, []byte(`"stream":true`)):
		sse(`data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n\n", "data: [DONE]\n\n")
	case strings.HasSuffix(path, "/openai/v1/chat/completions"):
		js(200, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	case strings.HasSuffix(path, "/openai/v1/completions"):
		js(200, `{"id":"c1","object":"text_completion","choices":[{"index":0,"text":"hi","finish_reason":"stop"}]}`)
	case strings.HasSuffix(path, "/openai/v1/models"):
		js(200, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	case strings.HasPrefix(path, "/v2/wan-2-5/runsync"), strings.HasPrefix(path, "/v2/wan-2-5/status/"):
		js(200, `{"id":"job-1","status":"COMPLETED","output":{"video_url":"http://`+r.Host+`/video.mp4","cost":0.5}}`)
	case strings.HasSuffix(path, "/runsync"), strings.Contains(path, "/status/"):
		js(200, jobDone)
	case strings.HasSuffix(path, "/run"), strings.Contains(path, "/retry/"):
		js(200, `{"id":"job-1","status":"IN_QUEUE"}`)
	case strings.Contains(path, "/stream/"):
		js(200, `{"status":"COMPLETED","stream":[]}`)
	case strings.Contains(path, "/cancel/"):
		js(200, `{"id":"job-1","status":"CANCELLED"}`)
	case strings.HasSuffix(path, "/purge-queue"):
		js(200, `{"removed":0,"status":"completed"}`)
	case strings.HasSuffix(path, "/health"):
		js(200, `{"jobs":{"completed":1,"failed":0,"inProgress":0,"inQueue":0,"retried":0},"workers":{"idle":1,"running":0}}`)
	case path == "/video.mp4":
		w.Header().Set("Content-Type", "video/mp4")
		_, _ = w.Write(bytes.Repeat([]byte{0}, 4096))
	default:
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"title":"Not Found","status":404,"detail":"no route `+r.Method+" "+path+`"}`)
	}
}

// fault is one column of the matrix: what the server does to the first
// request an operation's fault lands on.
type fault struct {
	name string
	// serve answers the faulted request; it returns whether the happy
	// handler acted on it.
	serve func(f *faultServer, w http.ResponseWriter, r *http.Request) (acted bool)
}

// faultServer is the platform with a fault armed for the first request
// that match accepts. It counts the requests match accepts (arrivals) and
// how many the platform acted on.
type faultServer struct {
	srv   *httptest.Server
	other *httptest.Server // a second origin, for redirects
	key   string

	mu       sync.Mutex
	armed    *fault
	match    func(*http.Request) bool
	arrivals int
	acted    int
	// arrived is closed when the faulted request arrives.
	arrived chan struct{}
	// otherSaw records the credentials the other origin received.
	otherSaw []string
}

func newFaultServer(t *testing.T, key string) *faultServer {
	f := &faultServer{key: key, arrived: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.otherSaw = append(f.otherSaw, r.Header.Get("Authorization")+" "+r.URL.RawQuery)
		f.mu.Unlock()
		happy(w, r)
	}))
	t.Cleanup(f.other.Close)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *faultServer) arm(flt *fault, match func(*http.Request) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed, f.match, f.arrivals, f.acted, f.arrived, f.otherSaw = flt, match, 0, 0, make(chan struct{}), nil
}

func (f *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	matched := f.match != nil && f.match(r)
	var flt *fault
	if matched {
		f.arrivals++
		flt, f.armed = f.armed, nil
		if flt != nil {
			close(f.arrived)
		}
	}
	f.mu.Unlock()
	acted := true
	if flt != nil {
		acted = flt.serve(f, w, r)
	} else {
		happy(w, r)
	}
	if matched && acted {
		f.mu.Lock()
		f.acted++
		f.mu.Unlock()
	}
}

func (f *faultServer) counts() (arrivals, acted int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.arrivals, f.acted
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// recorded runs the happy handler into a buffer.
func recorded(r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	happy(rec, r)
	return rec
}

var faults = []fault{
	{"reset before acting", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		hangUp(w)
		return false
	}},
	{"reset after acting", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		recorded(r)
		hangUp(w)
		return true
	}},
	{"503", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"title":"Service Unavailable","status":503,"detail":"try again"}`)
		return false
	}},
	{"429 Retry-After seconds", tooMany(http.Header{"Retry-After": {"0"}})},
	{"429 Retry-After date", tooMany(http.Header{"Retry-After": {time.Now().Add(-time.Second).UTC().Format(http.TimeFormat)}})},
	{"429 RateLimit window", tooMany(http.Header{"Ratelimit": {`"minute";r=0;t=0`}, "Ratelimit-Policy": {`"minute";q=60;w=60`}})},
	{"429 wait over the cap", tooMany(http.Header{"Retry-After": {"3600"}})},
	{"2xx body cut off", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		rec := recorded(r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)+64))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		hangUp(w)
		return true
	}},
	{"2xx body too large", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		rec := recorded(r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		// One endless line: too large for a decoded body and for a stream
		// event alike.
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		_, _ = io.WriteString(w, "data: ")
		for range bigBody / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				break
			}
		}
		return true
	}},
	{"oversized headers", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		rec := recorded(r)
		w.Header().Set("X-Padding", strings.Repeat("p", 2<<20))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return true
	}},
	{"redirect to another origin", func(f *faultServer, w http.ResponseWriter, r *http.Request) bool {
		target := f.other.URL + r.URL.Path
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
		return false
	}},
	{"hung server, caller cancels", func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		// Read the request, as a server that then hangs would have: only
		// then does net/http watch the connection for the caller leaving.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(guard):
		}
		return false
	}},
	{"key echoed in an error", func(f *faultServer, w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", f.key)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"title":"Unauthorized","status":401,"detail":"key %s is not valid","errors":["%s"]}`, f.key, escapedKey)
		return false
	}},
}

func tooMany(h http.Header) func(*faultServer, http.ResponseWriter, *http.Request) bool {
	return func(_ *faultServer, w http.ResponseWriter, r *http.Request) bool {
		for k, v := range h {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"title":"Too Many Requests","status":429,"detail":"slow down"}`)
		return false
	}
}

// bigBody is the size of the too-large answer; the client's limit is
// maxBody, and stream events are capped at 8 MiB at most.
const (
	bigBody = 24 << 20
	maxBody = 1 << 20
	guard   = 15 * time.Second
)

// dialLoopback dials every host name on loopback, keeping the port, so a
// load-balancing endpoint's <id>.localhost host reaches the test server.
func dialLoopback(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
}
