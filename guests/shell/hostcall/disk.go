package hostcall

import (
	"io"
	"os"
	"syscall"

	"amlasandbox/gocore/wire"
)

// Reserve asks the host for room for n more bytes of files under the
// sandbox's disk quota. It returns syscall.ENOSPC when they do not fit;
// every write of a guest to the sandbox's files asks first.
func Reserve(n int64) error {
	if n <= 0 || diskReserve(n) {
		return nil
	}
	return syscall.ENOSPC
}

// ReserveEntry asks for the room one new file or directory takes.
func ReserveEntry() error { return Reserve(wire.DiskEntryCost) }

// QuotaFile is a file opened for writing whose writes are charged to the
// disk quota: a write that does not fit fails with ENOSPC and writes
// nothing, so what the file already held stays intact.
type QuotaFile struct{ *os.File }

// Write reserves len(b) bytes, then writes them.
func (f QuotaFile) Write(b []byte) (int, error) {
	if err := Reserve(int64(len(b))); err != nil {
		return 0, &os.PathError{Op: "write", Path: f.Name(), Err: err}
	}
	return f.File.Write(b)
}

// ReadFrom copies through Write so every chunk is charged.
func (f QuotaFile) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{f}, r)
}

// CreateFile opens path for writing with flag (which must include a
// write mode) and charges a new file's entry cost when it did not exist.
func CreateFile(path string, flag int, perm os.FileMode) (QuotaFile, error) {
	if flag&os.O_CREATE != 0 {
		if _, err := os.Lstat(path); os.IsNotExist(err) {
			if err := ReserveEntry(); err != nil {
				return QuotaFile{}, &os.PathError{Op: "open", Path: path, Err: err}
			}
		}
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return QuotaFile{}, err
	}
	return QuotaFile{f}, nil
}

// WriteFile is os.WriteFile charged to the quota.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := CreateFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Mkdir and MkdirAll are os.Mkdir and os.MkdirAll charged to the quota.
func Mkdir(path string, perm os.FileMode) error {
	if err := ReserveEntry(); err != nil {
		return &os.PathError{Op: "mkdir", Path: path, Err: err}
	}
	return os.Mkdir(path, perm)
}

func MkdirAll(path string, perm os.FileMode) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := ReserveEntry(); err != nil {
		return &os.PathError{Op: "mkdir", Path: path, Err: err}
	}
	return os.MkdirAll(path, perm)
}

// WriteString charges like Write (os.File's own would bypass the quota).
func (f QuotaFile) WriteString(s string) (int, error) { return f.Write([]byte(s)) }
