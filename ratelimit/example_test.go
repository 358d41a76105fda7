package ratelimit_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/runpodkit/runpod-go/ratelimit"
)

// Parse reads a response's RateLimit and RateLimit-Policy headers into
// windows; an exhausted window says how long to wait.
func Example() {
	h := http.Header{}
	h.Set("RateLimit", `"minute";r=0;t=12, "hour";r=2950;t=1800`)
	h.Set("RateLimit-Policy", `"minute";q=60;w=60, "hour";q=3000;w=3600`)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

	rl := ratelimit.Parse(h, now)
	fmt.Println(rl)
	hour, _ := rl.Window("hour")
	fmt.Println(hour.Remaining, hour.Quota, hour.Length)
	wait, exhausted := rl.ExhaustedWait()
	fmt.Println(exhausted, wait)

	retry, _ := ratelimit.RetryAfter("30", now)
	fmt.Println(retry)
	// Output:
	// minute 0/60 reset 12s, hour 2950/3000 reset 30m0s
	// 2950 3000 1h0m0s
	// true 12s
	// 30s
}
