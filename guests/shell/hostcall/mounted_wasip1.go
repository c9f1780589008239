//go:build wasip1

package hostcall

import "unsafe"

// This file holds the one WASI function the shell calls directly, apart
// from the host's own imports in imports_wasip1.go (which the host's ABI
// test reads as the shell's declaration of the amla module).

//go:wasmimport wasi_snapshot_preview1 path_open
func wasiPathOpen(dirfd int32, dirflags int32, path unsafe.Pointer, pathLen int32, oflags int32,
	rightsBase uint64, rightsInheriting uint64, fdflags int32, fd unsafe.Pointer) int32

// openMounted opens name (a path inside a directory the host mounted at
// descriptor dirfd) for reading and returns its descriptor. Go's os
// package finds preopened directories once, at start-up, which the
// snapshot froze before the host mounted this one, so the open is made
// here, relative to the descriptor.
func openMounted(dirfd int32, name string) (int32, int32) {
	var fd int32
	b := []byte(name)
	if len(b) == 0 {
		return 0, 28 // EINVAL
	}
	const rightsRead = 1<<1 | 1<<2 | 1<<5 | 1<<21 // fd_read, fd_seek, fd_tell, fd_filestat_get
	errno := wasiPathOpen(dirfd, 0, unsafe.Pointer(&b[0]), int32(len(b)), 0, rightsRead, 0, 0, unsafe.Pointer(&fd))
	return fd, errno
}
