package clusters

import (
	"fmt"
	"log/slog"

	"github.com/runpodkit/runpod-go/internal/envprint"
)

// Printing. The requests that hold a container's environment print
// (String, GoString, every fmt verb through Format) and log (LogValue)
// as one line of the fields they set, with each Env value replaced by
// [REDACTED]: the names of the variables show, their values (tokens,
// passwords) never do. encoding/json writes the values: it is the form
// the request is sent in.

// String describes the request, without the values of Env.
func (r CreateClusterRequest) String() string { return envprint.Struct(r) }

// GoString is String.
func (r CreateClusterRequest) GoString() string { return r.String() }

// Format prints String for every verb.
func (r CreateClusterRequest) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(r.String())) }

// LogValue logs String.
func (r CreateClusterRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }
