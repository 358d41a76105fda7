// Command video generates a video from an image with a public model,
// showing its progress, then prints the cost and the video's URL and saves
// the MP4.
//
//	go run ./examples/video                                  # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/video -image https://…/photo.jpg -prompt "…" -o out.mp4
//
// On your account a generation is charged (see -h for the models; the
// estimate is printed first). Everything that can be checked is checked
// before the job is submitted: the flags, and that the -o file can be
// written. Once the video is paid for, its URL is printed before the
// download, so a failed download loses nothing: the URL stays valid for
// a week. A failed download leaves no partial file.
//
// The job's id comes back before the wait: when the wait is cut short
// (Ctrl-C, -timeout), the id is printed with the command that fetches the
// video later without paying again (-job).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/video"
)

func main() { demo.Main(run) }

// run parses args, checks the inputs and the output file, generates the
// video and saves it.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("video", flag.ContinueOnError)
	model := fs.String("model", string(video.ModelWan25), fmt.Sprintf("%s ($0.25 to $1.50 by size and duration) or %s ($0.35 for 5 s, $0.56 for 8 s)", video.ModelWan25, video.ModelWan22LoRA))
	prompt := fs.String("prompt", "the camera slowly pushes in as waves roll onto the beach", "what should happen")
	image := fs.String("image", "https://example.com/beach.jpg", "source image: URL or data: URI")
	size := fs.String("size", string(video.Size720p), "video size W*H, wan-2-5 only (the LoRA model makes 1280*720)")
	duration := fs.Int("duration", 5, "seconds: 5 or 10 (wan-2-5), 5 or 8 (LoRA model)")
	out := fs.String("o", "video.mp4", "where to save the MP4 (a new or regular file)")
	jobID := fs.String("job", "", "fetch the video of a generation submitted earlier (its job id), instead of generating one")
	timeout := fs.Duration("timeout", 0, "give up waiting after this long (0: no limit); the job's id is printed")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}

	// 1. The flags, before anything else.
	if *timeout < 0 {
		return demo.Usagef("-timeout: want a positive duration or 0, got %s", *timeout)
	}
	if *jobID != "" {
		for _, name := range []string{"prompt", "image", "size", "duration"} {
			if demo.IsSet(fs, name) {
				return demo.Usagef("-%s does not go with -job: the video of job %s is already being made", name, *jobID)
			}
		}
	}
	var in video.Input
	switch video.Model(*model) {
	case video.ModelWan25:
		in = &video.Wan25Input{Prompt: *prompt, Image: *image, Size: video.Size(*size), Duration: *duration}
	case video.ModelWan22LoRA:
		if demo.IsSet(fs, "size") {
			return demo.Usagef("-size applies to %s only: %s always makes 1280*720 video", video.ModelWan25, video.ModelWan22LoRA)
		}
		in = &video.Wan22LoRAInput{Prompt: *prompt, Image: *image, Duration: *duration}
	default:
		return demo.Usage(&errs.ValidationError{Field: "-model", Message: fmt.Sprintf("want %s or %s, got %q", video.ModelWan25, video.ModelWan22LoRA, *model)})
	}
	estimate, err := video.EstimateCost(in.Model(), in) // validates in
	if err != nil && *jobID == "" {
		return demo.Usage(err)
	}

	// 2. The output: a temporary file beside it, renamed into place once
	// the download is complete. Creating it now proves the directory is
	// writable before the video is paid for.
	dst, err := createOutput(*out)
	if err != nil {
		return err
	}
	defer dst.discard()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}

	// 3. Generate: this is where the money is spent.
	s, err := demo.Connect(w, option.WithUserAgent("runpod-video-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	p := &progress{w: w, tty: demo.IsTerminal(w)}
	wo := video.WaitOptions{
		Hold: time.Second,
		Poll: option.Poll[video.Progress]{Interval: 250 * time.Millisecond, OnCheck: p.check},
	}
	var res *video.Result
	if *jobID != "" {
		fmt.Fprintf(w, "Waiting for job %s on %s\n", *jobID, in.Model())
		res, err = s.Client.Video.Wait(ctx, in.Model(), *jobID, wo)
	} else {
		fmt.Fprintf(w, "Generating with %s (estimated $%.2f)\n", in.Model(), estimate)
		res, err = s.Client.Video.Generate(ctx, in, wo)
	}
	p.end()
	if err != nil {
		return comeBack(err, in.Model(), *out)
	}

	// 4. What was paid for, before anything else can fail.
	fmt.Fprintf(w, "Done in %s (queued %s): charged $%.2f\n", res.ExecutionTime, res.DelayTime, res.Cost)
	fmt.Fprintf(w, "Video: %s\n", res.VideoURL)
	fmt.Fprintf(w, "       (valid until %s)\n", res.ExpiresAt.UTC().Format(time.RFC1123))

	// 5. Download.
	err = s.Client.Video.Download(ctx, res.VideoURL, dst.f, p.saving(*out))
	p.end()
	if err == nil {
		err = dst.commit()
	}
	if err != nil {
		return fmt.Errorf("saving %s: %w (nothing was saved; download the video from its URL above until %s)",
			*out, err, res.ExpiresAt.UTC().Format(time.RFC1123))
	}
	fmt.Fprintf(w, "Saved %s\n", *out)
	return nil
}

// comeBack adds to err, when the platform had accepted the job, its id
// and the command that fetches the video later without generating (and
// paying for) it again.
func comeBack(err error, model video.Model, out string) error {
	var we *serverless.WaitError
	if !errors.As(err, &we) || we.JobID == "" {
		return err
	}
	return fmt.Errorf("%w\njob %s was accepted and may still be running (and charged); fetch its video later with:\n  video -model %s -job %s -o %s",
		err, we.JobID, model, we.JobID, out)
}

// output is a temporary file in the directory of the file it will become.
type output struct {
	f    *os.File
	path string // the final path
	done bool
}

// createOutput checks that path can be written, and creates the
// temporary file that will become it. path must be new or a regular
// file: a directory, a symbolic link, a FIFO or a device is refused (a
// usage error) rather than replaced by a regular file.
func createOutput(path string) (*output, error) {
	if path == "" {
		return nil, demo.Usagef("-o: want the name of the MP4 file to write, got an empty name")
	}
	if err := checkOutput(path); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name means nothing to the user
		}
		return nil, fmt.Errorf("-o %s: cannot write there: %w", path, err)
	}
	return &output{f: f, path: path}, nil
}

