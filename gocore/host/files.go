package host

// The host's file API (Python: Sandbox.files): reading, writing, listing
// and removing a sandbox's files from outside its scripts, and copying
// them to and from the host's own files.
//
// A path is a sandbox path: absolute ("/workspace/a.txt") or relative to
// /workspace ("a.txt"). It must lie in /workspace or /tmp, may not contain
// a ".." component (nothing climbs out of a directory, even to come back),
// a NUL, or bytes that are not UTF-8 (no guest can name such a file: WASI
// paths are UTF-8). Every operation goes through an os.Root of the
// sandbox's directory, so nothing it opens can lie outside it, and Lstats
// each component first: a symbolic link anywhere on the path is refused,
// never followed (no guest can make one, links.go; one put there from
// outside is still never followed). Removing a link removes the link.
//
// Reading, listing and downloading may happen while a run is in progress
// (they change nothing; a file a script is writing may be read half
// written). Writing, uploading and removing are refused while a run is in
// progress, as a snapshot is: the run's quota estimate and its files are
// its own until it ends. A write is charged to the disk quota before a
// byte is written, and one that does not fit fails with ENOSPC, as a
// script's write does; it replaces the file whole (written beside it, then
// renamed over it), so a failed write leaves the old file as it was.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/wire"
)

// Kinds of FileError.
const (
	FileNotFound = "not_found" // the path (or a directory on it) does not exist
	FileIsDir    = "is_dir"    // a file was expected, the path is a directory
	FileNotDir   = "not_dir"   // a directory was expected (or is on the path)
	FileDenied   = "denied"    // outside /workspace and /tmp, "..", or a link
	FileNoSpace  = "no_space"  // the disk quota refused the write
	FileNotEmpty = "not_empty" // removing a directory that is not empty
	FileInvalid  = "invalid"   // the path or an argument is malformed
	FileBusy     = "busy"      // a run is in progress
	FileFailed   = "failed"    // the host's file system failed otherwise
)

// FileError is a file API failure: Kind says what kind (Python picks the
// exception from it), Path the sandbox or host path at fault.
type FileError struct {
	Kind, Path, Msg string
}

func (e *FileError) Error() string { return e.Msg }

func fileErr(kind, p, format string, args ...any) *FileError {
	return &FileError{Kind: kind, Path: p, Msg: fmt.Sprintf(format, args...)}
}

// FileInfo is one entry of ListDir. Name may hold bytes that are not
// UTF-8 (a file put there from outside); Type is "file", "directory",
// "symlink" or "other"; Size is a regular file's size, else 0.
type FileInfo struct {
	Name string
	Type string
	Size int64
}

// sandboxPath checks p and returns its clean sandbox form ("/workspace/a")
// and the components under the sandbox's root (["workspace", "a"]).
func sandboxPath(p string) (string, []string, error) {
	if p == "" {
		return "", nil, fileErr(FileInvalid, p, "empty path: name a file in /workspace or /tmp")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", nil, fileErr(FileInvalid, p, "path %q contains a NUL byte", p)
	}
	if !utf8.ValidString(p) {
		return "", nil, fileErr(FileInvalid, p, "path %q is not valid UTF-8 (no guest can name such a file)", p)
	}
	full := p
	if !strings.HasPrefix(full, "/") {
		full = "/workspace/" + full
	}
	var comps []string
	for _, c := range strings.Split(full, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return "", nil, fileErr(FileDenied, p, "path %q: \"..\" is not allowed (paths may not climb out of a directory)", p)
		}
		comps = append(comps, c)
	}
	if len(comps) == 0 || (comps[0] != "workspace" && comps[0] != "tmp") {
		return "", nil, fileErr(FileDenied, p, "path %q is outside the sandbox's files: only /workspace and /tmp can be reached", p)
	}
	return "/" + strings.Join(comps, "/"), comps, nil
}

