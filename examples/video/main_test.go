package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/video"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestVideoOffline(t *testing.T) {
	srv := demotest.Fake(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "v.mp4")
	var buf bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-duration", "10", "-size", "1920*1080", "-o", out}, &buf))
	got := buf.String()
	assert.Contains(t, got, "Generating with wan-2-5 (estimated $1.50)")
	assert.Contains(t, got, "IN_PROGRESS", "the progress shows the status while the video renders")
	assert.NotContains(t, got, "\r", "the output is not a terminal: no line is redrawn")
	assert.Contains(t, got, "charged $1.50")
	assert.Regexp(t, `\nVideo: http://localhost:\d+/videos/\S+\.mp4\n`, got)
	assert.Less(t, strings.Index(got, "Video: "), strings.Index(got, "Saved "+out), "the URL comes before the download")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "ftypisom", string(b[4:12]))
	assert.Len(t, b, runpodtest.VideoSize)
	assert.Equal(t, []string{"v.mp4"}, files(t, dir), "no temporary file is left")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun))
}

func TestVideoLoRA(t *testing.T) {
	demotest.Fake(t, runpodtest.WithVideoDelay(0))
	out := filepath.Join(t.TempDir(), "v.mp4")
	var buf bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-model", "wan-2-2-t2v-720-lora", "-duration", "8", "-o", out}, &buf))
	assert.Contains(t, buf.String(), "charged $0.56")
}

func TestVideoUsage(t *testing.T) {
	demotest.CheckUsage(t, run,
		[]string{"-duration", "7"},
		[]string{"-image", "beach.jpg"},
		[]string{"-model", "sora"},
		[]string{"-size", "640*640"},
		[]string{"-model", "wan-2-2-t2v-720-lora", "-duration", "10"},
		// The LoRA model ignores -size: a size given with it is a mistake,
		// not a 1080p video silently made at 720p.
		[]string{"-model", "wan-2-2-t2v-720-lora", "-size", "1920*1080"},
		[]string{"-o", "x.mp4", "stray"},
		[]string{"-o", ""},
		[]string{"-timeout", "-1s"},
		[]string{"-job", "j-1", "-prompt", "x"},
	)
	var ve *errs.ValidationError
	require.ErrorAs(t, run(t.Context(), []string{"-duration", "7"}, &bytes.Buffer{}), &ve, "the usage error keeps the SDK's validation error")
	assert.Equal(t, "Wan25Input.Duration", ve.Field)
}

func TestUnwritableOutputFailsBeforeSubmitting(t *testing.T) {
	srv := demotest.Fake(t)
	dir := t.TempDir()
	for _, out := range []string{
		filepath.Join(dir, "missing", "c.mp4"),
		"/nonexistent/dir/c.mp4",
	} {
		var buf bytes.Buffer
		err := run(t.Context(), []string{"-o", out}, &buf)
		require.ErrorContains(t, err, "-o "+out, out)
		assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
		assert.NotContains(t, buf.String(), "Generating", out)
	}
	assert.Zero(t, srv.Count("*"), "nothing was submitted, nor even connected to")
	assert.Empty(t, files(t, dir))
}

func TestFailedDownloadLeavesNoFile(t *testing.T) {
	srv := demotest.Fake(t, runpodtest.WithVideoDelay(0))
	// The video host answers with 5 of the 4096 bytes it announces, then
	// hangs up: a download cut in the middle.
	srv.FailNext(runpodtest.RouteVideoFile, 1, runpodtest.Fault{
		Status: http.StatusOK, Header: http.Header{"Content-Length": {"4096"}, "Content-Type": {"video/mp4"}}, Body: "\x00\x00\x00\x18",
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "c.mp4")
	var buf bytes.Buffer
	err := run(t.Context(), []string{"-o", out}, &buf)
	require.Error(t, err)
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.ErrorContains(t, err, "saving "+out)
	assert.ErrorContains(t, err, "download the video from its URL above")
	got := buf.String()
	assert.Contains(t, got, "charged $0.50", "the cost is printed before the download")
	assert.Regexp(t, `\nVideo: http://localhost:\d+/videos/\S+\.mp4\n`, got, "and so is the URL")
	assert.Empty(t, files(t, dir), "no partial file, no temporary file")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun), "the video was generated (and paid for) once")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteVideoFile))
}

func TestVideoToCharDevice(t *testing.T) {
	demotest.Fake(t, runpodtest.WithVideoDelay(0))
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	require.True(t, demo.IsTerminal(null))
	require.NoError(t, run(t.Context(), []string{"-o", filepath.Join(t.TempDir(), "v.mp4")}, null))
}

