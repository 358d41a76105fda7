package jobqueue

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// stopCtx is a running job's Taken.Stopped: done when the context the job
// was taken under is, or when the queue stops the job. It makes the
// cancellable context behind its Done channel only when something asks
// for it, so a job whose handler never watches its context (most short
// ones) costs no child context and no registration in its parent's
// (net/http's request context, for the local API server's /runsync):
// that was a tenth of the server's own work per request.
//
// It answers as context.WithCancel(parent) would: Err is parent's error
// if parent ended first, else context.Canceled once stopped (and Cause
// likewise); Deadline and Value are parent's. Once Done was called, the
// inner context answers, so a context derived from this one
// (context.WithTimeout in a handler) is registered with it as with any
// cancellable parent, without a goroutine.
type stopCtx struct {
	parent context.Context

	// inner answers Done, Err and Value once made: a child of parent while
	// the job runs, or, made after a stop, one detached from parent and
	// already cancelled with the stop's cause.
	inner atomic.Pointer[context.Context]
	// err is Err's answer when the job stopped before inner was made.
	err atomic.Pointer[error]

	mu     sync.Mutex // makes inner; guards cancel and cause
	cancel context.CancelFunc
	cause  error
}

func newStopCtx(parent context.Context) *stopCtx { return &stopCtx{parent: parent} }

func (c *stopCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *stopCtx) Done() <-chan struct{} { return c.made().Done() }

func (c *stopCtx) Err() error {
	if err := c.err.Load(); err != nil {
		return *err
	}
	if inner := c.inner.Load(); inner != nil {
		return (*inner).Err()
	}
	return c.parent.Err()
}

func (c *stopCtx) Value(key any) any {
	if inner := c.inner.Load(); inner != nil {
		return (*inner).Value(key)
	}
	if c.err.Load() != nil {
		// The stop's cause is the inner context's (context.Cause reads it
		// through Value).
		return c.made().Value(key)
	}
	return c.parent.Value(key)
}

// String names the context as context.WithCancel's does.
func (c *stopCtx) String() string {
	if s, ok := c.parent.(interface{ String() string }); ok {
		return s.String() + ".WithCancel"
	}
	return "context.WithCancel"
}

// made returns inner, making it first if need be.
func (c *stopCtx) made() context.Context {
	if inner := c.inner.Load(); inner != nil {
		return *inner
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if inner := c.inner.Load(); inner != nil {
		return *inner
	}
	var inner context.Context
	if c.err.Load() != nil {
		var cancel context.CancelCauseFunc
		inner, cancel = context.WithCancelCause(context.WithoutCancel(c.parent))
		cancel(c.cause)
	} else {
		inner, c.cancel = context.WithCancel(c.parent)
	}
	c.inner.Store(&inner)
	return inner
}

// stop ends the context; again is a no-op.
func (c *stopCtx) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.inner.Load() != nil:
		if c.cancel != nil {
			c.cancel()
		}
	case c.err.Load() == nil:
		err := c.parent.Err()
		if err == nil {
			// The common case (the job ended on its own), without an
			// allocation.
			c.cause = context.Canceled
			c.err.Store(&errCanceled)
			return
		}
		c.cause = context.Cause(c.parent)
		stored := err // only this branch's error escapes to the heap
		c.err.Store(&stored)
	}
}

// errCanceled is context.Canceled, addressable.
var errCanceled = context.Canceled
