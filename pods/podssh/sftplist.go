package podssh

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"golang.org/x/crypto/ssh"
)

// The directory listings of a download are read here, on an SFTP channel
// of their own, rather than with pkg/sftp's Client.ReadDir: that one
// passes each name the server sends through path.Base, so that "/etc" or
// "a/../../b" would come back as a plausible "etc" or "b". A name is
// checked as the server sent it, and refused when it is not one plain
// name. Only SFTP version 3 requests that list a directory are sent
// (OPENDIR, READDIR, CLOSE).

// SFTP version 3 packet types and the attributes' flags used here.
const (
	fxpInit     = 1
	fxpVersion  = 2
	fxpOpendir  = 11
	fxpReaddir  = 12
	fxpClose    = 4
	fxpStatus   = 101
	fxpHandle   = 102
	fxpName     = 104
	fxEOF       = 1
	fxNoSuch    = 2
	fxDenied    = 3
	attrSize    = 0x1
	attrUIDGID  = 0x2
	attrPerm    = 0x4
	attrTimes   = 0x8
	attrExtend  = 0x80000000
	maxFxPacket = 1 << 20 // far above the 256 KiB servers send
)

// remoteEntry is one entry of a remote directory, its name as the server
// sent it.
type remoteEntry struct {
	name string
	// mode is the entry's type and permission bits; hasMode is false when
	// the server did not send them.
	mode    fs.FileMode
	hasMode bool
	size    uint64
}

// lister lists remote directories over its own SFTP channel. Its methods
// are not safe for concurrent use.
type lister struct {
	sess *ssh.Session
	w    io.WriteCloser
	r    *bufio.Reader
	id   uint32
	once sync.Once
}

// newLister opens an SFTP channel on client and greets the server.
func newLister(client *ssh.Client) (*lister, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, err
	}
	w, err := sess.StdinPipe()
	if err == nil {
		var r io.Reader
		if r, err = sess.StdoutPipe(); err == nil {
			l := &lister{sess: sess, w: w, r: bufio.NewReader(r)}
			if err = sess.RequestSubsystem("sftp"); err == nil {
				if err = l.init(); err == nil {
					return l, nil
				}
			}
		}
	}
	_ = sess.Close()
	return nil, fmt.Errorf("list directories: %w", err)
}

// Close ends the channel.
func (l *lister) Close() {
	l.once.Do(func() {
		_ = l.w.Close()
		_ = l.sess.Close()
	})
}

func (l *lister) init() error {
	if err := l.send(fxpInit, binary.BigEndian.AppendUint32(nil, 3)); err != nil {
		return err
	}
	typ, _, err := l.recv()
	if err != nil {
		return err
	}
	if typ != fxpVersion {
		return fmt.Errorf("SFTP server answered INIT with packet type %d", typ)
	}
	return nil
}

// send writes one packet of type typ and payload p.
func (l *lister) send(typ byte, p []byte) error {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 5+len(p)), uint32(1+len(p)))
	b = append(b, typ)
	_, err := l.w.Write(append(b, p...))
	return err
}

// request sends a request of type typ with a new id followed by fields,
// and returns the answer's type and its payload after the id.
func (l *lister) request(typ byte, fields ...[]byte) (byte, []byte, error) {
	l.id++
	p := binary.BigEndian.AppendUint32(nil, l.id)
	for _, f := range fields {
		p = appendString(p, f)
	}
	if err := l.send(typ, p); err != nil {
		return 0, nil, err
	}
	rtyp, body, err := l.recv()
	if err != nil {
		return 0, nil, err
	}
	id, rest, ok := takeUint32(body)
	if !ok || id != l.id {
		return 0, nil, errors.New("SFTP server answered out of turn")
	}
	return rtyp, rest, nil
}

