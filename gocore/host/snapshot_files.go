package host

// Taking, restoring and copying a sandbox's files (the snapshot format is
// gocore/snapshot). The host reads a sandbox's directory without
// ever following a symlink (Lstat, O_NOFOLLOW; a snapshot holds only
// directories and regular files, and anything else is left out: no guest
// can make one, links.go),
// and writes a restore through an os.Root of a staging directory inside
// the sandbox's own host directory, swapped in only once every byte has
// been checked: a damaged or hostile snapshot changes nothing.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/wire"
)

// Budgeted is an Authorizer whose call budgets a snapshot carries: the
// calls left per budget key, and lowering them on restore.
type Budgeted interface {
	BudgetsLeft() map[string]int64
	CapBudgets(left map[string]int64)
}

// SnapshotOptions choose how a snapshot stores files.
type SnapshotOptions struct {
	// Compress stores a file DEFLATE-compressed (fastest level) when that
	// makes it at least a tenth smaller; otherwise files are stored as
	// they are.
	Compress bool
}

// lockIdle takes s.mu for op, refusing a closed sandbox or one with a run
// in progress. The caller unlocks s.mu.
func (s *Sandbox) lockIdle(op string) error {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return ErrClosed
	}
	if r := s.active; r != nil && !r.Finished() {
		s.mu.Unlock()
		return fmt.Errorf("%s: a run is in progress on this sandbox; wait for it to end (or cancel it) first", op)
	}
	return nil
}

// walkFiles calls fn for every directory and regular file under root's
// tmp and workspace, in canonical order (gocore/snapshot), with its
// host path. It follows no symlink, and skips any entry that is neither a
// directory nor a regular file (a symlink, a named pipe, a socket: none a
// guest can make, links.go), so a snapshot, a fork and a journal's files
// digest leave it out. One found in a sandbox must not make them fail: a
// journaled run snapshots the files first, so every later run would fail,
// the rm that removes it included. A tmp or workspace that is not a
// directory is an error naming it.
func walkFiles(root string, fn func(e *snapshot.Entry, host string) error) error {
	for _, top := range []string{"tmp", "workspace"} {
		if err := walkDir(root, top, fn); err != nil {
			return err
		}
	}
	return nil
}

