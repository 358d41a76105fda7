package video_test

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/video"
)

func lastBody(t *testing.T, srv *runpodtest.Server, path string) string {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Path == path {
			return string(reqs[i].Body)
		}
	}
	t.Fatalf("no request to %s", path)
	return ""
}

const image = "https://example.com/cat.jpg"

// TestWan25Body: defaults are sent explicitly; the caller's false and 0
// are sent too.
func TestWan25Body(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	_, err := rp.Video.Generate(t.Context(), &video.Wan25Input{Prompt: "a cat surfing", Image: image}, video.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input":{"prompt":"a cat surfing","image":"https://example.com/cat.jpg","size":"1280*720","duration":5,
		"seed":-1,"enable_prompt_expansion":false,"enable_safety_checker":true}}`, lastBody(t, srv, "/v2/wan-2-5/run"))

	_, err = rp.Video.Generate(t.Context(), &video.Wan25Input{Prompt: "a cat surfing", Image: image, NegativePrompt: "blur",
		Size: video.Size1080pPortrait, Duration: 10, Seed: runpod.Ptr(0), EnablePromptExpansion: runpod.Ptr(true),
		EnableSafetyChecker: runpod.Ptr(false)}, video.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input":{"prompt":"a cat surfing","image":"https://example.com/cat.jpg","negative_prompt":"blur","size":"1080*1920",
		"duration":10,"seed":0,"enable_prompt_expansion":true,"enable_safety_checker":false}}`, lastBody(t, srv, "/v2/wan-2-5/run"))
}

func TestWan22LoRABody(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	_, err := rp.Video.Generate(t.Context(), &video.Wan22LoRAInput{Prompt: "waves", Image: "data:image/png;base64,iVBORw0KGgo="}, video.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input":{"prompt":"waves","image":"data:image/png;base64,iVBORw0KGgo=","high_noise_loras":[],"low_noise_loras":[],
		"duration":5,"seed":-1,"enable_safety_checker":true}}`, lastBody(t, srv, "/v2/wan-2-2-t2v-720-lora/run"))

	res, err := rp.Video.Generate(t.Context(), &video.Wan22LoRAInput{Prompt: "waves", Image: image,
		HighNoiseLoRAs: []video.LoRA{{Path: "https://hf.co/a.safetensors", Scale: 0.8}}, LowNoiseLoRAs: []video.LoRA{{Path: "b.safetensors", Scale: 0}},
		Duration: 8, Seed: runpod.Ptr(42), EnableSafetyChecker: runpod.Ptr(false)}, video.WaitOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input":{"prompt":"waves","image":"https://example.com/cat.jpg","high_noise_loras":[{"path":"https://hf.co/a.safetensors","scale":0.8}],
		"low_noise_loras":[{"path":"b.safetensors","scale":0}],"duration":8,"seed":42,"enable_safety_checker":false}}`, lastBody(t, srv, "/v2/wan-2-2-t2v-720-lora/run"))
	assert.Equal(t, 0.56, res.Cost)
}

func TestResult(t *testing.T) {
	_, rp, _ := fixture.New(t)
	before := time.Now()
	var progress []video.Progress
	res, err := rp.Video.Generate(t.Context(), &video.Wan25Input{Prompt: "p", Image: image, Size: video.Size480p, Duration: 10},
		video.WaitOptions{Poll: option.Poll[video.Progress]{OnCheck: func(p video.Progress) { progress = append(progress, p) }}})
	after := time.Now()
	require.NoError(t, err)
	assert.Equal(t, video.ModelWan25, res.Model)
	assert.Equal(t, serverless.JobStatusCompleted, res.Status)
	assert.NotEmpty(t, res.ID)
	assert.NotEmpty(t, res.WorkerID)
	assert.Equal(t, 0.50, res.Cost, "480p, 10 s")
	assert.Regexp(t, `/videos/.*\.mp4$`, res.VideoURL)
	assert.False(t, res.ExpiresAt.Before(before.Add(7*24*time.Hour)))
	assert.False(t, res.ExpiresAt.After(after.Add(7*24*time.Hour)))
	require.NotEmpty(t, progress)
	assert.Equal(t, serverless.JobStatusCompleted, progress[len(progress)-1].Status)
	assert.Equal(t, res.ID, progress[0].JobID)
}

func TestFailedGeneration(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	_, err := rp.Video.Generate(t.Context(), &video.Wan25Input{Prompt: "something unsafe", Image: image}, video.WaitOptions{})
	var je *serverless.JobError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, serverless.JobStatusFailed, je.Status)
	assert.Equal(t, "the safety checker flagged the prompt", je.Message)
	assert.NotEmpty(t, je.ID)
	reqs := srv.Requests()
	assert.Equal(t, http.StatusBadRequest, reqs[len(reqs)-1].Status, "public models answer FAILED with 400")
}

