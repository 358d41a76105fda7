package runpodotel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/worker"
)

// Against the fake platform: a pod read and a job run, every recorded
// value scanned for the fake's key.
func TestOnTheFake(t *testing.T) {
	tl := newTelemetry(t)
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, err := srv.NewClient(tl.opt)
	require.NoError(t, err)
	ctx := context.Background()

	podID := srv.AddPod(runpodtest.Pod{Name: "p", Image: "ubuntu"})
	pod, err := rp.Pods.Get(ctx, podID)
	require.NoError(t, err)
	assert.Equal(t, podID, pod.ID)

	srv.HandleQueue("ep-fake", func(ctx context.Context, job *worker.Job) (any, error) {
		var in string
		if err := job.Decode(&in); err != nil {
			return nil, err
		}
		return strings.ToUpper(in), nil
	})
	job, err := rp.Serverless.Queue("ep-fake").RunSync(ctx, serverless.RunParams{Input: "hello"}, serverless.WaitOptions{})
	require.NoError(t, err)
	out, err := serverless.Output[string](job)
	require.NoError(t, err)
	assert.Equal(t, "HELLO", out)

	spans := tl.spans.Ended()
	require.GreaterOrEqual(t, len(spans), 2)
	assert.Equal(t, "runpod GET /v2/pods/{podId}", spans[0].Name())
	assert.Len(t, spans[0].Events(), 1)
	assert.Equal(t, "runpod POST /v2/{endpointId}/runsync", spans[1].Name())

	ms := tl.metrics(t)
	want := attribute.NewSet(attribute.String("runpod.endpoint.id", "ep-fake"), attribute.String("runpod.job.status", "COMPLETED"))
	for _, name := range []string{"runpod.job.delay_time", "runpod.job.execution_time"} {
		h := histogram[float64](t, ms, name)
		assert.Equal(t, uint64(1), h.Count, name)
		assert.Equal(t, want, h.Attributes, name)
	}

	require.True(t, keyShape.MatchString(srv.APIKey), "the scan knows the fake's keys")
	tl.noSecrets(t)
}
