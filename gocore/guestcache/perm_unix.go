//go:build unix

package guestcache

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwned: path (described by info) belongs to this user (or to root,
// who can change anything anyway: a package installed system-wide ships
// root's artifacts), and nobody else may write to it. A file or directory
// of this user that others may write to (a umask of 002 makes them so) is
// first made writable by this user only: what it holds is verified after
// that, when nobody else can change it.
func checkOwned(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot tell its owner", path)
	}
	mine := int(st.Uid) == os.Geteuid()
	if !mine && st.Uid != 0 {
		return fmt.Errorf("%s: owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Geteuid())
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		if !mine {
			return fmt.Errorf("%s: writable by others (mode %v)", path, perm)
		}
		if err := os.Chmod(path, perm&^0o022); err != nil {
			return fmt.Errorf("%s: writable by others (mode %v), and %v", path, perm, err)
		}
	}
	return nil
}

// checkPrivate: path is this user's own file, readable and writable by
// nobody else.
func checkPrivate(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot tell its owner", path)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s: owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Geteuid())
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s: must be a private file (mode %v)", path, info.Mode())
	}
	return nil
}