func TestProgress(t *testing.T) {
	checks := []video.Progress{
		{JobID: "j1", Status: serverless.JobStatusInQueue},
		{JobID: "j1", Status: serverless.JobStatusInProgress},
		{JobID: "j1", Status: serverless.JobStatusInProgress},
		{JobID: "j1", Status: serverless.JobStatusInProgress},
	}
	show := func(tty bool) string {
		var buf bytes.Buffer
		p := &progress{w: &buf, tty: tty}
		for _, c := range checks {
			p.check(c)
		}
		p.end()
		save := p.saving("v.mp4")
		save(50, 100)
		save(100, 100)
		p.end()
		return buf.String()
	}

	plain := show(false)
	assert.NotContains(t, plain, "\r")
	assert.Equal(t, 2, strings.Count(plain, "\n"), "a line per status change, none for the download")
	assert.Equal(t, 1, strings.Count(plain, "IN_PROGRESS"))

	tty := show(true)
	assert.Equal(t, 6, strings.Count(tty, "\r"), "each check and each chunk redraws the line")
	assert.Contains(t, tty, "\r  saving v.mp4: 100%\n")
	assert.Equal(t, 2, strings.Count(tty, "\n"), "each redrawn line is ended once")
}

// TestOutputThatIsNotARegularFile (issue 26, item 15): -o ” and -o onto
// a directory, a symbolic link, a FIFO or a device are refused (exit 2)
// before anything is sent, and what is there is left as it was.
func TestOutputThatIsNotARegularFile(t *testing.T) {
	srv := demotest.Fake(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target.mp4")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	link := filepath.Join(dir, "link.mp4")
	require.NoError(t, os.Symlink(target, link))
	dangling := filepath.Join(dir, "dangling.mp4")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), dangling))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, out := range []string{"", dir, link, dangling, fifo, os.DevNull} {
		var buf bytes.Buffer
		err := run(t.Context(), []string{"-o", out}, &buf)
		require.Error(t, err, "%q", out)
		assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "%q: %v", out, err)
		assert.NotContains(t, buf.String(), "Generating", out)
	}
	assert.Zero(t, srv.Count("*"), "nothing was submitted, nor even connected to")
	for _, p := range []string{link, dangling} {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "%s is still a link", p)
	}
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeNamedPipe, "the FIFO is still a FIFO")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(b))
}

// TestTimeoutPrintsTheJob (issue 26, item 1): a wait cut by -timeout
// names the accepted job and the command that fetches its video later;
// that command saves the video without generating it again.
func TestTimeoutPrintsTheJob(t *testing.T) {
	srv := demotest.Fake(t, runpodtest.WithVideoDelay(time.Hour))
	out := filepath.Join(t.TempDir(), "v.mp4")
	err := run(t.Context(), []string{"-timeout", "300ms", "-o", out}, io.Discard)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	var we *serverless.WaitError
	require.ErrorAs(t, err, &we)
	require.NotEmpty(t, we.JobID)
	assert.Contains(t, err.Error(), "job "+we.JobID+" was accepted")
	assert.Contains(t, err.Error(), "video -model wan-2-5 -job "+we.JobID+" -o "+out)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun))
}

// TestInterruptPrintsTheJob (issue 26, item 1): Ctrl-C while the video
// renders prints the job's id, and -job fetches it later.
func TestInterruptPrintsTheJob(t *testing.T) {
	srv := demotest.Fake(t, runpodtest.WithVideoDelay(200*time.Millisecond))
	out := filepath.Join(t.TempDir(), "v.mp4")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// Ctrl-C once the wait has begun (the platform answered /run).
		for srv.Count(runpodtest.RouteStatus)+srv.Count(runpodtest.RouteStatusSync) == 0 && ctx.Err() == nil {
			runtime.Gosched()
		}
		cancel()
	}()
	err := run(ctx, []string{"-o", out}, io.Discard)
	require.ErrorIs(t, err, context.Canceled)
	var we *serverless.WaitError
	require.ErrorAs(t, err, &we)
	assert.Contains(t, err.Error(), "-job "+we.JobID)

	var buf bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-job", we.JobID, "-o", out}, &buf))
	assert.Contains(t, buf.String(), "Saved "+out)
	assert.Equal(t, 1, srv.Count(runpodtest.RouteRun), "fetched, not generated (nor paid for) again")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Len(t, b, runpodtest.VideoSize)
}
