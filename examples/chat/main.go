// Command chat streams a chat completion from an OpenAI-compatible
// endpoint, printing tokens as they arrive (reasoning, when the model
// shares it, in brackets).
//
//	go run ./examples/chat -prompt "Write a haiku about GPUs"     # the fake platform's Qwen3
//	RUNPOD_API_KEY=… go run ./examples/chat -endpoint granite-4-0-h-small
//
// Without -model it asks the endpoint which models it serves (a free call)
// and uses the first. On your account a public endpoint bills per token
// (the prompt and at most 256 tokens of reply), your own endpoint its
// worker's time.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/option"
)

func main() { demo.Main(run) }

// run parses args, picks the model and streams the answer.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	endpoint := fs.String("endpoint", openai.PublicQwen3, "endpoint id")
	model := fs.String("model", "", "served model name (default: the first the endpoint lists)")
	prompt := fs.String("prompt", "Say hello to the Go gophers in one short sentence.", "your message")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-chat-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	route := s.Client.OpenAI.Route(*endpoint)
	if *model == "" {
		models, err := route.Models(ctx)
		if err != nil {
			return fmt.Errorf("listing the models of %s: %w", *endpoint, err)
		}
		if len(models) == 0 {
			return fmt.Errorf("%s lists no model: name one with -model", *endpoint)
		}
		*model = models[0].ID
		fmt.Fprintf(w, "%s serves %s\n", *endpoint, *model)
	}

	stream := route.ChatCompletionStream(ctx, openai.ChatCompletionParams{
		Model:        *model,
		Messages:     []openai.Message{openai.SystemMessage("You are concise."), openai.UserMessage(*prompt)},
		Sampling:     openai.Sampling{MaxTokens: runpod.Ptr(256)},
		IncludeUsage: true,
	})
	thinking := false
	var acc openai.ChatAccumulator // assembles the answer, usage included
	for chunk, err := range stream {
		if err != nil {
			return err // HTTP errors (bad model, 401, 429) arrive first, before any token
		}
		acc.Add(chunk)
		for _, c := range chunk.Choices {
			if c.Delta.Reasoning != "" {
				if !thinking {
					fmt.Fprint(w, "[")
					thinking = true
				}
				fmt.Fprint(w, c.Delta.Reasoning)
			}
			if c.Delta.Content != "" {
				if thinking {
					fmt.Fprint(w, "]\n")
					thinking = false
				}
				fmt.Fprint(w, c.Delta.Content)
			}
		}
	}
	fmt.Fprintln(w)
	if u := acc.Completion().Usage; u != nil {
		fmt.Fprintf(w, "(%d prompt + %d completion tokens)\n", u.PromptTokens, u.CompletionTokens)
	}
	return nil
}
