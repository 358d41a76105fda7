//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package tracker

import (
	"errors"
	"os"
	"syscall"
)

// fileLocking reports whether NewFileStore locks its file against other
// processes on this platform.
const fileLocking = true

// lockFile opens (creating it) and locks the file at path for this
// process, without waiting: ErrLocked when another open store holds it.
// The lock goes with the process, so a crash leaves none behind.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
