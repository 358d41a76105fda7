// Package video generates videos with the platform's public image-to-video
// models: typed and validated inputs, prices known before the call, and a
// typed result whose URL you can download.
//
//	res, err := rp.Video.Generate(ctx, &video.Wan25Input{
//		Prompt: "a red kite over the sea",
//		Image:  "https://example.com/kite.jpg",
//	}, video.WaitOptions{})
//	// res.VideoURL, res.Cost, res.ExpiresAt
//	err = rp.Video.Download(ctx, res.VideoURL, file, nil)
//
// The models are ModelWan25 (input *Wan25Input) and ModelWan22LoRA (input
// *Wan22LoRAInput). Inputs are checked before anything is sent, so no
// money is spent on a call that cannot succeed. Unset options take the
// platform's documented defaults, which the SDK sends explicitly; a value
// you set, false or 0 included, is sent as is. EstimateCost gives the
// price of an input before the call; Result.Cost is what the platform
// charged.
//
// Generate submits the job and gets its id first, then waits for the video
// (WaitOptions: Hold and Poll, whose OnCheck receives a Progress). A
// generation that fails is a *serverless.JobError; one the context cuts
// short (Ctrl-C, a deadline) is a *serverless.WaitError carrying the job's
// id, so the paid generation can be found again with
// rp.Serverless.Queue(string(model)).Wait. The video's URL works for
// URLLifetime (Result.ExpiresAt); Download copies it without sending a
// credential to the video host.
package video

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/transport"
	"github.com/runpodkit/runpod-go/internal/wait"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
)

// Model is a public video model's endpoint id.
type Model string

// The public image-to-video models.
const (
	// ModelWan25 is WAN 2.5 image-to-video, with optional prompt expansion; 480p,
	// 720p or 1080p, 5 or 10 seconds.
	ModelWan25 Model = "wan-2-5"
	// ModelWan22LoRA is WAN 2.2 image-to-video at 720p with LoRA adapters, 5 or
	// 8 seconds (image-to-video despite "t2v" in its id).
	ModelWan22LoRA Model = "wan-2-2-t2v-720-lora"
)

// URLLifetime is how long a generated video's URL stays valid.
const URLLifetime = 7 * 24 * time.Hour

// Input is a model's typed input: *Wan25Input or *Wan22LoRAInput.
type Input interface {
	// Model returns the endpoint the input is for.
	Model() Model
	// Validate checks the input against the model's rules.
	Validate() error
	// wire returns the "input" object with defaults applied.
	wire() any
}

// Result is a finished generation.
type Result struct {
	// ID is the generation's job id on the model's endpoint.
	ID string
	// Model is the model that made the video.
	Model Model
	// Status is the job's final status: always serverless.JobStatusCompleted, since
	// a generation that did not complete is an error.
	Status serverless.JobStatus
	// DelayTime is the time spent queued; ExecutionTime the time the model
	// took.
	DelayTime, ExecutionTime time.Duration
	// WorkerID is the worker that made the video, when the platform
	// reports it.
	WorkerID string
	// VideoURL is the generated MP4; it expires at ExpiresAt.
	VideoURL string
	// Cost is what the platform charged, in USD (authoritative; compare
	// EstimateCost).
	Cost float64
	// ExpiresAt is when VideoURL stops working: URLLifetime after the
	// generation finished.
	ExpiresAt time.Time
}

// Progress is what WaitOptions.Poll.OnCheck receives while a video generates.
type Progress struct {
	// JobID is the generation's job id: with it,
	// rp.Serverless.Queue(string(model)).Wait finds the job again after
	// the caller's context ended.
	JobID string
	// Status is the job's status at this check (IN_QUEUE, IN_PROGRESS, or
	// a final one).
	Status serverless.JobStatus
	// Elapsed is the time since Generate was called.
	Elapsed time.Duration
}

// WaitOptions tunes a generation.
type WaitOptions struct {
	// Hold is how long the platform holds each status read of the wait
	// (1 s to 300 s, at most 90 s used; 90 s when zero). The job is
	// submitted with /run, which answers with its id at once: a
	// generation takes minutes, so the id is never at risk for the price
	// of one round trip.
	Hold time.Duration
	// Poll tunes that wait: OnCheck is called with each status, for
	// progress display.
	Poll option.Poll[Progress]
}

// Service generates videos. Get it as runpod.Client.Video, or build one
// with NewFromConfig.
type Service struct {
	sl *serverless.Service
	t  *transport.Transport
}

// NewFromConfig returns the video service built from cfg (see
// option.NewConfig), for a program that uses video alone;
// runpod.NewClient builds one for Client.Video. A cfg that does not
// validate gives a service whose every call fails with the validation
// error, before anything is sent.
//
// Its generations run as jobs through a serverless service it builds from
// the same cfg (serverless.NewFromConfig), so that video works without the
// rest of the SDK; like every service built from cfg, that one shares
// cfg's connection pool and rate-limit Tracker (option.NewConfig makes
// both). Whether the platform serves status-sync, which a serverless
// service learns as it waits, is learnt by the video service on its own.
func NewFromConfig(cfg option.Config) *Service {
	return &Service{sl: serverless.NewFromConfig(cfg), t: transport.New(cfg)}
}

