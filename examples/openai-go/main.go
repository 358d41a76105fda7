// Command openai-go points the official OpenAI Go client at a RunPod
// endpoint's OpenAI-compatible route: the base URL is
// {inference URL}/v2/<endpoint_id>/openai/v1 and the key is your RunPod
// API key. It lives in its own module so that runpod-go's go.mod does not
// carry openai-go (which needs Go 1.26 and brings the Azure and AWS SDKs).
//
//	go run .                                   # against the built-in fake platform
//	RUNPOD_API_KEY=… go run .                  # against the public Qwen3 endpoint
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/runpodkit/runpod-go"
	rpopenai "github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	key := os.Getenv(runpod.EnvAPIKey)
	var opts []runpod.Option
	if key == "" {
		srv := runpodtest.NewServer()
		defer srv.Close()
		key = srv.APIKey
		opts = srv.ClientOptions()
		fmt.Println("RUNPOD_API_KEY is not set: running against the built-in fake platform (runpodtest).")
	}
	rp, err := runpod.NewClient(opts...)
	if err != nil {
		return err
	}
	base := rp.OpenAI.Route(rpopenai.PublicQwen3).BaseURL()
	fmt.Println("base URL:", base)

	client := oai.NewClient(option.WithBaseURL(base+"/"), option.WithAPIKey(key))
	params := oai.ChatCompletionNewParams{
		Model:    rpopenai.Qwen3Model,
		Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("Hello from openai-go")},
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return err
	}
	fmt.Println("reply:", resp.Choices[0].Message.Content)

	stream := client.Chat.Completions.NewStreaming(ctx, params)
	fmt.Print("streamed:")
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			fmt.Print(c.Delta.Content)
		}
	}
	fmt.Println()
	return stream.Err()
}
