package openai_test

import (
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// A chat completion on an endpoint's OpenAI-compatible route: here the
// public Qwen3 endpoint, a reasoning model, as the fake platform serves it.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()
	ctx := context.Background()

	route := rp.OpenAI.Route(openai.PublicQwen3)
	models, err := route.Models(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(models[0].ID)

	completion, err := route.ChatCompletion(ctx, openai.ChatCompletionParams{
		Model: models[0].ID,
		Messages: []openai.Message{
			openai.SystemMessage("Answer briefly."),
			openai.UserMessage("Hello!"),
		},
		Sampling: openai.Sampling{MaxTokens: runpod.Ptr(256), Temperature: runpod.Ptr(0.2)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	choice := completion.Choices[0]
	fmt.Println(choice.Message.Role, choice.FinishReason)
	fmt.Println(choice.Message.Content)
	fmt.Println(choice.Message.Reasoning != "", completion.Usage.TotalTokens > 0)
	// Output:
	// Qwen/Qwen3-32B-AWQ
	// assistant stop
	// You said: Hello!
	// true true
}

func ExampleRoute_ChatCompletionStream() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, _ := srv.NewClient()

	var acc openai.ChatAccumulator
	for chunk, err := range rp.OpenAI.Route(openai.PublicGranite4).ChatCompletionStream(context.Background(), openai.ChatCompletionParams{
		Model:    "ibm-granite/granite-4.0-h-small",
		Messages: []openai.Message{openai.UserMessage("hello there")},
	}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		acc.Add(chunk)
		for _, c := range chunk.Choices {
			fmt.Print(c.Delta.Content)
		}
	}
	fmt.Println()
	fmt.Println(acc.Completion().Choices[0].FinishReason)
	// Output:
	// You said: hello there
	// stop
}

func ExampleToolCallingEnv() {
	fmt.Println(openai.Qwen3ToolCallingEnv())
	// Output: map[ENABLE_AUTO_TOOL_CHOICE:true REASONING_PARSER:qwen3 TOOL_CALL_PARSER:hermes]
}
