package testkit

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// MeasureTransfer runs transfer once per iteration of b, moving size
// bytes each time, and reports MB/s (b.SetBytes), allocations and
// peak-heap-MB: the largest heap (live and not yet swept objects,
// runtime/metrics /memory/classes/heap/objects:bytes, in MiB) sampled
// every 5 ms during the timed loop.
func MeasureTransfer(b *testing.B, size int64, transfer func()) {
	b.SetBytes(size)
	b.ReportAllocs()
	runtime.GC()
	stop := sampleHeap()
	for b.Loop() {
		transfer()
	}
	peak := stop()
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// sampleHeap samples the heap's objects (live, and dead but not yet
// swept) every 5 ms until the returned stop is called; stop ends the
// sampler and returns the largest sample, in bytes.
func sampleHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	peak := read()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				peak = max(peak, read())
			}
		}
	})
	return func() uint64 {
		close(quit)
		wg.Wait()
		return max(peak, read())
	}
}

// PeakHeap runs f and returns the most heap its run added, as
// runtime/metrics' /memory/classes/heap/objects:bytes shows it, sampled
// without pause in another goroutine.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
		}
	})
	f()
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	stop.Store(true)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}
