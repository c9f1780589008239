//go:build wasip1

package hostcall

import "unsafe"

//go:wasmimport amla input_len
func hostInputLen() int32

//go:wasmimport amla input_read
func hostInputRead(ptr unsafe.Pointer)

//go:wasmimport amla output
func hostOutput(fd int32, ptr unsafe.Pointer, n int32)

//go:wasmimport amla tool_submit
func hostToolSubmit(ptr unsafe.Pointer, n int32) int64

//go:wasmimport amla tool_wait
func hostToolWait(timeoutMS int64) int32

//go:wasmimport amla tool_take
func hostToolTake(ptr unsafe.Pointer)

//go:wasmimport amla exit_status
func hostExitStatus(code int32)

//go:wasmimport amla sleep
func hostSleep(ms int64)

//go:wasmimport amla spawn
func hostSpawn(ptr unsafe.Pointer, n int32) int32

//go:wasmimport amla disk_reserve
func hostDiskReserve(n int64) int32

//go:wasmimport amla spawn_take
func hostSpawnTake(ptr unsafe.Pointer)

// The shell gives no value (a command line has an exit status, not a
// value); return_value is declared with the rest of the ABI, which
// gocore/host/abi_test.go checks, and never called.
//
//go:wasmimport amla return_value
func hostReturnValue(ptr unsafe.Pointer, n int32)

const available = true

func exitStatus(code int) { hostExitStatus(int32(code)) }

func inputLen() int            { return int(hostInputLen()) }
func inputRead(buf []byte)     { hostInputRead(unsafe.Pointer(unsafe.SliceData(buf))) }
func toolWait() int            { return int(hostToolWait(-1)) }
func sleepMS(ms int64)         { hostSleep(ms) }
func diskReserve(n int64) bool { return hostDiskReserve(n) == 0 }
func spawnTake(buf []byte)     { hostSpawnTake(unsafe.Pointer(unsafe.SliceData(buf))) }
func spawn(p []byte) int {
	return int(hostSpawn(unsafe.Pointer(unsafe.SliceData(p)), int32(len(p))))
}
func toolTake(buf []byte) { hostToolTake(unsafe.Pointer(unsafe.SliceData(buf))) }
func output(fd int, p []byte) {
	hostOutput(int32(fd), unsafe.Pointer(unsafe.SliceData(p)), int32(len(p)))
}
func toolSubmit(p []byte) int64 {
	return hostToolSubmit(unsafe.Pointer(unsafe.SliceData(p)), int32(len(p)))
}

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
