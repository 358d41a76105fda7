package option_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestOptionsCompose: every observer given is filled; nil targets and nil
// options are ignored.
func TestOptionsCompose(t *testing.T) {
	var a, b option.ResponseInfo
	c := option.NewCall(option.WithResponseInto(&a), nil, option.WithResponseInto(nil), option.WithResponseInto(&b))
	assert.True(t, c.Observed())
	c.Report(option.ResponseInfo{StatusCode: 204, Attempts: 2})
	assert.Equal(t, option.ResponseInfo{StatusCode: 204, Attempts: 2}, a)
	assert.Equal(t, a, b)
	assert.False(t, option.NewCall().Observed())
}

// Two observers of one call: both see its response.
func Example() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	rp, err := srv.NewClient()
	if err != nil {
		panic(err)
	}
	defer rp.CloseIdleConnections()
	var mine, logged runpod.ResponseInfo
	_, err = rp.Pods.List(context.Background(), pods.ListPodsParams{},
		option.WithResponseInto(&mine), option.WithResponseInto(&logged))
	fmt.Println(err, mine.StatusCode, logged.StatusCode, mine.Attempts)
	// Output: <nil> 200 200 1
}