// TestValidation: every rule, and no request made.
func TestValidation(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	cases := []struct {
		field string
		in    video.Input
	}{
		{"Wan25Input.Prompt", &video.Wan25Input{Image: image}},
		{"Wan25Input.Image", &video.Wan25Input{Prompt: "p"}},
		{"Wan25Input.Image", &video.Wan25Input{Prompt: "p", Image: "cat.jpg"}},
		{"Wan25Input.Image", &video.Wan25Input{Prompt: "p", Image: "ftp://example.com/cat.jpg"}},
		{"Wan25Input.Image", &video.Wan25Input{Prompt: "p", Image: "data:text/plain,hi"}},
		{"Wan25Input.Image", &video.Wan25Input{Prompt: "p", Image: "data:image/png;base64"}},
		{"Wan25Input.Duration", &video.Wan25Input{Prompt: "p", Image: image, Duration: 8}},
		{"Wan25Input.Size", &video.Wan25Input{Prompt: "p", Image: image, Size: "1280x720"}},
		{"Wan25Input.Size", &video.Wan25Input{Prompt: "p", Image: image, Size: "0*720"}},
		{"Wan25Input.Size", &video.Wan25Input{Prompt: "p", Image: image, Size: "1000*1000"}},
		{"Wan25Input.Seed", &video.Wan25Input{Prompt: "p", Image: image, Seed: runpod.Ptr(-2)}},
		{"Wan22LoRAInput.Prompt", &video.Wan22LoRAInput{Prompt: " ", Image: image}},
		{"Wan22LoRAInput.Image", &video.Wan22LoRAInput{Prompt: "p"}},
		{"Wan22LoRAInput.Duration", &video.Wan22LoRAInput{Prompt: "p", Image: image, Duration: 10}},
		{"Wan22LoRAInput.HighNoiseLoRAs[0].Path", &video.Wan22LoRAInput{Prompt: "p", Image: image, HighNoiseLoRAs: []video.LoRA{{Scale: 1}}}},
		{"Wan22LoRAInput.LowNoiseLoRAs[1].Scale", &video.Wan22LoRAInput{Prompt: "p", Image: image, LowNoiseLoRAs: []video.LoRA{{Path: "a", Scale: 1}, {Path: "b", Scale: math.NaN()}}}},
		{"Wan22LoRAInput.LowNoiseLoRAs[0].Scale", &video.Wan22LoRAInput{Prompt: "p", Image: image, LowNoiseLoRAs: []video.LoRA{{Path: "a", Scale: math.Inf(1)}}}},
	}
	for _, c := range cases {
		_, err := rp.Video.Generate(t.Context(), c.in, video.WaitOptions{})
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.field)
		assert.Equal(t, c.field, ve.Field)
		_, err = video.EstimateCost(c.in.Model(), c.in)
		require.ErrorAs(t, err, &ve, c.field)
	}
	_, err := rp.Video.Generate(t.Context(), nil, video.WaitOptions{})
	require.ErrorIs(t, err, errs.ErrValidation)
	assert.Zero(t, srv.Count("*"), "no request was made")
}

func TestEstimateCost(t *testing.T) {
	cases := []struct {
		in   video.Input
		want float64
	}{
		{&video.Wan25Input{Prompt: "p", Image: image}, 0.50},
		{&video.Wan25Input{Prompt: "p", Image: image, Duration: 10}, 1.00},
		{&video.Wan25Input{Prompt: "p", Image: image, Size: video.Size480p}, 0.25},
		{&video.Wan25Input{Prompt: "p", Image: image, Size: video.Size480pPortrait, Duration: 10}, 0.50},
		{&video.Wan25Input{Prompt: "p", Image: image, Size: video.Size720pPortrait, Duration: 5}, 0.50},
		{&video.Wan25Input{Prompt: "p", Image: image, Size: video.Size1080p}, 0.75},
		{&video.Wan25Input{Prompt: "p", Image: image, Size: video.Size1080pPortrait, Duration: 10}, 1.50},
		{&video.Wan22LoRAInput{Prompt: "p", Image: image}, 0.35},
		{&video.Wan22LoRAInput{Prompt: "p", Image: image, Duration: 8}, 0.56},
	}
	_, rp, _ := fixture.New(t)
	for _, c := range cases {
		got, err := video.EstimateCost(c.in.Model(), c.in)
		require.NoError(t, err)
		assert.InDelta(t, c.want, got, 1e-9, "%+v", c.in)
		res, err := rp.Video.Generate(t.Context(), c.in, video.WaitOptions{})
		require.NoError(t, err)
		assert.InDelta(t, got, res.Cost, 1e-9, "the platform charges what the table says")
	}
	_, err := video.EstimateCost(video.ModelWan22LoRA, &video.Wan25Input{Prompt: "p", Image: image})
	require.ErrorIs(t, err, errs.ErrValidation)
}

