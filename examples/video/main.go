// Command video generates a video from an image with a public model,
// showing a live progress line, then prints the cost and saves the MP4.
//
//	go run ./examples/video                                  # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/video -image https://…/photo.jpg -prompt "…" -o out.mp4
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/video"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout)
	var ve *runpod.ValidationError
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ve):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	case err != nil:
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("video", flag.ContinueOnError)
	model := fs.String("model", string(video.Wan25), "wan-2-5 or wan-2-2-t2v-720-lora")
	prompt := fs.String("prompt", "the camera slowly pushes in as waves roll onto the beach", "what should happen")
	image := fs.String("image", "https://example.com/beach.jpg", "source image: URL or data: URI")
	size := fs.String("size", string(video.Size720p), "wan-2-5 size, W*H")
	duration := fs.Int("duration", 5, "seconds: 5 or 10 (wan-2-5), 5 or 8 (LoRA model)")
	out := fs.String("o", "video.mp4", "where to save the MP4")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var in video.Input
	switch video.Model(*model) {
	case video.Wan25:
		in = &video.Wan25Input{Prompt: *prompt, Image: *image, Size: video.Size(*size), Duration: *duration}
	case video.Wan22LoRA:
		in = &video.Wan22LoRAInput{Prompt: *prompt, Image: *image, Duration: *duration}
	default:
		return &runpod.ValidationError{Field: "-model", Message: fmt.Sprintf("want %s or %s, got %q", video.Wan25, video.Wan22LoRA, *model)}
	}
	estimate, err := video.EstimateCost(in.Model(), in)
	if err != nil {
		return err
	}

	s, err := demo.Connect(w, runpod.WithUserAgent("runpod-video-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(w, "Generating with %s (estimated $%.2f)\n", in.Model(), estimate)
	res, err := s.Client.Video.Generate(ctx, in, video.WaitOptions{
		Hold: time.Second,
		Poll: runpod.Poll[video.Progress]{
			Interval: 250 * time.Millisecond,
			OnCheck: func(p video.Progress) {
				fmt.Fprintf(w, "\r  %6.1fs  %-12s %s", p.Elapsed.Seconds(), p.Status, p.JobID)
			},
		},
	})
	fmt.Fprintln(w)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Done in %s (queued %s): charged $%.2f\n", res.ExecutionTime, res.DelayTime, res.Cost)
	fmt.Fprintf(w, "URL valid until %s\n", res.ExpiresAt.UTC().Format(time.RFC1123))

	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	err = s.Client.Video.Download(ctx, res.VideoURL, f, func(done, total int64) {
		if total > 0 {
			fmt.Fprintf(w, "\r  saving %s: %3d%%", *out, done*100/total)
		}
	})
	fmt.Fprintln(w)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Saved %s\n", *out)
	return nil
}
