package video_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/video"
)

// Prices are known before any call.
func ExampleEstimateCost() {
	in := &video.Wan25Input{Prompt: "a kite over the sea", Image: "https://example.com/kite.jpg", Size: video.Size1080p, Duration: 10}
	cost, err := video.EstimateCost(video.Wan25, in)
	fmt.Println(cost, err)
	// Output: 1.5 <nil>
}

func ExampleService_Generate() {
	srv := runpodtest.NewServer()
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
