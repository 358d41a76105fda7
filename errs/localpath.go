package errs

import (
	"errors"
	"fmt"
)

// ErrUnsafePath matches every *UnsafePathError.
var ErrUnsafePath = errors.New("runpod: unsafe local path")

// UnsafePathError reports a local write the SDK refused to make, before
// writing anything for it: a name that came from the other side (an
// object key of a volume, an entry of a pod's SFTP listing) that is not a
// plain relative path, or a symbolic link (or a file that is not a
// directory) standing where the write had to pass. Local copies never
// leave the target directory and never write through a link, whatever a
// server or another user of the machine put in the way.
type UnsafePathError struct {
	// Dir is the local target directory.
	Dir string
	// Name is the refused name as it came (an object key, a remote
	// path), or the local path under Dir where a link stood.
	Name string
	// Reason says what is wrong with it, such as "has a .. component" or
	// "is a symbolic link".
	Reason string
}

// Error names the directory, the name (quoted, since a hostile server
// chose it) and the reason.
func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("runpod: refused to write %q under %s: %s", e.Name, e.Dir, e.Reason)
}

// Is reports whether target is ErrUnsafePath.
func (e *UnsafePathError) Is(target error) bool { return target == ErrUnsafePath }
