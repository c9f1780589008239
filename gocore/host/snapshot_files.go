package host

// Taking, restoring and copying a sandbox's files (the snapshot format is
// in snapshot_format.go). The host reads a sandbox's directory without
// ever following a symlink (Lstat, O_NOFOLLOW; a snapshot holds only
// directories and regular files, and anything else is an error naming it),
// and writes a restore through an os.Root of a staging directory inside
// the sandbox's own host directory, swapped in only once every byte has
// been checked: a damaged or hostile snapshot changes nothing.

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

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
// tmp and workspace, in canonical order (snapshot_format.go), with its
// host path. It follows no symlink, and any entry that is neither a
// directory nor a regular file is an error naming it.
func walkFiles(root string, fn func(e *snapEntry, host string) error) error {
	for _, top := range []string{"tmp", "workspace"} {
		if err := walkDir(root, top, fn); err != nil {
			return err
		}
	}
	return nil
}

func walkDir(root, rel string, fn func(e *snapEntry, host string) error) error {
	host := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Lstat(host)
	if err != nil {
		return fmt.Errorf("reading %s: %w", guestPath(rel), err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", guestPath(rel), kindOf(info.Mode()))
	}
	e := snapEntry{path: rel, dir: true, mode: uint32(info.Mode().Perm()), mtime: info.ModTime().UnixNano()}
	if err := fn(&e, host); err != nil {
		return err
	}
	// Sorted by name: the canonical order.
	ents, err := os.ReadDir(host)
	if err != nil {
		return fmt.Errorf("reading %s: %w", guestPath(rel), err)
	}
	for _, d := range ents {
		child := rel + "/" + d.Name()
		if err := checkSnapPath(child); err != nil {
			return fmt.Errorf("%s: %v", guestPath(child), err)
		}
		switch t := d.Type(); {
		case t.IsDir():
			if err := walkDir(root, child, fn); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return fmt.Errorf("reading %s: %w", guestPath(child), err)
			}
			e := snapEntry{path: child, mode: uint32(fi.Mode().Perm()), mtime: fi.ModTime().UnixNano(), size: fi.Size()}
			if err := fn(&e, filepath.Join(host, d.Name())); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s is a %s; a sandbox's files can only be directories and regular files", guestPath(child), kindOf(t))
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
// is still the regular file of size e.size the walk saw.
func openRegular(host string, e *snapEntry) (*os.File, error) {
	f, err := os.OpenFile(host, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", guestPath(e.path), err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != e.size {
		f.Close()
		return nil, fmt.Errorf("reading %s: it changed while being read", guestPath(e.path))
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
	var out bytes.Buffer
	out.WriteString(snapMagic)
	out.WriteByte(snapVersion)
	dw := newDigestWriter()
	var hdr, data, packed []byte
	var zw *flate.Writer
	err := walkFiles(s.Root(), func(e *snapEntry, host string) error {
		hdr = appendEntryHeader(hdr[:0], e)
		dw.header(e)
		out.Write(hdr)
		if e.dir {
			return nil
		}
		f, err := openRegular(host, e)
		if err != nil {
			return err
		}
		defer f.Close()
		if !opt.Compress || e.size < 512 {
			out.WriteByte(methodStored)
			out.Grow(int(e.size))
			n, err := io.Copy(io.MultiWriter(&out, dw.h), io.LimitReader(f, e.size))
			if err == nil && n != e.size {
				err = errors.New("it changed while being read")
			}
			if err != nil {
				return fmt.Errorf("reading %s: %w", guestPath(e.path), err)
			}
			return nil
		}
		if int64(cap(data)) < e.size {
			data = make([]byte, e.size)
		}
		data = data[:e.size]
		if _, err := io.ReadFull(f, data); err != nil {
			return fmt.Errorf("reading %s: %w", guestPath(e.path), err)
		}
		dw.h.Write(data)
		packed, zw = deflateIfSmaller(packed[:0], data, zw)
		if packed == nil {
			out.WriteByte(methodStored)
			out.Write(data)
			return nil
		}
		out.WriteByte(methodDeflate)
		out.Write(binary.AppendUvarint(nil, uint64(len(packed))))
		out.Write(packed)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if b, ok := s.cfg.Authorizer.(Budgeted); ok {
		left := b.BudgetsLeft()
		keys := make([]string, 0, len(left))
		for k := range left {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rec := appendString([]byte{recBudget}, k)
			out.Write(binary.AppendUvarint(rec, uint64(max(left[k], 0))))
		}
	}
	out.WriteByte(recEnd)
	sum := dw.sum()
	out.Write(sum[:])
	trailer := sha256.Sum256(out.Bytes())
	out.Write(trailer[:])
	return out.Bytes(), nil
}

// deflateIfSmaller compresses data into dst at the fastest level when a
// sample of it (the first 64 KiB) shrinks by a tenth or more, and returns
// nil when storing data as it is is better.
func deflateIfSmaller(dst, data []byte, zw *flate.Writer) ([]byte, *flate.Writer) {
	var buf bytes.Buffer
	if zw == nil {
		zw, _ = flate.NewWriter(&buf, flate.BestSpeed)
	}
	sample := data
	if len(sample) > 64<<10 {
		sample = sample[:64<<10]
		zw.Reset(&buf)
		zw.Write(sample)
		zw.Close()
		if buf.Len() > len(sample)*9/10 {
			return nil, zw
		}
		buf.Reset()
	}
	w := bytes.NewBuffer(dst)
	zw.Reset(w)
	zw.Write(data)
	zw.Close()
	if w.Len() > len(data)*9/10 {
		return nil, zw
	}
	return w.Bytes(), zw
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
	dw := newDigestWriter()
	err := walkFiles(root, func(e *snapEntry, host string) error {
		dw.header(e)
		if e.dir {
			return nil
		}
		f, err := openRegular(host, e)
		if err != nil {
			return err
		}
		defer f.Close()
		if n, err := io.Copy(dw.h, io.LimitReader(f, e.size)); err != nil || n != e.size {
			return fmt.Errorf("reading %s: it changed while being read", guestPath(e.path))
		}
		return nil
	})
	if err != nil {
		return [32]byte{}, fmt.Errorf("files digest: %w", err)
	}
	return dw.sum(), nil
}

// Restore replaces the sandbox's files with a snapshot's and lowers its
// budgets to what the snapshot had left (never raising one). The whole
// snapshot is checked before anything is written: its digest, its
// structure, and that its files fit the disk quota; it is written into a
// staging directory inside the sandbox's host directory, through an
// os.Root of it, and swapped in only when every file inflated to its
// declared size and the files digest matched. On any error the sandbox's
// files are as they were.
func (s *Sandbox) Restore(data []byte) error {
	ps, err := parseSnapshot(data)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if quota := s.cfg.Limits.DiskQuota; ps.cost > quota {
		return fmt.Errorf("restore: %w: its files need %d bytes of disk, more than this sandbox's disk_quota=%d", ErrSnapshot, ps.cost, quota)
	}
	budgeted, ok := s.cfg.Authorizer.(Budgeted)
	if !ok && len(ps.budgets) > 0 {
		return errors.New("restore: the snapshot limits tool calls, and this sandbox's authorizer keeps no budgets")
	}
	if err := s.lockIdle("restore"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := s.stageAndSwap(func(stage *os.Root) error { return writeSnapshot(stage, ps) }); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if budgeted != nil {
		budgeted.CapBudgets(ps.budgets)
	}
	s.noteDigest(ps.digest)
	return nil
}

// writeSnapshot writes a parsed snapshot's entries under stage.
func writeSnapshot(stage *os.Root, ps *parsedSnapshot) error {
	dw := newDigestWriter()
	for i := range ps.entries {
		e := &ps.entries[i]
		dw.header(e)
		if e.dir {
			if err := stage.Mkdir(e.path, 0o700); err != nil {
				return fmt.Errorf("creating %s: %w", guestPath(e.path), err)
			}
			continue
		}
		if err := writeFile(stage, e, dw.h, e.openData()); err != nil {
			return err
		}
	}
	if got := dw.sum(); got != ps.digest {
		return snapErr("files digest mismatch: the files inflate to %x..., the snapshot says %x...", got[:8], ps.digest[:8])
	}
	return setDirTimes(stage, ps.entries)
}

// writeFile creates e under stage with the contents src yields (also fed
// to tee), then its mode and times.
func writeFile(stage *os.Root, e *snapEntry, tee io.Writer, src io.Reader) error {
	f, err := stage.OpenFile(e.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", guestPath(e.path), err)
	}
	var w io.Writer = f
	if tee != nil {
		w = io.MultiWriter(f, tee)
	}
	n, err := io.Copy(w, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != e.size {
		err = fmt.Errorf("wrote %d bytes, want %d", n, e.size)
	}
	if err != nil {
		if errors.Is(err, ErrSnapshot) {
			return err
		}
		return fmt.Errorf("writing %s: %w", guestPath(e.path), err)
	}
	return setTimes(stage, e)
}

func setTimes(stage *os.Root, e *snapEntry) error {
	if err := stage.Chmod(e.path, fs.FileMode(e.mode)); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", guestPath(e.path), err)
	}
	t := time.Unix(0, e.mtime)
	if err := stage.Chtimes(e.path, t, t); err != nil {
		return fmt.Errorf("setting the times of %s: %w", guestPath(e.path), err)
	}
	return nil
}

// setDirTimes sets the directories' modes and times once their contents
// are written, deepest first (writing into a directory changes its mtime).
func setDirTimes(stage *os.Root, entries []snapEntry) error {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].dir {
			if err := setTimes(stage, &entries[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// stageAndSwap makes a staging directory inside the sandbox's host
// directory, lets fill write tmp/ and workspace/ into it, and then swaps
// them for the sandbox's own. s.mu must be held with no run in progress.
// The spare instance is dropped: its preopened directories are the old
// ones.
func (s *Sandbox) stageAndSwap(fill func(stage *os.Root) error) error {
	dir, err := os.MkdirTemp(s.base, "restore-")
	if err != nil {
		return err
	}
	// RemoveAll never follows symlinks; after the swap it removes the old
	// directories.
	defer os.RemoveAll(dir)
	newDir, oldDir := filepath.Join(dir, "new"), filepath.Join(dir, "old")
	for _, d := range []string{newDir, oldDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	stage, err := os.OpenRoot(newDir)
	if err != nil {
		return err
	}
	err = fill(stage)
	stage.Close()
	if err != nil {
		return err
	}
	s.dropSpare()
	root := s.Root()
	var moved []string
	for _, top := range []string{"tmp", "workspace"} {
		cur := filepath.Join(root, top)
		if err := os.Rename(cur, filepath.Join(oldDir, top)); err != nil {
			return s.unswap(root, oldDir, moved, err)
		}
		if err := os.Rename(filepath.Join(newDir, top), cur); err != nil {
			_ = os.Rename(filepath.Join(oldDir, top), cur)
			return s.unswap(root, oldDir, moved, err)
		}
		moved = append(moved, top)
	}
	s.disk.forget()
	return nil
}

// unswap puts back the directories already swapped after a later rename
// failed.
func (s *Sandbox) unswap(root, oldDir string, moved []string, cause error) error {
	for _, top := range moved {
		cur := filepath.Join(root, top)
		_ = os.RemoveAll(cur)
		_ = os.Rename(filepath.Join(oldDir, top), cur)
	}
	return fmt.Errorf("swapping in the restored files: %w", cause)
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
	src := s.Root()
	err := dst.stageAndSwap(func(stage *os.Root) error {
		var dirs []snapEntry
		cost, quota := int64(wire.DiskEntryCost), dst.cfg.Limits.DiskQuota
		err := walkFiles(src, func(e *snapEntry, host string) error {
			cost += wire.DiskEntryCost
			if e.dir {
				dirs = append(dirs, *e)
				if cost > quota {
					return fmt.Errorf("the files need more than the copy's disk_quota=%d", quota)
				}
				return stage.Mkdir(e.path, 0o700)
			}
			cost += roundBlock(e.size)
			if cost > quota {
				return fmt.Errorf("the files need more than the copy's disk_quota=%d", quota)
			}
			f, err := openRegular(host, e)
			if err != nil {
				return err
			}
			defer f.Close()
			return writeFile(stage, e, nil, io.LimitReader(f, e.size))
		})
		if err != nil {
			return err
		}
		return setDirTimes(stage, dirs)
	})
	if err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	if from, ok := s.cfg.Authorizer.(Budgeted); ok {
		if to, ok := dst.cfg.Authorizer.(Budgeted); ok {
			to.CapBudgets(from.BudgetsLeft())
		}
	}
	return nil
}
