// Command volumes lists the account's network volumes, then takes a new
// one through its life: it creates it, grows it, shows that the platform
// refuses to shrink it, puts files on it without a pod (uploads a
// directory, lists it, downloads one file, syncs the directory back), and
// deletes it.
//
//	go run ./examples/volumes                                 # on the built-in fake platform
//	RUNPOD_API_KEY=… RUNPOD_S3_ACCESS_KEY=user_… RUNPOD_S3_SECRET_KEY=rps_… \
//	    go run ./examples/volumes -confirm -dc EU-RO-1 -dir ./my-files
//
// On your account the volume is billed for its size while it exists (a few
// seconds): the example runs there only with -confirm, and deletes the
// volume at the end. The files go through the platform's S3-compatible
// API, which takes an S3 API key made in the console's settings (not the
// API key); without one, or in a data center without the S3 API, the
// file steps are skipped and say why.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/volumes"
	"github.com/runpodkit/runpod-go/volumes/files"
)

func main() { demo.Main(run) }

// run parses args, lists the volumes and takes a new one from creation to
// deletion.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("volumes", flag.ContinueOnError)
	dc := fs.String("dc", "EU-RO-1", "data center to create the volume in")
	size := fs.Int("size", volumes.MinSize, fmt.Sprintf("size of the new volume in GB (%d to %d)", volumes.MinSize, volumes.MaxSize))
	grow := fs.Int("grow", 0, fmt.Sprintf("size in GB to grow it to, from -size to %d (default twice -size)", volumes.MaxSize))
	tier := fs.String("type", "", "storage tier: STANDARD or HIGH_PERFORMANCE (default: the data center's primary tier)")
	confirm := fs.Bool("confirm", false, "create a (billed) network volume on your account")
	dir := fs.String("dir", "", "local directory to upload (default: a few sample files made in a temporary directory)")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	req := volumes.CreateNetworkVolumeRequest{Name: "runpod-go-example", Size: *size, DataCenter: *dc}
	if *tier != "" {
		req.Type = runpod.Ptr(volumes.VolumeType(*tier))
	}
	if !demo.IsSet(fs, "grow") {
		*grow = min(2**size, volumes.MaxSize)
	}
	if err := checkFlags(req, *grow); err != nil {
		return demo.Usage(err)
	}
	if *dir != "" {
		if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
			return demo.Usage(&errs.ValidationError{Field: "-dir", Message: fmt.Sprintf("%q is not a directory", *dir)})
		}
	}
	if demo.Online() && !*confirm {
		return demo.Usagef("this creates a billed network volume on your account; run again with -confirm")
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-volumes-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	list, err := rp.Volumes.List(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "1. network volumes: %d\n", len(list))
	for _, v := range list {
		fmt.Fprintf(w, "   %s %-16s %5d GB  %-8s %s\n", v.ID, v.Name, v.Size, v.DataCenter, v.Type)
	}

	vol, err := rp.Volumes.Create(ctx, req)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(w, "2. created volume %s (%s, %d GB in %s, %s)\n", vol.ID, vol.Name, vol.Size, vol.DataCenter, vol.Type)
	id, deleted := vol.ID, false
	defer func() { // delete it whatever happens
		if deleted {
			return
		}
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Volumes.Delete(cleanup, id); err != nil && !errors.Is(err, errs.ErrNotFound) {
			fmt.Fprintf(w, "   could not delete volume %s: %v\n", id, err)
		}
	}()

	vol, err = rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: grow})
	if err != nil {
		return fmt.Errorf("grow: %w", err)
	}
	fmt.Fprintf(w, "3. grown to %d GB\n", vol.Size)

	// A volume never shrinks. The old size is within the document's
	// range, so the SDK sends it, and the platform refuses it.
	if vol.Size > *size {
		_, err = rp.Volumes.Update(ctx, id, volumes.UpdateNetworkVolumeRequest{Size: size})
		var apiErr *errs.APIError
		switch {
		case errors.As(err, &apiErr) && apiErr.StatusCode == 400:
			fmt.Fprintf(w, "4. shrinking back to %d GB is refused (400): %s\n", *size, problemText(apiErr))
		case err != nil:
			return fmt.Errorf("shrink: %w", err)
		default:
			fmt.Fprintf(w, "4. the platform shrank the volume back to %d GB (it used to refuse)\n", *size)
		}
	}

	if err := putFiles(ctx, w, rp, id, *dir); err != nil {
		return err
	}

	if err := rp.Volumes.Delete(ctx, id); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	deleted = true
	fmt.Fprintln(w, "9. deleted")
	return nil
}

