package files

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/confine"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// Direction is which way Sync copies.
type Direction int

// Directions of Sync.
const (
	// DirectionToVolume copies a local directory to the volume.
	DirectionToVolume Direction = iota + 1
	// DirectionFromVolume copies a directory of the volume to a local directory.
	DirectionFromVolume
)

// String returns "DirectionToVolume" or "DirectionFromVolume".
func (d Direction) String() string {
	switch d {
	case DirectionToVolume:
		return "ToVolume"
	case DirectionFromVolume:
		return "FromVolume"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// SyncOp is what a SyncAction does.
type SyncOp string

// Operations of a Sync.
const (
	// SyncOpUpload uploads a local file to the volume.
	SyncOpUpload SyncOp = "upload"
	// SyncOpDownload downloads a file of the volume.
	SyncOpDownload SyncOp = "download"
	// SyncOpDelete deletes a file (or, locally, an emptied directory) that
	// the source lacks, with DeleteExtra.
	SyncOpDelete SyncOp = "delete"
	// SyncOpMakeDir makes a local directory for an empty directory of the
	// volume.
	SyncOpMakeDir SyncOp = "mkdir"
)

// Reasons of a SyncAction.
const (
	// ReasonMissing: the destination lacks the file.
	ReasonMissing = "missing"
	// ReasonSize: the two files' sizes differ.
	ReasonSize = "size"
	// ReasonNewer: the source was modified after the destination.
	ReasonNewer = "newer"
	// ReasonChecksum: with CompareChecksums, the contents differ or the
	// ETag cannot tell.
	ReasonChecksum = "checksum"
	// ReasonExtra: with DeleteExtra, the source lacks the file.
	ReasonExtra = "extra"
)

// SyncReport is what a Sync did, or with DryRun would do.
type SyncReport struct {
	// Actions are the files copied, deleted or made, sorted by key; an
	// action that failed has its Err set.
	Actions []SyncAction
	// Skipped counts the files found unchanged.
	Skipped int
	// Bytes is the size of the files transferred (with DryRun, of those
	// that would be).
	Bytes int64
	// Ignored lists the local entries Sync does not copy: symbolic links
	// to directories, broken links, devices, sockets and pipes.
	Ignored []string
}

// SyncAction is one file a Sync copies, deletes or makes.
type SyncAction struct {
	// Op is what is done.
	Op SyncOp
	// Key is the object key on the volume; a directory's ends in "/".
	Key string
	// Path is the local path; empty for a key refused because it is not
	// a plain relative path (Err is then an *errs.UnsafePathError).
	Path string
	// Size is the size of the file copied or deleted.
	Size int64
	// Reason is why: ReasonMissing, ReasonSize, ReasonNewer,
	// ReasonChecksum or ReasonExtra.
	Reason string
	// Err is why the action failed; nil when it succeeded (or, with
	// DryRun, was not tried).
	Err error
}

// Sync makes the destination hold what the source holds: with DirectionToVolume
// it copies the files of localDir to the volume under remotePrefix, with
// DirectionFromVolume the files under remotePrefix to localDir.
//
// remotePrefix is a directory of the volume: "" for its root, or a key
// such as "datasets/" (a missing final "/" is added). A file's key is
// remotePrefix followed by its path relative to localDir, with "/"
// separators. A local name that is not a valid key is a failed action,
// not sent.
//
// A file is copied when the destination lacks it, when the sizes differ,
// or when the source was modified later than the destination (compared to
// the second): DirectionToVolume compares the local modification time with the
// volume's Last-Modified, and since Download gives a file the volume's
// time, a second Sync copies nothing. With CompareChecksums, same-size
// files are compared by content instead: the local file's MD5 against the
// ETag, an MD5 for a file written whole, the MD5 of the parts' MD5s for a
// multipart upload (recomputed with the part size Upload would use for
// that size; when the ETag cannot be recomputed so, the file is copied).
//
// DirectionFromVolume makes a local directory for each empty directory of the
// volume; DirectionToVolume does not copy empty local directories. Symbolic links
// to files are read through (DirectionToVolume uploads what they point to), those
// to directories are not followed (SyncReport.Ignored lists them with the
// other special files). With DeleteExtra, the files the destination has
// and the source lacks are deleted, never outside localDir or
// remotePrefix; DirectionFromVolume also removes the local directories left
// without a counterpart on the volume. With DryRun the report is the same
// and nothing is changed (the volume is still listed and, with
// CompareChecksums, local files read).
//
// Local paths: DirectionFromVolume writes only inside localDir, and never through
// a symbolic link. A key whose path under remotePrefix is not a plain
// relative path (a ".." or "." segment, an empty segment, a leading "/",
// a NUL byte, or on Windows a "\" or ":") is never mapped to a local
// path: its action fails with an *errs.UnsafePathError naming the key,
// and nothing is made for it. Every file made, directory made and file
// removed is reached from localDir one directory at a time, each checked
// to be a directory and not a link: a link inside localDir (to a
// directory elsewhere, say) where a write has to pass fails that action
// with an *errs.UnsafePathError, and nothing is written where it points.
// A link standing at a file's own name is replaced by the downloaded
// file, not written through. Downloads keep their temporary files as
// Download does (hidden, random names, created exclusively), and the
// scan of localDir leaves such files alone.
//
// Files are transferred WithConcurrency at a time, each in one range or
// part at a time (so memory stays within part size × concurrency); each
// is a Download or an Upload with the call's options, and Progress
// reports every file, never two calls at once. A file that fails does not
// stop the others: the error is the errors.Join of the failed actions'
// errors, and the report lists every action. An error before any copy (a
// missing localDir for DirectionToVolume, a failed listing) returns a nil report.
func (v *Volume) Sync(ctx context.Context, dir Direction, localDir, remotePrefix string, opts ...Option) (*SyncReport, error) {
	if dir != DirectionToVolume && dir != DirectionFromVolume {
		return nil, fail.Invalid("dir", "must be ToVolume or FromVolume, got %d", int(dir))
	}
	if localDir == "" {
		return nil, fail.Invalid("localDir", "is required")
	}
	if remotePrefix != "" {
		if err := checkKey("remotePrefix", remotePrefix, true); err != nil {
			return nil, err
		}
		if !strings.HasSuffix(remotePrefix, "/") {
			remotePrefix += "/"
		}
	}
	set, err := v.call(opts)
	if err != nil {
		return nil, err
	}
	s := &syncRun{v: v, dir: dir, localDir: localDir, prefix: remotePrefix, set: set, report: &SyncReport{}}
	defer s.close()
	if err := s.scanLocal(); err != nil {
		return nil, err
	}
	if err := s.scanRemote(ctx); err != nil {
		return nil, err
	}
	s.plan(ctx)
	if !set.dryRun {
		s.execute(ctx, opts)
	}
	return s.finish(ctx)
}

// localFile is a regular file (or a link to one) under localDir.
type localFile struct {
	path  string
	size  int64
	mtime time.Time
}

// syncRun is one call of Sync.
type syncRun struct {
	v                *Volume
	dir              Direction
	localDir, prefix string
	set              settings
	report           *SyncReport
	// root is localDir, opened by the scan (or, for DirectionFromVolume, made and
	// opened before the first action); every local write goes through it.
	root *confine.Dir
	// refused are the failed actions of keys that are not local paths.
	refused []SyncAction

	// Keyed by path relative to localDir / remotePrefix, "/"-separated.
	local      map[string]localFile
	localDirs  map[string]string // rel → path, every local directory
	remote     map[string]Entry
	remoteDirs map[string]bool // rel without "/", every empty directory on the volume

	// stopped is set when ctx ended before an action could start.
	stopped bool
}

// close closes localDir, if it was opened.
func (s *syncRun) close() {
	if s.root != nil {
		_ = s.root.Close()
	}
}

// scanLocal lists localDir's files and directories. A missing localDir is
// empty for DirectionFromVolume and an error for DirectionToVolume.
func (s *syncRun) scanLocal() error {
	s.local, s.localDirs = map[string]localFile{}, map[string]string{}
	fi, err := os.Stat(s.localDir)
	switch {
	case errors.Is(err, os.ErrNotExist) && s.dir == DirectionFromVolume:
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fail.Invalid("localDir", "%q is not a directory", s.localDir)
	}
	if s.root, err = confine.Open(s.localDir, false); err != nil {
		return err
	}
	return s.walk("")
}

// walk lists the directory whose path relative to localDir is rel
// ("/"-separated), reached without following a link.
func (s *syncRun) walk(rel string) error {
	entries, err := s.root.ReadDir(filepath.FromSlash(cmp.Or(rel, ".")))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if isDownloadFile(name) {
			// A download's own file, or anything named as one: a link
			// there is neither uploaded nor deleted.
			continue
		}
		r := path.Join(rel, name)
		full := s.localPath(r)
		typ := e.Type()
		if typ&os.ModeSymlink != 0 {
			fi, err := os.Stat(full)
			if err != nil || !fi.Mode().IsRegular() {
				s.report.Ignored = append(s.report.Ignored, full)
				continue
			}
			s.local[r] = localFile{path: full, size: fi.Size(), mtime: fi.ModTime()}
			continue
		}
		switch {
		case typ.IsDir():
			s.localDirs[r] = full
			if err := s.walk(r); err != nil {
				return err
			}
		case typ.IsRegular():
			fi, err := e.Info()
			if err != nil {
				return err
			}
			s.local[r] = localFile{path: full, size: fi.Size(), mtime: fi.ModTime()}
		default:
			s.report.Ignored = append(s.report.Ignored, full)
		}
	}
	return nil
}

// scanRemote lists the files and empty directories under the prefix.
// For DirectionFromVolume, a key whose path under the prefix is not a plain
// relative path is refused: its action fails, and it is left out of the
// plan.
func (s *syncRun) scanRemote(ctx context.Context) error {
	s.remote, s.remoteDirs = map[string]Entry{}, map[string]bool{}
	for e, err := range s.v.List(ctx, s.prefix, listAll()) {
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(e.Key, s.prefix)
		rel = strings.TrimSuffix(rel, "/")
		if !ok || rel == "" {
			continue
		}
		if err := s.checkRemote(e.Key, rel); err != nil {
			a := SyncAction{Op: SyncOpDownload, Key: e.Key, Size: e.Size, Reason: ReasonMissing, Err: err}
			if e.Dir {
				a.Op, a.Size = SyncOpMakeDir, 0
			}
			s.refused = append(s.refused, a)
			continue
		}
		switch {
		case e.Dir:
			s.remoteDirs[rel] = true
		default:
			s.remote[rel] = e
		}
	}
	return nil
}

// checkRemote checks, for DirectionFromVolume, that rel, the path under the prefix
// of key, is a plain relative path: else it is an *errs.UnsafePathError
// naming key.
func (s *syncRun) checkRemote(key, rel string) error {
	if s.dir != DirectionFromVolume {
		return nil
	}
	_, err := confine.RelUnder(s.localDir, rel)
	var unsafe *errs.UnsafePathError
	if errors.As(err, &unsafe) {
		unsafe.Name = key
	}
	return err
}

// listAll makes List recursive whatever the volume's defaults say.
func listAll() Option { return always(func(s *settings) { s.recursive = true }) }

// plan fills the report's actions and Skipped.
func (s *syncRun) plan(ctx context.Context) {
	sources := sortedKeys(s.local)
	if s.dir == DirectionFromVolume {
		sources = sortedKeys(s.remote)
	}
	var toHash []syncCompare
	for _, rel := range sources {
		a, ok := s.copyAction(rel)
		if !ok {
			s.report.Actions = append(s.report.Actions, a)
			continue
		}
		lf, inLocal := s.local[rel]
		rf, inRemote := s.remote[rel]
		if !inLocal || !inRemote {
			a.Reason = ReasonMissing
			s.report.Actions = append(s.report.Actions, a)
			continue
		}
		newer := lf.mtime.Truncate(time.Second).After(rf.ModTime.Truncate(time.Second))
		if s.dir == DirectionFromVolume {
			newer = rf.ModTime.Truncate(time.Second).After(lf.mtime.Truncate(time.Second))
		}
		switch {
		case lf.size != rf.Size:
			a.Reason = ReasonSize
		case s.set.checksums:
			toHash = append(toHash, syncCompare{action: a, local: lf, remote: rf})
			continue
		case newer:
			a.Reason = ReasonNewer
		default:
			s.report.Skipped++
			continue
		}
		s.report.Actions = append(s.report.Actions, a)
	}
	s.compareContents(ctx, toHash)
	s.report.Actions = append(s.report.Actions, s.refused...)
	if s.set.deleteExtra {
		s.planDeletes()
	}
	if s.dir == DirectionFromVolume {
		for _, rel := range sortedKeys(s.remoteDirs) {
			if _, there := s.localDirs[rel]; !there {
				s.report.Actions = append(s.report.Actions, SyncAction{Op: SyncOpMakeDir, Key: s.prefix + rel + "/", Path: s.localPath(rel), Reason: ReasonMissing})
			}
		}
	}
}

// copyAction is the action copying the source file rel; ok is false (and
// the action failed) when rel cannot be copied: a local name that is not
// a valid key.
func (s *syncRun) copyAction(rel string) (SyncAction, bool) {
	if s.dir == DirectionToVolume {
		lf := s.local[rel]
		a := SyncAction{Op: SyncOpUpload, Key: s.prefix + rel, Path: lf.path, Size: lf.size}
		if err := checkKey("key", a.Key, false); err != nil {
			a.Reason, a.Err = ReasonMissing, fmt.Errorf("runpod: sync: %s cannot be sent: %w", lf.path, err)
			return a, false
		}
		return a, true
	}
	rf := s.remote[rel]
	return SyncAction{Op: SyncOpDownload, Key: rf.Key, Path: s.localPath(rel), Size: rf.Size}, true
}

// localPath is the local path of rel, a "/"-separated path under
// localDir, for the report.
func (s *syncRun) localPath(rel string) string {
	return filepath.Join(s.localDir, filepath.FromSlash(rel))
}

// localRel is the path under localDir of key's file or directory (a key
// under the prefix, checked by the scan), for a local write.
func (s *syncRun) localRel(key string) (string, error) {
	return s.root.Rel(strings.TrimSuffix(strings.TrimPrefix(key, s.prefix), "/"))
}

// planDeletes adds the deletes of what dst has and src lacks.
func (s *syncRun) planDeletes() {
	if s.dir == DirectionToVolume {
		for _, rel := range sortedKeys(s.remote) {
			if _, there := s.local[rel]; !there {
				s.report.Actions = append(s.report.Actions, SyncAction{Op: SyncOpDelete, Key: s.remote[rel].Key, Path: s.localPath(rel), Size: s.remote[rel].Size, Reason: ReasonExtra})
			}
		}
		return
	}
	for _, rel := range sortedKeys(s.local) {
		if _, there := s.remote[rel]; !there {
			s.report.Actions = append(s.report.Actions, SyncAction{Op: SyncOpDelete, Key: s.prefix + rel, Path: s.local[rel].path, Size: s.local[rel].size, Reason: ReasonExtra})
		}
	}
	// The directories the volume has: its empty ones, and every parent of
	// its files.
	keep := map[string]bool{}
	for rel := range s.remoteDirs {
		keep[rel] = true
	}
	for rel := range s.remote {
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			keep[d] = true
		}
	}
	for _, rel := range sortedKeys(s.localDirs) {
		if !keep[rel] {
			s.report.Actions = append(s.report.Actions, SyncAction{Op: SyncOpDelete, Key: s.prefix + rel + "/", Path: s.localDirs[rel], Reason: ReasonExtra})
		}
	}
}