// fileOS turns an error of the host's file system about guest path p into
// a FileError.
func fileOS(op, p string, err error) error {
	var fe *FileError
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, fs.ErrNotExist):
		return fileErr(FileNotFound, p, "%s %s: no such file or directory", op, p)
	case errors.Is(err, syscall.ENOTDIR):
		return fileErr(FileNotDir, p, "%s %s: not a directory", op, p)
	case errors.Is(err, syscall.EISDIR):
		return fileErr(FileIsDir, p, "%s %s: is a directory", op, p)
	case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST):
		return fileErr(FileNotEmpty, p, "%s %s: directory not empty", op, p)
	case errors.Is(err, syscall.ELOOP):
		return fileErr(FileDenied, p, "%s %s: is a symbolic link, which the file API never follows", op, p)
	}
	return fileErr(FileFailed, p, "%s %s: %v", op, p, err)
}

// fsOp is one file operation on a sandbox: its root, the path and its
// components.
type fsOp struct {
	root  *os.Root
	path  string   // clean sandbox path
	comps []string // components under the sandbox's root
}

// rel is the path of the first n components, relative to the root.
func (o *fsOp) rel(n int) string { return strings.Join(o.comps[:n], "/") }

// openOp checks p and opens the sandbox's root; mutating ops hold s.mu
// with no run in progress (the caller unlocks it when held).
func (s *Sandbox) openOp(op, p string, mutating bool) (*fsOp, error) {
	clean, comps, err := sandboxPath(p)
	if err != nil {
		return nil, err
	}
	if mutating {
		s.mu.Lock()
		if s.closed.Load() {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		if r := s.active; r != nil && !r.Finished() {
			s.mu.Unlock()
			return nil, fileErr(FileBusy, clean, "%s %s: a run is in progress on this sandbox; files are written only between runs", op, clean)
		}
	} else if s.closed.Load() {
		return nil, ErrClosed
	}
	root, err := os.OpenRoot(s.Root())
	if err != nil {
		if mutating {
			s.mu.Unlock()
		}
		return nil, fileOS(op, clean, err)
	}
	return &fsOp{root: root, path: clean, comps: comps}, nil
}

func (s *Sandbox) closeOp(o *fsOp, mutating bool) {
	o.root.Close()
	if mutating {
		s.mu.Unlock()
	}
}

// lstat is the component n-1 of the path, refusing a symbolic link. A
// missing entry is (nil, nil).
func (o *fsOp) lstat(op string, n int) (fs.FileInfo, error) {
	info, err := o.root.Lstat(o.rel(n))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fileOS(op, o.path, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, fileErr(FileDenied, o.path, "%s %s: /%s is a symbolic link, which the file API never follows", op, o.path, o.rel(n))
	}
	return info, nil
}

// walkParents checks every directory above the path's last component:
// each must be a directory, not a link. Missing ones are an error, unless
// create, when their count is returned (the first missing one and all
// below it).
func (o *fsOp) walkParents(op string, create bool) (missing int, err error) {
	for n := 1; n < len(o.comps); n++ {
		info, err := o.lstat(op, n)
		if err != nil {
			return 0, err
		}
		if info == nil {
			if !create {
				return 0, fileErr(FileNotFound, o.path, "%s %s: no such file or directory (/%s does not exist)", op, o.path, o.rel(n))
			}
			return len(o.comps) - n, nil
		}
		if !info.IsDir() {
			return 0, fileErr(FileNotDir, o.path, "%s %s: /%s is not a directory", op, o.path, o.rel(n))
		}
	}
	return 0, nil
}

// target checks the parents and the path itself, which must exist.
func (o *fsOp) target(op string) (fs.FileInfo, error) {
	if _, err := o.walkParents(op, false); err != nil {
		return nil, err
	}
	info, err := o.lstat(op, len(o.comps))
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, fileErr(FileNotFound, o.path, "%s %s: no such file or directory", op, o.path)
	}
	return info, nil
}

