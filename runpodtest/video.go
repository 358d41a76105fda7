package runpodtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
)

// videoUnit holds the generated video files and how long a generation
// takes.
type videoUnit struct {
	mu    sync.Mutex
	files map[string][]byte
	delay time.Duration
}

// The public video models the fake serves, and the route of the files it
// generates (no credential, like the platform's video host).
const (
	ModelWan25     = "wan-2-5"
	ModelWan22LoRA = "wan-2-2-t2v-720-lora"
	RouteVideoFile = "GET /videos/{file}"
)

// WithVideoDelay makes each fake video generation take d (default 0).
func WithVideoDelay(d time.Duration) Option { return func(s *Server) { s.video.delay = d } }

// VideoSize is the size of the MP4 files the fake generates.
const VideoSize = 512 << 10

func (s *Server) registerVideo() {
	s.serveQueue(ModelWan25, publicModel(s.wan25), []QueueOption{WithWorkers(4), WithFailureStatus(http.StatusBadRequest)})
	s.serveQueue(ModelWan22LoRA, publicModel(s.wan22LoRA), []QueueOption{WithWorkers(4), WithFailureStatus(http.StatusBadRequest)})
	s.Handle(Route{Pattern: RouteVideoFile, Inference: true, Public: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.video.mu.Lock()
		b, ok := s.video.files[r.PathValue("file")]
		s.video.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		http.ServeContent(w, r, r.PathValue("file"), time.Time{}, bytes.NewReader(b))
	}))
}

// wan25 checks a WAN 2.5 input as the model does, applies its defaults and
// prices the video.
func (s *Server) wan25(ctx context.Context, id string, input json.RawMessage) (any, error) {
	var in struct {
		Prompt   string  `json:"prompt"`
		Image    string  `json:"image"`
		Size     *string `json:"size"`
		Duration *int    `json:"duration"`
		Seed     *int    `json:"seed"`
	}
	if err := decodeVideoInput(input, &in.Prompt, &in.Image, &in); err != nil {
		return nil, err
	}
	size, duration := "1280*720", 5
	if in.Size != nil {
		size = *in.Size
	}
	if in.Duration != nil {
		duration = *in.Duration
	}
	fivePrice := map[string]float64{"832*480": 0.25, "480*832": 0.25, "1280*720": 0.50, "720*1280": 0.50, "1920*1080": 0.75, "1080*1920": 0.75}
	price, ok := fivePrice[size]
	switch {
	case !ok:
		return nil, fmt.Errorf("unsupported size %q", size)
	case duration != 5 && duration != 10:
		return nil, fmt.Errorf("duration must be 5 or 10, got %d", duration)
	}
	return s.generate(ctx, id, price*float64(duration)/5)
}

// wan22LoRA checks a WAN 2.2 LoRA input and prices the video.
func (s *Server) wan22LoRA(ctx context.Context, id string, input json.RawMessage) (any, error) {
	var in struct {
		Prompt   string `json:"prompt"`
		Image    string `json:"image"`
		Duration *int   `json:"duration"`
		HighLoRA []struct {
			Path  string   `json:"path"`
			Scale *float64 `json:"scale"`
		} `json:"high_noise_loras"`
		LowLoRA []struct {
			Path  string   `json:"path"`
			Scale *float64 `json:"scale"`
		} `json:"low_noise_loras"`
	}
	if err := decodeVideoInput(input, &in.Prompt, &in.Image, &in); err != nil {
		return nil, err
	}
	for _, l := range append(in.HighLoRA, in.LowLoRA...) {
		if l.Path == "" || l.Scale == nil {
			return nil, errors.New("every LoRA needs a path and a scale")
		}
	}
	duration := 5
	if in.Duration != nil {
		duration = *in.Duration
	}
	price := map[int]float64{5: 0.35, 8: 0.56}[duration]
	if price == 0 {
		return nil, fmt.Errorf("duration must be 5 or 8, got %d", duration)
	}
	return s.generate(ctx, id, price)
}

// decodeVideoInput decodes and checks what both models share. A prompt
// containing "unsafe" trips the safety checker (when it is on), so tests
// can reach the FAILED path.
func decodeVideoInput(raw json.RawMessage, prompt, image *string, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid input: %v", err)
	}
	var safety struct {
		On *bool `json:"enable_safety_checker"`
	}
	_ = json.Unmarshal(raw, &safety)
	if (safety.On == nil || *safety.On) && strings.Contains(*prompt, "unsafe") {
		return errors.New("the safety checker flagged the prompt")
	}
	if strings.TrimSpace(*prompt) == "" {
		return errors.New("prompt is required")
	}
	if !strings.HasPrefix(*image, "http://") && !strings.HasPrefix(*image, "https://") && !strings.HasPrefix(*image, "data:") {
		return errors.New("image must be a URL or a data URI")
	}
	return nil
}

// generate waits the configured delay, stores a small MP4 and answers
// with its URL and price.
func (s *Server) generate(ctx context.Context, jobID string, cost float64) (any, error) {
	select {
	case <-time.After(s.video.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	file := strings.TrimSuffix(jobID, "-u1") + ".mp4"
	s.video.mu.Lock()
	s.video.files[file] = fakeMP4(jobID)
	s.video.mu.Unlock()
	return map[string]any{"video_url": s.InferenceURL + "/videos/" + file, "cost": cost}, nil
}

// publicModel runs a model of the platform's own public endpoints: its
// error text is the job's error as it is (public endpoints do not wrap it
// the way the worker runtime does), its return value the output. ctx ends
// when the job is cancelled or times out.
func publicModel(model func(ctx context.Context, id string, input json.RawMessage) (any, error)) runner {
	return func(ctx context.Context, _ *jobqueue.Queue, t jobqueue.Taken) jobqueue.Result {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(t.Stopped, cancel)()
		out, err := model(ctx, t.ID, t.Input)
		if err != nil {
			return jobqueue.Result{Error: err.Error()}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return jobqueue.Result{Error: "the output is not JSON: " + err.Error()}
		}
		return jobqueue.Result{Output: b}
	}
}

// fakeMP4 returns VideoSize bytes that begin like an MP4 file (an ftyp
// box) and differ per job.
func fakeMP4(seed string) []byte {
	b := make([]byte, VideoSize)
	binary.BigEndian.PutUint32(b[0:4], 24)
	copy(b[4:], "ftypisom\x00\x00\x02\x00isomiso2")
	for i := 24; i < len(b); i++ {
		b[i] = seed[i%len(seed)] ^ byte(i)
	}
	return b
}
