//go:build !linux

package host

// Writing a tree of directories and files elsewhere than Linux: through
// an os.Root of the base directory, which keeps every path beneath it.

import (
	"amlasandbox/gocore/snapshot"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

type treeWriter struct {
	root     *os.Root
	existing bool
	dirs     []snapshot.Entry
}

func newTreeWriter(base string, existing bool) (*treeWriter, error) {
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	return &treeWriter{root: r, existing: existing}, nil
}

func (w *treeWriter) dir(e *snapshot.Entry) error {
	if !(w.existing && snapshot.ParentOf(e.Path) == "") {
		if err := w.root.Mkdir(e.Path, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", snapshot.GuestPath(e.Path), err)
		}
	}
	w.dirs = append(w.dirs, *e)
	return nil
}

func (w *treeWriter) file(e *snapshot.Entry, src io.Reader, tee io.Writer) error {
	f, err := w.root.OpenFile(e.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", snapshot.GuestPath(e.Path), err)
	}
	var dst io.Writer = f
	if tee != nil {
		dst = io.MultiWriter(f, tee)
	}
	n, err := io.Copy(dst, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != e.Size {
		err = fmt.Errorf("%s: %d bytes written, want %d", snapshot.GuestPath(e.Path), n, e.Size)
	}
	if err != nil {
		return err
	}
	return w.setModeTimes(e)
}

func (w *treeWriter) setModeTimes(e *snapshot.Entry) error {
	if err := w.root.Chmod(e.Path, fs.FileMode(e.Mode)); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", snapshot.GuestPath(e.Path), err)
	}
	t := time.Unix(0, e.MTime)
	if err := w.root.Chtimes(e.Path, t, t); err != nil {
		return fmt.Errorf("setting the times of %s: %w", snapshot.GuestPath(e.Path), err)
	}
	return nil
}

func (w *treeWriter) finish() error {
	defer w.root.Close()
	// Deepest first: writing into a directory changes its mtime.
	for i := len(w.dirs) - 1; i >= 0; i-- {
		if err := w.setModeTimes(&w.dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (w *treeWriter) abort() { w.root.Close() }
