//go:build !linux

package host

// Writing a tree of directories and files elsewhere than Linux: through
// an os.Root of the base directory, which keeps every path beneath it.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

type treeWriter struct {
	root     *os.Root
	existing bool
	dirs     []snapEntry
}

func newTreeWriter(base string, existing bool) (*treeWriter, error) {
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	return &treeWriter{root: r, existing: existing}, nil
}

func (w *treeWriter) dir(e *snapEntry) error {
	if !(w.existing && parentOf(e.path) == "") {
		if err := w.root.Mkdir(e.path, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", guestPath(e.path), err)
		}
	}
	w.dirs = append(w.dirs, *e)
	return nil
}

func (w *treeWriter) file(e *snapEntry, src io.Reader, tee io.Writer) error {
	f, err := w.root.OpenFile(e.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", guestPath(e.path), err)
	}
	var dst io.Writer = f
	if tee != nil {
		dst = io.MultiWriter(f, tee)
	}
	n, err := io.Copy(dst, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != e.size {
		err = fmt.Errorf("%s: %d bytes written, want %d", guestPath(e.path), n, e.size)
	}
	if err != nil {
		return err
	}
	return w.setModeTimes(e)
}

func (w *treeWriter) setModeTimes(e *snapEntry) error {
	if err := w.root.Chmod(e.path, fs.FileMode(e.mode)); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", guestPath(e.path), err)
	}
	t := time.Unix(0, e.mtime)
	if err := w.root.Chtimes(e.path, t, t); err != nil {
		return fmt.Errorf("setting the times of %s: %w", guestPath(e.path), err)
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
