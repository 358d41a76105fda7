// Package seam is how runpodtest's subpackages (fakes3, fakessh,
// fakegraphql and contract) reach the state of the server they serve: the
// pods, volumes, endpoints, clock and request log stay in runpodtest, and
// each server hands its subpackages one Core of functions over them. Go's
// internal rule keeps it from users: only runpodtest and its subpackages
// can import it.
package seam

import (
	"runtime"
	"sync"
	"weak"
)

// registry maps a live server (by weak pointer) to its Core (by weak
// pointer too: the server holds its Core), so that neither is kept alive
// by being registered.
var registry sync.Map // weak.Pointer[T] → weak.Pointer[Core]

// Register records c as srv's Core. runpodtest calls it in NewServer,
// before any option runs; the entry goes when srv is collected.
func Register[T any](srv *T, c *Core) {
	k := weak.Make(srv)
	registry.Store(k, weak.Make(c))
	runtime.AddCleanup(srv, func(k weak.Pointer[T]) { registry.Delete(k) }, k)
}

// Of returns srv's Core, or nil for a server NewServer did not make.
func Of[T any](srv *T) *Core {
	v, ok := registry.Load(weak.Make(srv))
	if !ok {
		return nil
	}
	return v.(weak.Pointer[Core]).Value()
}
