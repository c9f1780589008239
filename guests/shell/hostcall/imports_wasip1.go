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
func toolWait(ms int64) int    { return int(hostToolWait(ms)) }
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
