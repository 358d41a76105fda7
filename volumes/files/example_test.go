package files_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// Put a file on a network volume without a pod, list the volume, read
// part of the file back and download it, on the fake platform.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve())
	defer srv.Close()
	rp, _ := srv.NewClient() // the fake's API key and S3 API key
	ctx := context.Background()
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: "models", DataCenter: "EU-RO-1"})

	vol, err := files.NewFromConfig(rp.Config()).Volume(ctx, id) // finds the volume's data center
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "files-example")
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "notes.txt")
	_ = os.WriteFile(local, []byte("weights go in models/\n"), 0o644)

	e, err := vol.Upload(ctx, local, "docs/notes.txt")
	fmt.Println(e.Key, e.Size, err)

	for e, err := range vol.List(ctx, "") {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(files.PodPath(e.Key), files.WorkerPath(e.Key), vol.URL(e.Key) == "s3://"+id+"/"+e.Key)
	}

	r, _ := vol.Read(ctx, "docs/notes.txt", 0, 7)
	b, _ := io.ReadAll(r)
	r.Close()
	fmt.Printf("%q\n", b)

	_, err = vol.Download(ctx, filepath.Join(dir, "copy.txt"), "docs/notes.txt")
	fmt.Println(err)
	// Output:
	// docs/notes.txt 22 <nil>
	// /workspace/docs/notes.txt /runpod-volume/docs/notes.txt true
	// "weights"
	// <nil>
}

// Key turns the path a pod or a worker sees, or an s3:// URL, into the
// object key.
func ExampleKey() {
	for _, p := range []string{"/workspace/models/a.gguf", "/runpod-volume/models/a.gguf", "s3://k7m2q9x4vd/models/a.gguf", "/etc/passwd"} {
		key, err := files.Key(p)
		fmt.Printf("%q %v\n", key, err != nil)
	}
	// Output:
	// "models/a.gguf" false
	// "models/a.gguf" false
	// "models/a.gguf" false
	// "" true
}

// Sync a local directory to the volume, seeing the plan first.
func ExampleVolume_Sync() {
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-KS-2"})
	vol, _ := files.NewFromConfig(rp.Config()).Volume(ctx, id)

	dir, _ := os.MkdirTemp("", "sync-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "train.jsonl"), []byte(strings.Repeat("{}\n", 100)), 0o644)

	plan, _ := vol.Sync(ctx, files.DirectionToVolume, dir, "datasets", files.DryRun())
	for _, a := range plan.Actions {
		fmt.Println(a.Op, a.Key, a.Reason)
	}
	report, err := vol.Sync(ctx, files.DirectionToVolume, dir, "datasets")
	fmt.Println(len(report.Actions), report.Bytes, err)
	again, _ := vol.Sync(ctx, files.DirectionToVolume, dir, "datasets")
	fmt.Println(len(again.Actions), again.Skipped)
	// Output:
	// upload datasets/train.jsonl missing
	// 1 300 <nil>
	// 0 1
}

// A volume in a data center without the S3 API is refused before any S3
// request.
func ExampleDataCenterError() {
	srv := runpodtest.NewServer(contract.Check(), fakes3.Serve())
	defer srv.Close()
	rp, _ := srv.NewClient()
	id := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-TX-3"})
	_, err := files.NewFromConfig(rp.Config()).Volume(context.Background(), id)
	var dcErr *files.DataCenterError
	fmt.Println(errors.Is(err, files.ErrNoS3API), errors.As(err, &dcErr) && dcErr.DataCenter == "US-TX-3")
	// Output: true true
}
