package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestQuickstartOffline(t *testing.T) {
	demotest.Offline(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Contains(t, got, "running against the built-in fake platform")
	assert.Regexp(t, `1\. pods: \d+ \(HTTP 200, request req-\d+\)`, got)
	assert.Regexp(t, `rate limits: minute \d+/\d+ reset`, got)
	assert.Regexp(t, `2\. billing: \$\d+\.\d\d serverless spend from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d over 3 endpoint\(s\)`, got)
	assert.Regexp(t, `llm-chat-7q2k\s+\$\d+\.\d\d`, got)
	assert.Regexp(t, `3\. serverless: applied "quickstart" \(created ep\d+: true\)\n   4 endpoint\(s\)`, got)
	assert.Regexp(t, `llm-chat-7q2k\s+llm-chat\s+gpus=\[ADA_48_PRO AMPERE_48\] workers min 1, max 3`, got)
	assert.Regexp(t, `4\. jobs: sync-\S+-u1 COMPLETED in \d+ms, output \{"text":"You said: hello","tokens":3\}`, got)
	assert.Regexp(t, `5\. video: a 5 s 720p wan-2-5 clip costs \$0\.50; generated \S+, charged \$0\.50, downloaded 512 KiB`, got)
	assert.Contains(t, got, "6. pods: 1")
	assert.Regexp(t, `8888/http -> https://[a-z0-9]{14}-8888\.proxy\.localhost`, got)
	assert.Regexp(t, `22/tcp    -> 203\.0\.113\.\d+:\d+`, got)
	assert.Regexp(t, `7\. openai: qwen3-32b-awq serves Qwen/Qwen3-32B-AWQ at http://localhost:\d+/v2/qwen3-32b-awq/openai/v1`, got)
	assert.Contains(t, got, `reply: "You said: hi"`)
	assert.Contains(t, got, `8. worker: local test run of a handler: {"output":{"greeting":"hello, gopher"}}`)
	assert.Regexp(t, `llm-chat-7q2k: 1 worker\(s\), 1 idle, 0 running`, got)
	assert.Regexp(t, `worker wk\d+: "`, got)
	assert.Contains(t, got, "9. account: 1 SSH key(s)")
	assert.Contains(t, got, "10. templates: 2")
	assert.Regexp(t, `pytorch-nb-3k8d\s+pytorch-notebook\s+pod\s+env: JUPYTER_PASSWORD`, got)
	assert.NotContains(t, got, "demo-jupyter-pw", "template env values are never printed")
	assert.Contains(t, got, "11. network volumes: 2")
	assert.Regexp(t, `k7m2q9x4vd training-data\s+500 GB US-KS-2 HIGH_PERFORMANCE`, got)
	assert.Contains(t, got, "12. registries: 2 credential(s), 1 ECR delegation(s)")
	assert.Contains(t, got, "13. catalog: 3 GPU type(s) with 48 GB or more in stock in EU-RO-1, cheapest first")
	assert.Contains(t, got, "14. clusters: 1")
	assert.Regexp(t, `slurm-demo-3f8k slurm-demo\s+SLURM, 2 pods x 8 NVIDIA H100 80GB HBM3, 2 running`, got)
	assert.Contains(t, got, "15. volume files: training-data holds 16343 bytes (first entries, as a pod sees them)")
	assert.Regexp(t, `/workspace/checkpoints/README\.txt\s+43 bytes`, got)
	assert.Regexp(t, `/workspace/datasets/chat/eval\.jsonl\s+3500 bytes`, got)
	assert.Regexp(t, `16\. batches: \S+ FINALIZED, 3 of 3 requests completed, 0 failed`, got)
	assert.Regexp(t, `17\. placement: \d+ candidate\(s\) for a 24 GB pod, first NVIDIA L4 in US-TX-3`, got)
	assert.Contains(t, got, "leases: 0 leased resource(s), 0 past their deadline (dry run, nothing deleted)")
	assert.Empty(t, testkit.Leak(got))
}

// TestUsage: quickstart takes no flags and no arguments; it used to ignore
// them and exit 0.
func TestUsage(t *testing.T) {
	demotest.CheckUsage(t, run, []string{"-v"}, []string{"--", "x"})
}
