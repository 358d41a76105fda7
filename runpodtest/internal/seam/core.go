package seam

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"time"
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
	// S3 is the S3 API's view of the volumes, and its hooks.
	S3 S3
	// Contract is the REST v2 document's checks of the server's
	// traffic, which the contract package's option sets.
	Contract Contract
}

// Contract holds the checks of the REST v2 routes' requests and answers
// against the REST v2 document, which the contract package sets. Without
// them (no contract.Check), the server checks nothing against the
// document: a route's handler gets whatever was sent, and its answer is
// sent as it is.
type Contract struct {
	// Request checks r, whose body was read into body, against the
	// operation that serves pattern (a route pattern such as
	// "POST /v2/pods"). It returns 0 when the document allows r; else the
	// status of the platform's refusal (400, or 422 for a body the
	// operation answers 422 about) and one "<where>: <what>" line per
	// failing field, and the server refuses r with them before the
	// route's handler runs.
	Request func(r *http.Request, pattern string, body []byte) (status int, problems []string)
	// Response checks the answer (status, header and body) the route's
	// handler wrote to r; it returns the rules the answer breaks, and
	// the server then sends a 500 naming them instead. A stream
	// (text/event-stream) is not checked.
	Response func(r *http.Request, pattern string, reqBody []byte, status int, header http.Header, body []byte) []string
}

// S3 is what the S3 API (fakes3) reads of the server, and the hooks
// fakes3 sets.
type S3 struct {
	// Now is the server's clock.
	Now func() time.Time
	// Start serves h as the server serves its hosts: on loopback (or the
	// in-memory network), over TLS with WithTLS.
	Start func(h http.Handler) *httptest.Server
	// Dir is the storage directory: one directory per volume
	// (volstore.Root).
	Dir func() string
	// DataCenter returns the data center of network volume id.
	DataCenter func(volumeID string) (string, bool)
	// Volumes returns the ids of the network volumes in data center dc.
	Volumes func(dc string) []string
	// Credentials returns the account's one S3 API key.
	Credentials func() (accessKey, secretKey string)

	// State is fakes3's own state for the server, set by its option.
	State any
	// Handler serves the S3 API of every data center at the server's
	// S3URL; without it (no fakes3), S3URL answers 501.
	Handler http.Handler
	// Wrote tells the S3 API that a test wrote the file of key on
	// volume vol (WriteVolumeFile), so it forgets what it knew of it.
	Wrote func(vol, key string)
	// VolumeGone tells it that volume id was deleted, with its files.
	VolumeGone func(id string)
	// Close closes the S3 API's own listeners, with the server.
	Close func()
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