// recv reads one packet.
func (l *lister) recv() (byte, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(l.r, hdr[:]); err != nil {
		return 0, nil, fmt.Errorf("SFTP server: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > maxFxPacket {
		return 0, nil, fmt.Errorf("SFTP server sent a packet of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(l.r, b); err != nil {
		return 0, nil, fmt.Errorf("SFTP server: %w", err)
	}
	return b[0], b[1:], nil
}

// ReadDir returns every entry of the remote directory dir, "." and ".."
// included when the server lists them.
func (l *lister) ReadDir(dir string) ([]remoteEntry, error) {
	typ, body, err := l.request(fxpOpendir, []byte(dir))
	if err != nil {
		return nil, err
	}
	if typ != fxpHandle {
		return nil, statusError(typ, body, dir)
	}
	handle, _, ok := takeString(body)
	if !ok {
		return nil, errors.New("SFTP server sent a malformed handle")
	}
	defer func() { _, _, _ = l.request(fxpClose, handle) }()
	var out []remoteEntry
	for {
		typ, body, err := l.request(fxpReaddir, handle)
		if err != nil {
			return nil, err
		}
		if typ != fxpName {
			if code, _, _ := parseStatus(typ, body); code == fxEOF {
				return out, nil
			}
			return nil, statusError(typ, body, dir)
		}
		entries, err := parseNames(body)
		if err != nil {
			return nil, err
		}
		out = append(out, entries...)
	}
}

// parseNames parses the body of an SSH_FXP_NAME packet after its id:
// a count, then each entry's file name, long name and attributes.
func parseNames(b []byte) ([]remoteEntry, error) {
	bad := errors.New("SFTP server sent a malformed directory listing")
	count, b, ok := takeUint32(b)
	// Each entry takes at least 12 bytes: two lengths and the flags.
	if !ok || uint64(count)*12 > uint64(len(b)) {
		return nil, bad
	}
	out := make([]remoteEntry, 0, count)
	for range count {
		var name []byte
		var flags uint32
		var e remoteEntry
		if name, b, ok = takeString(b); !ok {
			return nil, bad
		}
		if _, b, ok = takeString(b); !ok { // the long name, for people
			return nil, bad
		}
		if flags, b, ok = takeUint32(b); !ok {
			return nil, bad
		}
		e.name = string(name)
		for _, f := range [...]struct {
			flag uint32
			n    int
		}{{attrSize, 8}, {attrUIDGID, 8}, {attrPerm, 4}, {attrTimes, 8}} {
			if flags&f.flag == 0 {
				continue
			}
			if len(b) < f.n {
				return nil, bad
			}
			switch f.flag {
			case attrSize:
				e.size = binary.BigEndian.Uint64(b)
			case attrPerm:
				e.mode, e.hasMode = unixMode(binary.BigEndian.Uint32(b)), true
			}
			b = b[f.n:]
		}
		if flags&attrExtend != 0 {
			var n uint32
			if n, b, ok = takeUint32(b); !ok || uint64(n)*8 > uint64(len(b)) {
				return nil, bad
			}
			for range 2 * n {
				if _, b, ok = takeString(b); !ok {
					return nil, bad
				}
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// unixMode turns the st_mode bits of a POSIX server into an fs.FileMode.
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & 0o170000 {
	case 0o040000:
		mode |= fs.ModeDir
	case 0o100000:
	case 0o120000:
		mode |= fs.ModeSymlink
	case 0o010000:
		mode |= fs.ModeNamedPipe
	case 0o140000:
		mode |= fs.ModeSocket
	case 0o020000:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case 0o060000:
		mode |= fs.ModeDevice
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}

// parseStatus reads an SSH_FXP_STATUS body after its id.
func parseStatus(typ byte, b []byte) (code uint32, msg string, ok bool) {
	if typ != fxpStatus {
		return 0, "", false
	}
	code, b, ok = takeUint32(b)
	if !ok {
		return 0, "", false
	}
	m, _, _ := takeString(b)
	return code, string(m), true
}

// statusError is the error an answer other than the one expected stands
// for.
func statusError(typ byte, b []byte, dir string) error {
	code, msg, ok := parseStatus(typ, b)
	switch {
	case !ok:
		return fmt.Errorf("list %s: SFTP server answered with packet type %d", dir, typ)
	case code == fxNoSuch:
		return fmt.Errorf("list %s: %w", dir, fs.ErrNotExist)
	case code == fxDenied:
		return fmt.Errorf("list %s: %w", dir, fs.ErrPermission)
	}
	return fmt.Errorf("list %s: SFTP status %d: %q", dir, code, msg)
}

func appendString(b, s []byte) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

func takeUint32(b []byte) (uint32, []byte, bool) {
	if len(b) < 4 {
		return 0, b, false
	}
	return binary.BigEndian.Uint32(b), b[4:], true
}

func takeString(b []byte) ([]byte, []byte, bool) {
	n, rest, ok := takeUint32(b)
	if !ok || uint64(n) > uint64(len(rest)) {
		return nil, b, false
	}
	return rest[:n], rest[n:], true
}