// openFile opens the regular file at the path for reading, never through
// a link, and returns it with its size.
func (o *fsOp) openFile(op string) (*os.File, int64, error) {
	info, err := o.target(op)
	if err != nil {
		return nil, 0, err
	}
	if info.IsDir() {
		return nil, 0, fileErr(FileIsDir, o.path, "%s %s: is a directory", op, o.path)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fileErr(FileDenied, o.path, "%s %s: not a regular file (%s)", op, o.path, kindOf(info.Mode()))
	}
	f, err := o.root.OpenFile(o.rel(len(o.comps)), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, 0, fileOS(op, o.path, err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fileErr(FileFailed, o.path, "%s %s: it changed while being opened", op, o.path)
	}
	return f, st.Size(), nil
}

// ReadFile returns the contents of the regular file at sandbox path p.
func (s *Sandbox) ReadFile(p string) ([]byte, error) {
	o, err := s.openOp("read", p, false)
	if err != nil {
		return nil, err
	}
	defer s.closeOp(o, false)
	f, size, err := o.openFile("read")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fileOS("read", o.path, err)
	}
	return buf[:n], nil
}

// Download copies the regular file at sandbox path p to the host file
// local (created or truncated), a buffer at a time.
func (s *Sandbox) Download(p, local string) error {
	o, err := s.openOp("download", p, false)
	if err != nil {
		return err
	}
	defer s.closeOp(o, false)
	f, _, err := o.openFile("download")
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return hostFileErr("download to", local, err)
	}
	_, err = io.Copy(out, f)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileErr(FileFailed, p, "download %s to %s: %v", o.path, local, err)
	}
	return nil
}

// hostFileErr describes a failure on the host's own file local.
func hostFileErr(op, local string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileErr(FileNotFound, local, "%s %s: no such file or directory", op, local)
	case errors.Is(err, syscall.EISDIR):
		return fileErr(FileIsDir, local, "%s %s: is a directory", op, local)
	case errors.Is(err, fs.ErrPermission):
		return fileErr(FileDenied, local, "%s %s: permission denied", op, local)
	}
	return fileErr(FileFailed, local, "%s %s: %v", op, local, err)
}

// WriteFile writes data to sandbox path p (see write).
func (s *Sandbox) WriteFile(p string, data []byte) error {
	return s.write("write", p, bytes.NewReader(data), int64(len(data)))
}

