package host

import (
	"fmt"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// A sandbox's files are directories and regular files. No guest may make a
// symbolic or hard link: a symlink is something the host would have to
// avoid following in every walk, and a hard link is one file under many
// names, which the quota, a snapshot and a fork each count as one copy per
// name. The WASI calls that make them, path_symlink and path_link, are
// shadowed in every guest's linker by functions that refuse with EPERM
// without touching the directory, so every guest (JavaScript, the shell,
// Python's os.symlink and os.link, a C library) gets "operation not
// permitted".
//
// A link that exists anyway (made outside the host) is never followed and
// never carried: the walks that read a sandbox's files (snapshot, fork,
// the files digest of a journal, the disk quota) skip every entry that is
// neither a directory nor a regular file, and removing it (rm) is a WASI
// path_unlink_file, which removes the link itself.

// errnoPerm is WASI's EPERM.
const errnoPerm = 63

// refuseLinks shadows WASI's path_symlink and path_link in l (which must
// already define WASI) with functions that return EPERM.
func refuseLinks(l *wasmtime.Linker) error {
	l.AllowShadowing(true)
	defer l.AllowShadowing(false)
	defs := []struct {
		name string
		fn   any
	}{
		// path_symlink(old_path, old_path_len, fd, new_path, new_path_len)
		{"path_symlink", func(_ *wasmtime.Caller, _, _, _, _, _ int32) int32 { return errnoPerm }},
		// path_link(old_fd, old_flags, old_path, old_path_len, new_fd,
		// new_path, new_path_len)
		{"path_link", func(_ *wasmtime.Caller, _, _, _, _, _, _, _ int32) int32 { return errnoPerm }},
	}
	for _, d := range defs {
		if err := l.FuncWrap(wasiModule, d.name, d.fn); err != nil {
			return fmt.Errorf("defining %s: %w", d.name, err)
		}
	}
	return nil
}
