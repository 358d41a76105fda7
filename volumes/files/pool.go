package files

import (
	"context"
	"sync"
)

// parallel calls fn(ctx, i) for each i from 0 to n-1, at most conc at a
// time, and starts no more calls once ctx ends. With failFast, the first
// error cancels the context the other calls got, starts no more, and is
// returned; without it, errors are fn's to keep and parallel returns nil.
func parallel(ctx context.Context, n, conc int, failFast bool, fn func(ctx context.Context, i int) error) error {
	inner, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(conc, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(inner, i); err != nil && failFast {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case <-inner.Done():
			break feed
		default:
		}
		select {
		case next <- i:
		case <-inner.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return context.Cause(inner)
}