// commit closes the temporary file and renames it to the final path.
func (o *output) commit() error {
	if err := o.f.Chmod(0o644); err != nil {
		return err
	}
	if err := o.f.Close(); err != nil {
		return err
	}
	if err := checkOutput(o.path); err != nil { // it may have changed since
		return errors.Unwrap(err) // a failure now, not a usage error
	}
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		return err
	}
	o.done = true
	return nil
}

// checkOutput refuses path when it exists and is not a regular file (the
// link itself, not its target, is checked).
func checkOutput(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil // new (or unreachable: creating the temporary file tells)
	}
	var what string
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	default:
		what = "not a regular file"
	}
	return demo.Usagef("-o %s: is %s; the video is written only to a new or regular file", path, what)
}

// discard removes the temporary file, unless it was committed.
func (o *output) discard() {
	if !o.done {
		_ = o.f.Close()
		_ = os.Remove(o.f.Name())
	}
}

// progress shows a generation and a download advancing: on a terminal, in
// one line redrawn with \r; elsewhere (a pipe, a file, a log) as a plain
// line per status change, and the download not at all.
type progress struct {
	w    io.Writer
	tty  bool
	last serverless.JobStatus
	open bool // a \r line is on screen, not ended yet
}

// check shows one status check of the generation.
func (p *progress) check(pr video.Progress) {
	if p.tty {
		fmt.Fprintf(p.w, "\r  %6.1fs  %-12s %s", pr.Elapsed.Seconds(), pr.Status, pr.JobID)
		p.open = true
		return
	}
	if pr.Status != p.last {
		fmt.Fprintf(p.w, "  %-12s after %.1fs (job %s)\n", pr.Status, pr.Elapsed.Seconds(), pr.JobID)
		p.last = pr.Status
	}
}

// saving returns the download's progress callback for the file name.
func (p *progress) saving(name string) func(done, total int64) {
	return func(done, total int64) {
		if p.tty && total > 0 {
			fmt.Fprintf(p.w, "\r  saving %s: %3d%%", name, done*100/total)
			p.open = true
		}
	}
}

// end ends the line being redrawn, if any.
func (p *progress) end() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