// syncCompare is a pair of same-size files to compare by content.
type syncCompare struct {
	action SyncAction
	local  localFile
	remote Entry
}

// compareContents compares each pair's local MD5 with its ETag,
// WithConcurrency files at a time, and adds an action for each pair that
// differs (or cannot be compared, or failed to be read).
func (s *syncRun) compareContents(ctx context.Context, pairs []syncCompare) {
	same := make([]bool, len(pairs))
	s.each(ctx, len(pairs), func(i int) {
		p := &pairs[i]
		var ok bool
		same[i], ok, p.action.Err = sameContent(p.local.path, p.local.size, p.remote.ETag, partSizeFor(p.local.size, s.set.partSize))
		if !ok && p.action.Err == nil {
			s.v.debug("files: sync cannot compare with the ETag; copying", "key", p.remote.Key, "etag", p.remote.ETag)
		}
	})
	for i, p := range pairs {
		if same[i] {
			s.report.Skipped++
			continue
		}
		p.action.Reason = ReasonChecksum
		s.report.Actions = append(s.report.Actions, p.action)
	}
}

// execute runs the planned actions: deletes of files first (a file may
// stand where a directory is needed), then directories made, then
// transfers WithConcurrency at a time, then the emptied local directories
// removed, deepest first.
func (s *syncRun) execute(ctx context.Context, opts []Option) {
	if s.dir == DirectionFromVolume && s.root == nil {
		root, err := confine.Open(s.localDir, true)
		if err != nil {
			for i := range s.report.Actions {
				if s.report.Actions[i].Err == nil {
					s.report.Actions[i].Err = err
				}
			}
			return
		}
		s.root = root
	}
	var fileDeletes, mkdirs, transfers, dirDeletes []int
	for i, a := range s.report.Actions {
		switch {
		case a.Err != nil:
		case a.Op == SyncOpDelete && strings.HasSuffix(a.Key, "/"):
			dirDeletes = append(dirDeletes, i)
		case a.Op == SyncOpDelete:
			fileDeletes = append(fileDeletes, i)
		case a.Op == SyncOpMakeDir:
			mkdirs = append(mkdirs, i)
		default:
			transfers = append(transfers, i)
		}
	}
	// Each file goes one part at a time, with the call's options (given
	// to Upload, and as settings to the downloads), its Progress calls
	// serialized.
	callOpts := append(slices.Clip(opts), WithConcurrency(1))
	one := s.set
	one.concurrency = 1
	if fn := s.set.progress; fn != nil {
		var mu sync.Mutex
		one.progress = func(e ProgressEvent) {
			mu.Lock()
			defer mu.Unlock()
			fn(e)
		}
		callOpts = append(callOpts, WithProgress(one.progress))
	}
	s.run(ctx, fileDeletes, func(a *SyncAction) error {
		if s.dir == DirectionToVolume {
			return s.v.Delete(ctx, []string{a.Key})
		}
		return s.write(a, s.root.Remove)
	})
	s.run(ctx, mkdirs, func(a *SyncAction) error {
		return s.write(a, func(rel string) error { return s.root.MkdirAll(rel, 0o755) })
	})
	s.run(ctx, transfers, func(a *SyncAction) error {
		var e Entry
		var err error
		if a.Op == SyncOpUpload {
			e, err = s.v.Upload(ctx, a.Path, a.Key, callOpts...)
		} else {
			err = s.write(a, func(rel string) (werr error) {
				e, werr = s.v.download(ctx, s.root, rel, a.Path, a.Key, one)
				return werr
			})
		}
		if err == nil {
			a.Size = e.Size
		}
		return err
	})
	// Deepest first: a directory's key sorts before its children's.
	slices.Reverse(dirDeletes)
	for _, i := range dirDeletes {
		if ctx.Err() != nil {
			s.stopped = true
			s.report.Actions[i].Err = errNotStarted
			continue
		}
		s.report.Actions[i].Err = s.write(&s.report.Actions[i], s.root.Remove)
	}
}