// Upload copies the host file local to sandbox path p (see write), a
// buffer at a time. A local file that grows while it is copied is copied
// to the size it had when opened.
func (s *Sandbox) Upload(local, p string) error {
	f, err := os.Open(local)
	if err != nil {
		return hostFileErr("upload", local, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return hostFileErr("upload", local, err)
	}
	if st.IsDir() {
		return fileErr(FileIsDir, local, "upload %s: is a directory (upload copies one file)", local)
	}
	if !st.Mode().IsRegular() {
		return fileErr(FileInvalid, local, "upload %s: not a regular file (%s)", local, kindOf(st.Mode()))
	}
	return s.write("upload", p, f, st.Size())
}

// write makes the file at sandbox path p hold the size bytes r gives,
// creating the directories above it that are missing (as mkdir -p). The
// quota is charged first: a new file's entry, new directories' entries
// and the growth in blocks. The bytes go to a file beside the target that
// is renamed over it once complete, so a failure leaves the old file.
func (s *Sandbox) write(op, p string, r io.Reader, size int64) error {
	o, err := s.openOp(op, p, true)
	if err != nil {
		return err
	}
	defer s.closeOp(o, true)
	if len(o.comps) == 1 {
		return fileErr(FileIsDir, o.path, "%s %s: is a directory", op, o.path)
	}
	missing, err := o.walkParents(op, true)
	if err != nil {
		return err
	}
	var old int64
	cost := int64(missing) * wire.DiskEntryCost
	if missing == 0 {
		info, err := o.lstat(op, len(o.comps))
		if err != nil {
			return err
		}
		switch {
		case info == nil:
			cost += wire.DiskEntryCost
		case info.IsDir():
			return fileErr(FileIsDir, o.path, "%s %s: is a directory", op, o.path)
		case !info.Mode().IsRegular():
			return fileErr(FileDenied, o.path, "%s %s: not a regular file (%s)", op, o.path, kindOf(info.Mode()))
		default:
			old = info.Size()
		}
	}
	cost += snapshot.RoundBlock(size) - snapshot.RoundBlock(old)
	// The file written beside the target exists with the old one for a
	// moment; the quota's estimate only over-counts, so it is not charged.
	if !s.disk.charge(cost) {
		return fileErr(FileNoSpace, o.path, "%s %s: No space left on device (%d bytes would take the sandbox's files over disk_quota=%d)", op, o.path, size, s.cfg.Limits.DiskQuota)
	}
	s.forgetDigest()
	for n := len(o.comps) - missing; n < len(o.comps); n++ {
		if err := o.root.Mkdir(o.rel(n), 0o755); err != nil {
			return fileOS(op, o.path, err)
		}
	}
	var suffix [8]byte
	rand.Read(suffix[:])
	dir, name := o.rel(len(o.comps)-1), o.comps[len(o.comps)-1]
	tmp := path.Join(dir, ".amla-write-"+hex.EncodeToString(suffix[:])+"-"+name)
	if len(tmp)-len(dir) > 250 {
		tmp = path.Join(dir, ".amla-write-"+hex.EncodeToString(suffix[:]))
	}
	f, err := o.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return fileOS(op, o.path, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("the source gave %d bytes of %d (it changed while being copied)", n, size)
	}
	if err == nil {
		err = o.root.Rename(tmp, o.rel(len(o.comps)))
	}
	if err != nil {
		o.root.Remove(tmp)
		return fileErr(FileFailed, o.path, "%s %s: %v", op, o.path, err)
	}
	return nil
}

// ListDir lists the directory at sandbox path p, sorted by name. Links
// and other special files are listed as such, never followed.
func (s *Sandbox) ListDir(p string) ([]FileInfo, error) {
	o, err := s.openOp("list", p, false)
	if err != nil {
		return nil, err
	}
	defer s.closeOp(o, false)
	info, err := o.target("list")
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fileErr(FileNotDir, o.path, "list %s: not a directory", o.path)
	}
	d, err := o.root.OpenFile(o.rel(len(o.comps)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, fileOS("list", o.path, err)
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, fileOS("list", o.path, err)
	}
	out := make([]FileInfo, 0, len(ents))
	for _, e := range ents {
		fi := FileInfo{Name: e.Name(), Type: "other"}
		switch t := e.Type(); {
		case t.IsDir():
			fi.Type = "directory"
		case t&fs.ModeSymlink != 0:
			fi.Type = "symlink"
		case t.IsRegular():
			fi.Type = "file"
			if st, err := e.Info(); err == nil {
				fi.Size = st.Size()
			}
		}
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// RemoveFile removes the file at sandbox path p; a directory only when it
// is empty or recursive (then with everything in it, following no link).
// A symbolic link is removed itself. /workspace and /tmp stay.
func (s *Sandbox) RemoveFile(p string, recursive bool) error {
	o, err := s.openOp("remove", p, true)
	if err != nil {
		return err
	}
	defer s.closeOp(o, true)
	if len(o.comps) == 1 {
		return fileErr(FileDenied, o.path, "remove %s: the sandbox's own directories stay (remove what is in them)", o.path)
	}
	if _, err := o.walkParents("remove", false); err != nil {
		return err
	}
	rel := o.rel(len(o.comps))
	info, err := o.root.Lstat(rel)
	if err != nil {
		return fileOS("remove", o.path, err)
	}
	s.forgetDigest()
	s.disk.forget()
	if info.IsDir() && recursive {
		err = o.root.RemoveAll(rel)
	} else {
		err = o.root.Remove(rel)
	}
	if err != nil {
		return fileOS("remove", o.path, err)
	}
	return nil
}
