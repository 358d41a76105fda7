package openai_test

import (
	"context"
	"fmt"

	"github.com/runpodkit/runpod-go/openai"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func ExampleRoute_ChatCompletionStream() {
	srv := runpodtest.NewServer()
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