// write calls fn with the path under localDir of a's key.
func (s *syncRun) write(a *SyncAction, fn func(rel string) error) error {
	rel, err := s.localRel(a.Key)
	if err != nil {
		return err
	}
	return fn(rel)
}

// errNotStarted marks the actions a canceled Sync did not start.
var errNotStarted = errors.New("runpod: sync stopped before this action")

// run does the actions at idx, WithConcurrency at a time; once ctx ends,
// the actions not started are marked so.
func (s *syncRun) run(ctx context.Context, idx []int, do func(*SyncAction) error) {
	started := make([]bool, len(idx))
	s.each(ctx, len(idx), func(k int) {
		started[k] = true
		a := &s.report.Actions[idx[k]]
		a.Err = do(a)
	})
	for k, ok := range started {
		if !ok {
			s.stopped = true
			s.report.Actions[idx[k]].Err = errNotStarted
		}
	}
}

// each calls fn(0) … fn(n-1), WithConcurrency at a time, and starts no
// more calls once ctx ends.
func (s *syncRun) each(ctx context.Context, n int, fn func(int)) {
	_ = parallel(ctx, n, s.set.concurrency, false, func(_ context.Context, i int) error {
		fn(i)
		return nil
	})
}

// finish sorts the report and joins the failures.
func (s *syncRun) finish(ctx context.Context) (*SyncReport, error) {
	r := s.report
	slices.SortStableFunc(r.Actions, func(a, b SyncAction) int { return strings.Compare(a.Key, b.Key) })
	slices.Sort(r.Ignored)
	var errs []error
	for _, a := range r.Actions {
		switch {
		case a.Err == nil:
			if a.Op == SyncOpUpload || a.Op == SyncOpDownload {
				r.Bytes += a.Size
			}
		case a.Err != errNotStarted:
			errs = append(errs, a.Err)
		}
	}
	if s.stopped {
		errs = append(errs, fmt.Errorf("runpod: sync stopped: %w", ctx.Err()))
	}
	return r, errors.Join(errs...)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
