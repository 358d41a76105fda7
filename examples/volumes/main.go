// Command volumes lists the account's network volumes, then takes a new
// one through its life: it creates it, grows it, shows that the platform
// refuses to shrink it, and deletes it.
//
//	go run ./examples/volumes                                 # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/volumes -confirm -dc EU-RO-1
//
// On your account the volume is billed for its size while it exists (a few
// seconds): the example runs there only with -confirm, and deletes the
// volume at the end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/volumes"
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

	if err := rp.Volumes.Delete(ctx, id); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	deleted = true
	fmt.Fprintln(w, "5. deleted")
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
