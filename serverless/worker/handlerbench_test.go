package worker

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkRunSyncHandler is the server's own work per /runsync of a
// trivial handler, without the network: the handler the local API
// server serves beside floorRunSync, each called with the same request
// (its own cancellable context, as net/http gives every request) and a
// writer that keeps nothing. It isolates what the worker adds to a
// request from net/http's and the kernel's share, which the two servers
// have in common; BenchmarkLocalRunSyncProcess measures the whole.
func BenchmarkRunSyncHandler(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	handler := make(chan http.Handler, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveWorker(ctx, ln, withHooks(&hooks{handler: func(h http.Handler) http.Handler { handler <- h; return h }}))
	}()
	defer func() { cancel(); <-done }()
	worker := <-handler
	w := &discardWriter{}
	body := strings.NewReader("")
	call := func(b *testing.B, h http.Handler) {
		body.Reset(`{"input":{"text":"hello"}}`)
		rctx, rcancel := context.WithCancel(ctx)
		r, _ := http.NewRequestWithContext(rctx, http.MethodPost, "http://127.0.0.1/runsync", io.NopCloser(body))
		r.ContentLength = int64(body.Len())
		r.Header.Set("Content-Type", "application/json")
		w.reset()
		h.ServeHTTP(w, r)
		rcancel()
		if w.status != http.StatusOK {
			b.Fatal(w.status)
		}
	}
	floor := http.HandlerFunc(floorRunSync)
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call(b, floor)
		}
	})
	b.Run("worker", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call(b, worker)
		}
	})
	// Rounds of 2,000 calls of each, back to back (the order alternating),
	// and the median (with quartiles) of worker's time over floor's: the
	// two under the same state of a machine whose speed drifts.
	b.Run("interleaved", func(b *testing.B) {
		round := func(h http.Handler) time.Duration {
			start := time.Now()
			for range 2000 {
				call(b, h)
			}
			return time.Since(start)
		}
		interleave(b, func() time.Duration { return round(floor) }, func() time.Duration { return round(worker) })
	})
}

// discardWriter is an http.ResponseWriter that keeps only the status.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) reset()              { w.header, w.status = http.Header{}, 0 }
func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.header = w.header.Clone() // as net/http snapshots it
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(p), nil
}
