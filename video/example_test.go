package video_test

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/video"
)

// Price a generation, run it, and download the video.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	in := &video.Wan25Input{
		Prompt: "a red kite over the sea",
		Image:  "https://example.com/kite.jpg",
		Size:   video.Size720p,
	}
	estimate, err := video.EstimateCost(in.Model(), in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("estimate $%.2f\n", estimate)

	res, err := rp.Video.Generate(ctx, in, video.WaitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Model, res.Status, time.Until(res.ExpiresAt) > 6*24*time.Hour)

	var mp4 bytes.Buffer
	if err := rp.Video.Download(ctx, res.VideoURL, &mp4, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("charged $%.2f for %d bytes\n", res.Cost, mp4.Len())
	// Output:
	// estimate $0.50
	// wan-2-5 COMPLETED true
	// charged $0.50 for 524288 bytes
}

// Prices are known before any call.
func ExampleEstimateCost() {
	in := &video.Wan25Input{Prompt: "a kite over the sea", Image: "https://example.com/kite.jpg", Size: video.Size1080p, Duration: 10}
	cost, err := video.EstimateCost(video.ModelWan25, in)
	fmt.Println(cost, err)
	// Output: 1.5 <nil>
}

func ExampleService_Generate() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	res, err := rp.Video.Generate(ctx, &video.Wan22LoRAInput{
		Prompt:         "the camera circles the lighthouse",
		Image:          "https://example.com/lighthouse.jpg",
		HighNoiseLoRAs: []video.LoRA{{Path: "https://example.com/style.safetensors", Scale: 0.7}},
		Duration:       8,
	}, video.WaitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var mp4 bytes.Buffer
	err = rp.Video.Download(ctx, res.VideoURL, &mp4, nil)
	fmt.Println(res.Status, res.Cost, mp4.Len(), err)
	// Output: COMPLETED 0.56 524288 <nil>
}