// Generate validates in, submits it to the model with /run, which answers
// with the job's id at once, and waits for the video by that id
// (status-sync). A generation that FAILED is a *serverless.JobError with
// the job id and the model's message; when ctx ends first (cancelled or
// past its deadline) the *serverless.WaitError carries the job id, and so
// does every later error. Only a cancellation during the /run request
// itself returns no id (errs.ErrOutcomeUnknown). Nothing is sent when in
// is invalid, and the request is never repeated after an ambiguous
// failure.
func (s *Service) Generate(ctx context.Context, in Input, o WaitOptions, opts ...option.RequestOption) (*Result, error) {
	if in == nil {
		return nil, fail.Invalid("input", "is nil")
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	q := s.sl.Queue(string(in.Model()))
	job, err := q.RunSync(ctx, serverless.RunParams{Input: in.wire()}, s.waitOptions(o, start), opts...)
	if err != nil {
		return nil, err
	}
	return result(in.Model(), job)
}

// Wait waits for a generation submitted earlier, by its job id on model's
// endpoint (the JobID of a *serverless.WaitError or of a Progress), and
// returns its result, as Generate would have. A generation that FAILED is a
// *serverless.JobError; when ctx ends first the *serverless.WaitError
// carries the job id again. Nothing is submitted, so nothing is charged
// again.
func (s *Service) Wait(ctx context.Context, model Model, jobID string, o WaitOptions, opts ...option.RequestOption) (*Result, error) {
	if model != ModelWan25 && model != ModelWan22LoRA {
		return nil, fail.Invalid("model", "want %s or %s, got %q", ModelWan25, ModelWan22LoRA, model)
	}
	if strings.TrimSpace(jobID) == "" {
		return nil, fail.Invalid("jobID", "is empty")
	}
	job, err := s.sl.Queue(string(model)).Wait(ctx, jobID, s.waitOptions(o, time.Now()), opts...)
	if err != nil {
		return nil, err
	}
	return result(model, job)
}

// waitOptions turns o into the serverless wait's options; Progress.Elapsed
// counts from start.
func (s *Service) waitOptions(o WaitOptions, start time.Time) serverless.WaitOptions {
	ro := serverless.WaitOptions{Hold: o.Hold, IDFirst: true, Poll: option.Poll[*serverless.Job]{Interval: o.Poll.Interval}}
	if o.Poll.OnCheck != nil {
		ro.Poll.OnCheck = func(j *serverless.Job) {
			wait.Saw(o.Poll, Progress{JobID: j.ID, Status: j.Status, Elapsed: time.Since(start)})
		}
	}
	return ro
}

// result reads a completed generation's job.
func result(model Model, job *serverless.Job) (*Result, error) {
	var out struct {
		VideoURL string  `json:"video_url"`
		Cost     float64 `json:"cost"`
	}
	if err := job.Decode(&out); err != nil {
		return nil, err
	}
	if out.VideoURL == "" {
		return nil, fmt.Errorf("runpod: video job %s completed without a video_url", job.ID)
	}
	return &Result{
		ID: job.ID, Model: model, Status: job.Status, DelayTime: job.DelayTime, ExecutionTime: job.ExecutionTime,
		WorkerID: job.WorkerID, VideoURL: out.VideoURL, Cost: out.Cost, ExpiresAt: time.Now().Add(URLLifetime),
	}, nil
}

// Download copies the video at rawURL into w, calling progress (when not
// nil) with the bytes done and the total (-1 when the server does not say).
// No credential is sent to the video host.
func (s *Service) Download(ctx context.Context, rawURL string, w io.Writer, progress func(done, total int64), opts ...option.RequestOption) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fail.Invalid("url", "want the http(s) URL of a generated video, got %q", rawURL)
	}
	req := &transport.Request{Method: http.MethodGet, URL: u, Route: "/{video}", Auth: transport.AuthNone, Idempotent: true,
		Header: http.Header{"Accept": {"video/mp4, */*"}}}
	resp, err := s.t.Do(ctx, req, opts...)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	total := resp.ContentLength
	var done int64
	buf := make([]byte, 256<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return fmt.Errorf("runpod: writing the video: %w", werr)
			}
			done += int64(n)
			if progress != nil {
				progress(done, total)
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return s.t.StreamError(req, resp.StatusCode, 0, fmt.Errorf("after %d bytes: %w", done, rerr))
		}
	}
	if total >= 0 && done != total {
		return s.t.StreamError(req, resp.StatusCode, 0, fmt.Errorf("got %d of %d bytes: %w", done, total, io.ErrUnexpectedEOF))
	}
	return nil
}

// validImage accepts an http(s) URL or a data URI.
func validImage(field, s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return fail.Invalid(field, "is required: the URL of the source image, or a data: URI")
	}
	if strings.HasPrefix(s, "data:") {
		meta, data, ok := strings.Cut(s[len("data:"):], ",")
		if !ok || data == "" || (meta != "" && !strings.HasPrefix(meta, "image/")) {
			return fail.Invalid(field, "want a data URI such as data:image/png;base64,…")
		}
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fail.Invalid(field, "want an http(s) URL or a data: URI, got %q", truncate(s))
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
