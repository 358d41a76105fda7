package seam

import (
	"context"
	"net"
	"net/http"
	"os"
)

// Core is what a server gives its subpackages. runpodtest fills the
// functions over its state in NewServer; a subpackage's option sets the
// hooks (GraphQL, ...) while NewServer runs its options, before the
// server starts serving.
type Core struct {
	// Base returns the server's context, which ends when it closes.
	Base func() context.Context

	// GraphQL is the fake's GraphQL API: the resolvers over the
	// server's serverless state, and the hooks of its engine.
	GraphQL GraphQL
	// SSH is the pods' SSH servers' view of the pods, and their hooks.
	SSH SSH
}

// SSH is what the pods' SSH servers (fakessh) read of the server, and
// the hooks fakessh sets.
type SSH struct {
	// Target finds the RUNNING pod whose public ip:port is its 22/tcp,
	// and returns its id and PUBLIC_KEY.
	Target func(ip string, port int) (id, publicKey string, ok bool)
	// PodTarget returns pod id's PUBLIC_KEY when it is RUNNING and
	// exposes 22/tcp.
	PodTarget func(id string) (publicKey string, ok bool)
	// Mounts returns the network volumes pod id mounts, by path.
	Mounts func(id string) map[string]string
	// AccountKeys returns the account's SSH public keys.
	AccountKeys func() []string
	// VolumeRoot opens the directory of a network volume's files, made
	// if missing.
	VolumeRoot func(volumeID string) (*os.Root, error)
	// InMemory reports whether the server runs on an in-memory network
	// (WithMemoryNetwork).
	InMemory func() bool

	// State is fakessh's own state for the server, set by its option.
	State any
	// DialPod connects to the SSH server of the pod at host:port;
	// without it (no fakessh), a pod's SSH port refuses connections.
	DialPod func(ctx context.Context, network, host, port string) (net.Conn, error)
	// DropPod kills pod id's processes and closes its SSH connections:
	// the pod stopped, restarted or went away.
	DropPod func(id string)
	// Close closes every SSH connection, with the server.
	Close func()
}

// Exec runs one GraphQL request and returns the response to encode as
// JSON (data and errors).
type Exec func(ctx context.Context, query, operationName string, variables map[string]any) any

// GraphQL is the server's side of the GraphQL API.
type GraphQL struct {
	// Root is the resolver root the engine binds the schema to.
	Root any
	// Serve installs the engine's Exec: POST /graphql is served with it
	// from then on (fakegraphql's option sets it before the server starts).
	Serve func(Exec)
	// Retire retires the API (410 Gone) or brings it back.
	Retire func(bool)
	// Mutations counts the mutations of one name that changed something.
	Mutations func(name string) int
}

// NotServed writes the answer of a route whose server was not attached:
// 501 with a problem+json body naming the option that serves it.
func NotServed(w http.ResponseWriter, what, option string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusNotImplemented)
	_, _ = w.Write([]byte(`{"title":"Not Implemented","status":501,"detail":"runpodtest: ` + what + ` is not served: start the server with ` + option + `"}` + "\n"))
}
