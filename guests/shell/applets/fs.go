package applets

import (
	"amlasandbox/guests/shell/hostcall"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
)

// Path resolves name against p.Dir. The result is clean and absolute, so
// "cd .." at "/" stays at "/" and "../../etc" never leaves the root.
func (p *Proc) Path(name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	dir := p.Dir
	if dir == "" {
		dir = "/"
	}
	return path.Join(dir, name)
}

// nopCloser keeps an applet from closing a stream it does not own.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

// Open opens name for reading. "-" and /dev/stdin are p.Stdin; /dev/null
// is empty. A directory is an error ("Is a directory").
func (p *Proc) Open(name string) (io.ReadCloser, error) {
	switch name {
	case "-", "/dev/stdin":
		return nopCloser{p.Stdin}, nil
	case "/dev/null":
		return nopCloser{strings.NewReader("")}, nil
	}
	if r, _, ok := p.devFD(name); ok {
		if r == nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EBADF}
		}
		return nopCloser{r}, nil
	}
	full := p.Path(name)
	f, err := os.Open(full)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: full, Err: syscall.EISDIR}
	}
	return f, nil
}

// devFD resolves /dev/fd/N (and /dev/stdin's siblings by number)
// through the shell's descriptors; ok is false for other names or
// outside a shell.
func (p *Proc) devFD(name string) (io.Reader, io.Writer, bool) {
	rest, found := strings.CutPrefix(name, "/dev/fd/")
	if !found || p.FD == nil {
		return nil, nil, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return nil, nil, false
	}
	switch n {
	case 0:
		return p.Stdin, nil, true
	case 1:
		return nil, p.Stdout, true
	case 2:
		return nil, p.Stderr, true
	}
	r, w, ok := p.FD(n)
	if !ok {
		return nil, nil, true
	}
	return r, w, true
}

// nopWriteCloser keeps an applet from closing p.Stdout or p.Stderr.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Create opens name for writing, truncating it, or appending when appendTo.
// /dev/null, /dev/stdout and /dev/stderr are understood.
func (p *Proc) Create(name string, appendTo bool) (io.WriteCloser, error) {
	switch name {
	case "/dev/null":
		return nopWriteCloser{io.Discard}, nil
	case "/dev/stdout":
		return nopWriteCloser{p.Stdout}, nil
	case "/dev/stderr":
		return nopWriteCloser{p.Stderr}, nil
	}
	if _, w, ok := p.devFD(name); ok {
		if w == nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EBADF}
		}
		return nopWriteCloser{w}, nil
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := hostcall.CreateFile(p.Path(name), flag, 0o644)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ErrText is the coreutils wording of a file-system error: "No such file or
// directory", "Permission denied", ... A write under the read-only root
// fails with EPERM in the guest; users expect "Permission denied".
func ErrText(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES), errors.Is(err, fs.ErrPermission),
		errors.Is(err, syscall.EROFS):
		// The read-only root answers EPERM even where the real problem is a
		// missing directory (echo > /nodir/f): say what bash would.
		var pe *fs.PathError
		if errors.As(err, &pe) && path.IsAbs(pe.Path) {
			if _, serr := os.Stat(path.Dir(pe.Path)); errors.Is(serr, fs.ErrNotExist) {
				return "No such file or directory"
			}
		}
		return "Permission denied"
	case errors.Is(err, syscall.EISDIR):
		return "Is a directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "Not a directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, syscall.ENOTEMPTY):
		return "Directory not empty"
	case errors.Is(err, syscall.EXDEV):
		return "Invalid cross-device link"
	case errors.Is(err, syscall.ELOOP):
		return "Too many levels of symbolic links"
	case errors.Is(err, syscall.ENOSPC):
		return "No space left on device"
	case errors.As(err, &errno):
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// brokenPipe reports whether err means the reader of our output has gone
// (a later pipeline stage exited). A real process would die of SIGPIPE; an
// applet stops quietly with status 141.
func brokenPipe(err error) bool {
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// StatusBrokenPipe is the status of a command stopped because its output's
// reader went away, as a shell reports a process killed by SIGPIPE.
const StatusBrokenPipe = 141

// writeFailed reports a failed write of applet name and returns its status:
// quietly 141 for a broken pipe, else a message and 1.
func (p *Proc) writeFailed(name string, err error) int {
	if brokenPipe(err) {
		return StatusBrokenPipe
	}
	p.errorf(name, "write error: %s", ErrText(err))
	return 1
}

// fileErr writes "name: file: reason" and returns 1.
func (p *Proc) fileErr(name, file string, err error) int {
	p.errorf(name, "%s: %s", file, ErrText(err))
	return 1
}

// isDir reports whether name (resolved) is a directory.
func (p *Proc) isDir(name string) bool {
	st, err := os.Stat(p.Path(name))
	return err == nil && st.IsDir()
}