// putFiles uploads a directory to the volume, lists it, downloads one
// file and syncs the directory back into a new one (steps 5 to 8).
func putFiles(ctx context.Context, w io.Writer, rp *runpod.Client, id, dir string) error {
	vol, err := files.NewFromConfig(rp.Config()).Volume(ctx, id)
	switch {
	case errors.Is(err, files.ErrNoS3Credentials), errors.Is(err, files.ErrNoS3API):
		fmt.Fprintf(w, "5-8. files skipped: %v\n", err)
		return nil
	case err != nil:
		return fmt.Errorf("files: %w", err)
	}
	work, err := os.MkdirTemp("", "runpod-volumes-example-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if dir == "" {
		dir = filepath.Join(work, "upload")
		if err := writeSamples(dir); err != nil {
			return err
		}
	}

	const prefix = "runpod-go-example/"
	up, err := vol.Sync(ctx, files.DirectionToVolume, dir, prefix)
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	fmt.Fprintf(w, "5. uploaded %d file(s), %d bytes, to %s\n", len(up.Actions), up.Bytes, vol.URL(prefix))

	var first string
	n := 0
	for e, err := range vol.List(ctx, prefix) {
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		if n++; first == "" && !e.Dir {
			first = e.Key
		}
		fmt.Fprintf(w, "   %-40s %8d bytes  (on a pod: %s)\n", e.Key, e.Size, files.PodPath(e.Key))
	}
	fmt.Fprintf(w, "6. listed %d entries under %s\n", n, prefix)

	if first != "" {
		local := filepath.Join(work, "one-file")
		e, err := vol.Download(ctx, local, first)
		if err != nil {
			return fmt.Errorf("download: %w", err)
		}
		fmt.Fprintf(w, "7. downloaded %s (%d bytes, ETag %s)\n", e.Key, e.Size, e.ETag)
	}

	back := filepath.Join(work, "synced-back")
	down, err := vol.Sync(ctx, files.DirectionFromVolume, back, prefix)
	if err != nil {
		return fmt.Errorf("sync back: %w", err)
	}
	again, err := vol.Sync(ctx, files.DirectionFromVolume, back, prefix, files.DryRun())
	if err != nil {
		return fmt.Errorf("sync back: %w", err)
	}
	fmt.Fprintf(w, "8. synced back: %d file(s) downloaded; a second sync would change %d\n", len(down.Actions), len(again.Actions))
	return nil
}

// writeSamples makes a small directory tree to upload.
func writeSamples(dir string) error {
	samples := map[string]string{
		"config.json":      `{"model": "example", "epochs": 3}` + "\n",
		"data/train.txt":   strings.Repeat("a training example\n", 200),
		"data/eval.txt":    strings.Repeat("an evaluation example\n", 50),
		"notes/README.txt": "Uploaded by runpod-go's volumes example.\n",
	}
	for name, body := range samples {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkFlags checks the command line before anything is sent, naming the
// flag at fault.
func checkFlags(req volumes.CreateNetworkVolumeRequest, grow int) error {
	flags := map[string]string{
		"CreateNetworkVolumeRequest.Size": "-size", "CreateNetworkVolumeRequest.DataCenter": "-dc",
		"CreateNetworkVolumeRequest.Type": "-type",
	}
	if err := req.Validate(); err != nil {
		var ve *errs.ValidationError
		if errors.As(err, &ve) && flags[ve.Field] != "" {
			return &errs.ValidationError{Field: flags[ve.Field], Message: ve.Message}
		}
		return err
	}
	if grow < req.Size || grow > volumes.MaxSize {
		return &errs.ValidationError{Field: "-grow", Message: fmt.Sprintf("must be %d (-size) to %d GB, got %d", req.Size, volumes.MaxSize, grow)}
	}
	return nil
}

// problemText is what a problem says: its detail and the fields it names.
func problemText(e *errs.APIError) string {
	if len(e.Errors) == 0 {
		return e.Detail
	}
	return strings.Join(e.Errors, "; ")
}
