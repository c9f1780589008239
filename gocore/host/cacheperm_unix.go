//go:build unix

package host

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwned: path (described by info) belongs to this user and nobody
// else may write to it.
func checkOwned(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot tell its owner", path)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s: owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Geteuid())
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s: writable by others (mode %v)", path, info.Mode().Perm())
	}
	return nil
}

// checkPrivate: as checkOwned, and readable by nobody else either.
func checkPrivate(path string, info fs.FileInfo) error {
	if err := checkOwned(path, info); err != nil {
		return err
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s: must be a private file (mode %v)", path, info.Mode())
	}
	return nil
}
