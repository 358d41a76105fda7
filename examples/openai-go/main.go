// Command openai-go points the official OpenAI Go client at a RunPod
// endpoint's OpenAI-compatible route: the base URL is
// {inference URL}/v2/<endpoint_id>/openai/v1 and the key is your RunPod
// API key. It lives in its own module so that runpod-go's go.mod does not
// carry openai-go (which needs Go 1.26 and brings the Azure and AWS SDKs).
//
//	go run .                                   # against the built-in fake platform
//	RUNPOD_API_KEY=… go run .                  # against the public Qwen3 endpoint
//
// On your account the public endpoint bills per token, for two short
// replies.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	rpopenai "github.com/runpodkit/runpod-go/openai"
	rpoption "github.com/runpodkit/runpod-go/option"
)

func main() { demo.Main(run) }

// run asks the public Qwen3 endpoint twice through openai-go: once whole,
// once streamed. It takes no flags.
func run(ctx context.Context, args []string, w io.Writer) error {
	if err := demo.Parse(flag.NewFlagSet("openai-go", flag.ContinueOnError), args, w); err != nil {
		return err
	}
	s, err := demo.Connect(w, rpoption.WithUserAgent("runpod-openai-go-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	key := os.Getenv(rpoption.EnvAPIKey)
	if s.Fake != nil {
		key = s.Fake.APIKey
	}
	base := s.Client.OpenAI.Route(rpopenai.PublicQwen3).BaseURL()
	fmt.Fprintln(w, "base URL:", base)

	client := oai.NewClient(option.WithBaseURL(base+"/"), option.WithAPIKey(key))
	params := oai.ChatCompletionNewParams{
		Model:    rpopenai.Qwen3Model,
		Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("Hello from openai-go")},
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "reply:", resp.Choices[0].Message.Content)

	stream := client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	fmt.Fprint(w, "streamed: ")
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			fmt.Fprint(w, c.Delta.Content)
		}
	}
	fmt.Fprintln(w)
	return stream.Err()
}
