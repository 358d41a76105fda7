//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package tracker

import "os"

// fileLocking reports whether NewFileStore locks its file against other
// processes on this platform: not here, where the standard library offers
// no file lock.
const fileLocking = false

// lockFile opens (creating it) the lock file at path; it does not lock it
// on this platform.
func lockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

// syncDir does nothing on this platform, which cannot sync a directory
// (its file system journals renames).
func syncDir(string) error { return nil }
