//go:build linux

package host

// Writing a tree of directories and files on Linux, relative to directory
// descriptors this writer made itself: every directory is created with
// mkdirat and opened with O_DIRECTORY|O_NOFOLLOW, every file with
// O_CREAT|O_EXCL|O_NOFOLLOW, and names are single path components
// (checkSnapPath), so nothing can lead outside the base directory. It
// takes a few system calls per entry where os.Root resolves every path
// anew (ten or more, each a disk metadata lookup), and sets modes and
// times on the open descriptors.

import (
	"amlasandbox/gocore/snapshot"
	"fmt"
	"io"
	"os"
	"path"
	"syscall"
	"unsafe"
)

type dirFrame struct {
	path string
	fd   int
	e    snapshot.Entry
}

// treeWriter writes entries in canonical order under base.
type treeWriter struct {
	base     int
	existing bool // base/tmp and base/workspace exist already
	stack    []dirFrame
}

func newTreeWriter(base string, existing bool) (*treeWriter, error) {
	fd, err := syscall.Open(base, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", base, err)
	}
	return &treeWriter{base: fd, existing: existing}, nil
}

// parentFd finishes the directories that are not e's ancestors and
// returns the descriptor of e's directory.
func (w *treeWriter) parentFd(e *snapshot.Entry) (int, error) {
	parent := snapshot.ParentOf(e.Path)
	for len(w.stack) > 0 && w.stack[len(w.stack)-1].path != parent {
		if err := w.pop(); err != nil {
			return -1, err
		}
	}
	if parent == "" {
		return w.base, nil
	}
	if len(w.stack) == 0 {
		return -1, fmt.Errorf("%s comes before its directory", snapshot.GuestPath(e.Path))
	}
	return w.stack[len(w.stack)-1].fd, nil
}

func (w *treeWriter) dir(e *snapshot.Entry) error {
	pfd, err := w.parentFd(e)
	if err != nil {
		return err
	}
	name := path.Base(e.Path)
	if !(w.existing && pfd == w.base) {
		if err := syscall.Mkdirat(pfd, name, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", snapshot.GuestPath(e.Path), err)
		}
	}
	fd, err := syscall.Openat(pfd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", snapshot.GuestPath(e.Path), err)
	}
	w.stack = append(w.stack, dirFrame{path: e.Path, fd: fd, e: *e})
	return nil
}

func (w *treeWriter) file(e *snapshot.Entry, src io.Reader, tee io.Writer) error {
	pfd, err := w.parentFd(e)
	if err != nil {
		return err
	}
	fd, err := syscall.Openat(pfd, path.Base(e.Path), syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", snapshot.GuestPath(e.Path), err)
	}
	f := os.NewFile(uintptr(fd), e.Path)
	var dst io.Writer = f
	if tee != nil {
		dst = io.MultiWriter(f, tee)
	}
	n, err := io.Copy(dst, src)
	if err == nil && n != e.Size {
		err = fmt.Errorf("%s: %d bytes written, want %d", snapshot.GuestPath(e.Path), n, e.Size)
	}
	if err == nil {
		err = setModeTimes(fd, e)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// pop finishes the innermost open directory: its mode and times, set now
// that nothing more is written in it.
func (w *treeWriter) pop() error {
	top := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	err := setModeTimes(top.fd, &top.e)
	syscall.Close(top.fd)
	return err
}

// finish completes the remaining directories and closes the writer.
func (w *treeWriter) finish() error {
	var err error
	for len(w.stack) > 0 {
		if perr := w.pop(); err == nil {
			err = perr
		}
	}
	syscall.Close(w.base)
	w.base = -1
	return err
}

// abort closes what is open after an error.
func (w *treeWriter) abort() {
	for _, f := range w.stack {
		syscall.Close(f.fd)
	}
	w.stack = nil
	if w.base >= 0 {
		syscall.Close(w.base)
		w.base = -1
	}
}

func setModeTimes(fd int, e *snapshot.Entry) error {
	if err := syscall.Fchmod(fd, e.Mode); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", snapshot.GuestPath(e.Path), err)
	}
	// utimensat(fd, NULL, times, 0) is futimens: the times of fd itself,
	// to the nanosecond.
	ts := [2]syscall.Timespec{syscall.NsecToTimespec(e.MTime), syscall.NsecToTimespec(e.MTime)}
	if _, _, errno := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0); errno != 0 {
		return fmt.Errorf("setting the times of %s: %w", snapshot.GuestPath(e.Path), errno)
	}
	return nil
}