func TestDownload(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	res, err := rp.Video.Generate(t.Context(), &video.Wan25Input{Prompt: "p", Image: image}, video.WaitOptions{})
	require.NoError(t, err)
	var buf bytes.Buffer
	var calls int
	var lastDone, lastTotal int64
	require.NoError(t, rp.Video.Download(t.Context(), res.VideoURL, &buf, func(done, total int64) {
		calls++
		assert.GreaterOrEqual(t, done, lastDone)
		lastDone, lastTotal = done, total
	}))
	assert.Equal(t, runpodtest.VideoSize, buf.Len())
	assert.Equal(t, "ftypisom", string(buf.Bytes()[4:12]))
	assert.Equal(t, int64(runpodtest.VideoSize), lastDone)
	assert.Equal(t, int64(runpodtest.VideoSize), lastTotal)
	assert.GreaterOrEqual(t, calls, 2, "progress is reported as the bytes arrive")
	reqs := srv.Requests()
	r := reqs[len(reqs)-1]
	assert.Equal(t, runpodtest.RouteVideoFile, r.Route)
	assert.Empty(t, r.Header.Get("Authorization"), "no credential to the video host")
	assert.Empty(t, r.RawQuery)

	require.NoError(t, rp.Video.Download(t.Context(), res.VideoURL, &bytes.Buffer{}, nil))
	err = rp.Video.Download(t.Context(), res.VideoURL+".missing", &bytes.Buffer{}, nil)
	require.ErrorIs(t, err, errs.ErrNotFound)
	err = rp.Video.Download(t.Context(), "file:///etc/passwd", &bytes.Buffer{}, nil)
	require.ErrorIs(t, err, errs.ErrValidation)
}

// TestGenerateCancelledKeepsID (issue 26, item 1): a generation is
// submitted with /run and waited for by id, so a Ctrl-C while it runs
// returns a *serverless.WaitError with the paid job's id, which finds the
// job again.
func TestGenerateCancelledKeepsID(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithVideoDelay(time.Hour))
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var progress []video.Progress
	_, err = rp.Video.Generate(ctx, &video.Wan25Input{Prompt: "p", Image: image}, video.WaitOptions{
		Poll: option.Poll[video.Progress]{OnCheck: func(p video.Progress) {
			progress = append(progress, p)
			cancel() // Ctrl-C as soon as the job is accepted
		}}})
	require.ErrorIs(t, err, context.Canceled)
	var we *serverless.WaitError
	require.ErrorAs(t, err, &we, "the accepted job's id is kept")
	require.NotEmpty(t, progress)
	assert.Equal(t, progress[0].JobID, we.JobID)
	assert.Contains(t, err.Error(), we.JobID)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun), "submitted once, with /run")
	assert.Zero(t, srv.Count(runpodtest.RouteRunSync))

	job, err := rp.Serverless.Queue(string(video.ModelWan25)).Status(t.Context(), we.JobID)
	require.NoError(t, err, "the id finds the job")
	assert.False(t, job.Status.Terminal())
}

// TestWaitForAnEarlierGeneration: Service.Wait finds a generation by the id
// a cut-short Generate returned, without submitting (or paying) again.
func TestWaitForAnEarlierGeneration(t *testing.T) {
	srv, rp, _ := fixture.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	_, err := rp.Video.Generate(ctx, &video.Wan25Input{Prompt: "p", Image: image}, video.WaitOptions{
		Poll: option.Poll[video.Progress]{OnCheck: func(video.Progress) { cancel() }}})
	var we *serverless.WaitError
	require.ErrorAs(t, err, &we)
	res, err := rp.Video.Wait(t.Context(), video.ModelWan25, we.JobID, video.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, we.JobID, res.ID)
	assert.NotEmpty(t, res.VideoURL)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun), "not submitted again")

	_, err = rp.Video.Wait(t.Context(), "nope", "j-1", video.WaitOptions{})
	require.ErrorIs(t, err, errs.ErrValidation)
	_, err = rp.Video.Wait(t.Context(), video.ModelWan25, " ", video.WaitOptions{})
	require.ErrorIs(t, err, errs.ErrValidation)
}

// TestNewFromConfig: the video service works alone, built from a Config,
// and one built from a Config that does not validate fails every call
// with the validation error.
func TestNewFromConfig(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	cfg, err := option.NewConfig(srv.ClientOptions()...)
	require.NoError(t, err)
	res, err := video.NewFromConfig(cfg).Generate(t.Context(), &video.Wan25Input{Prompt: "p", Image: image}, video.WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, serverless.JobStatusCompleted, res.Status)

	n := len(srv.Requests())
	_, err = video.NewFromConfig(option.Config{}).Generate(t.Context(), &video.Wan25Input{Prompt: "p", Image: image}, video.WaitOptions{})
	require.ErrorIs(t, err, errs.ErrNoAPIKey)
	assert.Len(t, srv.Requests(), n, "nothing sent")
}