func walkDir(root, rel string, fn func(e *snapshot.Entry, host string) error) error {
	host := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Lstat(host)
	if err != nil {
		return fmt.Errorf("reading %s: %w", snapshot.GuestPath(rel), err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", snapshot.GuestPath(rel), kindOf(info.Mode()))
	}
	e := snapshot.Entry{Path: rel, Dir: true, Mode: uint32(info.Mode().Perm()), MTime: info.ModTime().UnixNano()}
	if err := fn(&e, host); err != nil {
		return err
	}
	// Sorted by name: the canonical order.
	ents, err := os.ReadDir(host)
	if err != nil {
		return fmt.Errorf("reading %s: %w", snapshot.GuestPath(rel), err)
	}
	for _, d := range ents {
		child := rel + "/" + d.Name()
		if err := snapshot.CheckPath(child); err != nil {
			return fmt.Errorf("%s: %v", snapshot.GuestPath(child), err)
		}
		switch t := d.Type(); {
		case t.IsDir():
			if err := walkDir(root, child, fn); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return fmt.Errorf("reading %s: %w", snapshot.GuestPath(child), err)
			}
			e := snapshot.Entry{Path: child, Mode: uint32(fi.Mode().Perm()), MTime: fi.ModTime().UnixNano(), Size: fi.Size()}
			if err := fn(&e, filepath.Join(host, d.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeDevice != 0:
		return "device file"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}

// openRegular opens host for reading, refusing a symlink, and checks it
// is still the regular file of size e.Size the walk saw.
func openRegular(host string, e *snapshot.Entry) (*os.File, error) {
	f, err := os.OpenFile(host, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", snapshot.GuestPath(e.Path), err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != e.Size {
		f.Close()
		return nil, fmt.Errorf("reading %s: it changed while being read", snapshot.GuestPath(e.Path))
	}
	return f, nil
}

// Snapshot returns the sandbox's files (/tmp, /workspace) and the calls
// its budgets have left, in the snapshot format. It is an error while a
// run is in progress.
func (s *Sandbox) Snapshot(opt SnapshotOptions) ([]byte, error) {
	if err := s.lockIdle("snapshot"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	return s.snapshotLocked(opt)
}

// snapshotLocked is Snapshot with s.mu held and no run in progress.
func (s *Sandbox) snapshotLocked(opt SnapshotOptions) ([]byte, error) {
	// The files are listed first, so the snapshot's bytes are allocated
	// once and each file is read straight into them.
	type listed struct {
		e    snapshot.Entry
		host string
	}
	var list []listed
	total := 0
	err := walkFiles(s.Root(), func(e *snapshot.Entry, host string) error {
		list = append(list, listed{*e, host})
		total += snapshot.Estimate(e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	w := snapshot.NewWriter(s.durableKey(), opt.Compress, total)
	for i := range list {
		e, host := &list[i].e, list[i].host
		if e.Dir {
			w.Dir(e)
			continue
		}
		f, err := openRegular(host, e)
		if err != nil {
			return nil, fmt.Errorf("snapshot: %w", err)
		}
		err = w.File(e, func(dst []byte) error {
			_, err := io.ReadFull(f, dst)
			return err
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("snapshot: reading %s: %w", snapshot.GuestPath(e.Path), err)
		}
	}
	if b, ok := s.budgetsLeft(); ok {
		w.Budgets(b)
	}
	// A kept interpreter's state (keep_live.go): its ranges point into
	// the instance's memory until the writer has copied them.
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	states, err := s.liveStatesLocked()
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if len(states) > 0 {
		sessions := make([]snapshot.Session, len(states))
		ranges := make([][]snapshot.Range, len(states))
		for i, st := range states {
			sessions[i], ranges[i] = st.session, st.ranges
		}
		w.Sessions(sessions, ranges)
	}
	return w.Finish(), nil
}

// FilesDigest is the files digest of the sandbox's files as they are: the
// one a snapshot of them would carry. It is an error while a run is in
// progress.
func (s *Sandbox) FilesDigest() ([32]byte, error) {
	if err := s.lockIdle("files digest"); err != nil {
		return [32]byte{}, err
	}
	defer s.mu.Unlock()
	return filesDigest(s.Root())
}

func filesDigest(root string) ([32]byte, error) {
	dw := snapshot.NewDigest()
	err := walkFiles(root, func(e *snapshot.Entry, host string) error {
		dw.Header(e)
		if e.Dir {
			return nil
		}
		f, err := openRegular(host, e)
		if err != nil {
			return err
		}
		defer f.Close()
		if n, err := io.Copy(dw, io.LimitReader(f, e.Size)); err != nil || n != e.Size {
			return fmt.Errorf("reading %s: it changed while being read", snapshot.GuestPath(e.Path))
		}
		return nil
	})
	if err != nil {
		return [32]byte{}, fmt.Errorf("files digest: %w", err)
	}
	return dw.Sum(), nil
}

// Restore replaces the sandbox's files with a snapshot's and lowers its
// budgets to what the snapshot had left (never raising one). The whole
// snapshot is checked before anything is written: its structure, its
// trailer, and that its files fit the disk quota. The files are written
// into the sandbox's own directories when those are empty (a new
// sandbox), else into a staging directory inside the sandbox's host
// directory that is swapped in at the end; either way only when every file
// inflated to its declared size and the files digest matched do the
// files count as restored. On any error the sandbox's files are as they
// were.
func (s *Sandbox) Restore(data []byte) error {
	ps, err := snapshot.Parse(data, s.durableKey())
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if quota := s.cfg.Limits.DiskQuota; ps.Cost > quota {
		return fmt.Errorf("restore: %w: its files need %d bytes of disk, more than this sandbox's disk_quota=%d", ErrSnapshot, ps.Cost, quota)
	}
	_, ok := s.budgetsLeft()
	if !ok && len(ps.Budgets) > 0 {
		return errors.New("restore: the snapshot limits tool calls, and this sandbox's authorizer keeps no budgets")
	}
	for i := range ps.Sessions {
		if err := s.checkLive(&ps.Sessions[i]); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if err := s.lockIdle("restore"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	err = s.replaceFiles(func(w *treeWriter) error {
		dw := snapshot.NewDigest()
		for i := range ps.Entries {
			e := &ps.Entries[i]
			dw.Header(e)
			var err error
			if e.Dir {
				err = w.dir(e)
			} else {
				err = w.file(e, e.Open(), dw)
			}
			if err != nil {
				return err
			}
		}
		return ps.CheckDigest(dw.Sum())
	})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	// The interpreters are the snapshot's (none when it holds none),
	// made once the files are in place: an instance holds the sandbox's
	// directories open, and a restore into a sandbox that had files swaps
	// them for new ones. What could refuse a session was checked before
	// any file changed (checkLive, and the trailer covers its bytes).
	var live []*instance
	for i := range ps.Sessions {
		in, err := s.liveFromSnapshot(&ps.Sessions[i])
		if err != nil {
			closeAll(live)
			s.installLive(nil)
			return fmt.Errorf("restore: the files were restored, the interpreters not: %w", err)
		}
		live = append(live, in)
	}
	s.installLive(live)
	if ok {
		s.capBudgets(ps.Budgets)
	}
	s.noteDigest(ps.Digest)
	return nil
}

// replaceFiles replaces the sandbox's tmp/ and workspace/ with what fill
// writes. s.mu must be held with no run in progress. When both are empty
// (a new sandbox), fill writes into them, and what it wrote is removed if
// it fails. Otherwise fill writes into a staging directory inside the
// sandbox's host directory, which is swapped in when fill succeeds (the
// spare instance is dropped: its preopened directories are the old ones)
// and the old files are removed in the background.
func (s *Sandbox) replaceFiles(fill func(w *treeWriter) error) error {
	root := s.Root()
	tops := []string{filepath.Join(root, "tmp"), filepath.Join(root, "workspace")}
	if isEmptyDir(tops[0]) && isEmptyDir(tops[1]) {
		w, err := newTreeWriter(root, true)
		if err != nil {
			return err
		}
		err = fill(w)
		if err == nil {
			err = w.finish()
		} else {
			w.abort()
		}
		if err != nil {
			for _, t := range tops {
				clearDir(t)
			}
			return err
		}
		s.disk.forget()
		return nil
	}
	dir, err := os.MkdirTemp(s.base, "restore-")
	if err != nil {
		return err
	}
	newDir, oldDir := filepath.Join(dir, "new"), filepath.Join(dir, "old")
	for _, d := range []string{newDir, oldDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(dir)
			return err
		}
	}
	w, err := newTreeWriter(newDir, false)
	if err == nil {
		if err = fill(w); err == nil {
			err = w.finish()
		} else {
			w.abort()
		}
	}
	if err == nil {
		s.dropSpare()
		err = swapDirs(root, newDir, oldDir)
	}
	// RemoveAll never follows symlinks.
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	// Removing many files takes a while on some disks; nothing waits for
	// the old ones to go.
	go os.RemoveAll(dir)
	s.disk.forget()
	return nil
}

// swapDirs moves root's tmp and workspace to oldDir and newDir's into
// root, putting back the ones already moved if a rename fails.
func swapDirs(root, newDir, oldDir string) error {
	var moved []string
	for _, top := range []string{"tmp", "workspace"} {
		cur := filepath.Join(root, top)
		err := os.Rename(cur, filepath.Join(oldDir, top))
		if err == nil {
			if err = os.Rename(filepath.Join(newDir, top), cur); err != nil {
				_ = os.Rename(filepath.Join(oldDir, top), cur)
			}
		}
		if err != nil {
			for _, m := range moved {
				cur := filepath.Join(root, m)
				_ = os.Rename(cur, filepath.Join(newDir, m))
				_ = os.Rename(filepath.Join(oldDir, m), cur)
			}
			return fmt.Errorf("swapping in the restored files: %w", err)
		}
		moved = append(moved, top)
	}
	return nil
}

func isEmptyDir(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

// clearDir removes what is inside p, following no symlink.
func clearDir(p string) {
	f, err := os.Open(p)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		_ = os.RemoveAll(filepath.Join(p, n))
	}
}

// CopyTo replaces dst's files with a copy of s's and lowers dst's budgets
// to what s has left: dst becomes an independent copy (fork). Neither
// sandbox may be running a script.
func (s *Sandbox) CopyTo(dst *Sandbox) error {
	if s == dst {
		return errors.New("fork: a sandbox cannot be copied onto itself")
	}
	if err := s.lockIdle("fork"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := dst.lockIdle("fork"); err != nil {
		return err
	}
	defer dst.mu.Unlock()
	cost, quota := int64(wire.DiskEntryCost), dst.cfg.Limits.DiskQuota
	err := dst.replaceFiles(func(w *treeWriter) error {
		return walkFiles(s.Root(), func(e *snapshot.Entry, host string) error {
			cost += wire.DiskEntryCost
			if !e.Dir {
				cost += snapshot.RoundBlock(e.Size)
			}
			if cost > quota {
				return fmt.Errorf("the files need more than the copy's disk_quota=%d", quota)
			}
			if e.Dir {
				return w.dir(e)
			}
			f, err := openRegular(host, e)
			if err != nil {
				return err
			}
			defer f.Close()
			return w.file(e, f, nil)
		})
	})
	if err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	if from, ok := s.budgetsLeft(); ok {
		dst.capBudgets(from)
	}
	if err := s.copyLiveTo(dst); err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	return nil
}

// budgetsLeft is every call budget the sandbox keeps: its authorizer's
// (when it is Budgeted) and its network rules' (netpolicy.RuleBudgets).
// It reports false when the sandbox keeps none of either kind.
func (s *Sandbox) budgetsLeft() (map[string]int64, bool) {
	out := map[string]int64{}
	b, ok := s.cfg.Authorizer.(Budgeted)
	if ok {
		out = b.BudgetsLeft()
	}
	if s.net != nil {
		rules := s.net.policy.RuleBudgets()
		if len(rules) > 0 && out == nil {
			out = map[string]int64{}
		}
		for k, v := range rules {
			out[k] = v
		}
		ok = ok || len(rules) > 0
	}
	return out, ok
}

// capBudgets lowers the sandbox's budgets to what left gives, each kind
// by its own keys.
func (s *Sandbox) capBudgets(left map[string]int64) {
	if b, ok := s.cfg.Authorizer.(Budgeted); ok {
		b.CapBudgets(left)
	}
	if s.net != nil {
		s.net.policy.CapRuleBudgets(left)
	}
}
