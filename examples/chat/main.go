// Command chat streams a chat completion from an OpenAI-compatible
// endpoint, printing tokens as they arrive (reasoning, when the model
// shares it, in brackets).
//
//	go run ./examples/chat -prompt "Write a haiku about GPUs"     # the fake platform's Qwen3
//	RUNPOD_API_KEY=… go run ./examples/chat -endpoint qwen3-32b-awq -model Qwen/Qwen3-32B-AWQ
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/openai"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	endpoint := fs.String("endpoint", openai.PublicQwen3, "endpoint id")
	model := fs.String("model", openai.Qwen3Model, "served model name")
	prompt := fs.String("prompt", "Say hello to the Go gophers in one short sentence.", "your message")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := demo.Connect(w, runpod.WithUserAgent("runpod-chat-example"))
	if err != nil {
		return err
	}
	defer s.Close()

	stream := s.Client.OpenAI.Route(*endpoint).ChatCompletionStream(ctx, openai.ChatCompletionParams{
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
			if c.Delta.ReasoningContent != "" {
				if !thinking {
					fmt.Fprint(w, "[")
					thinking = true
				}
				fmt.Fprint(w, c.Delta.ReasoningContent)
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
