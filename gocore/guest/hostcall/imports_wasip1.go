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
func hostToolWait() int32

//go:wasmimport amla tool_take
func hostToolTake(ptr unsafe.Pointer)

//go:wasmimport amla exit_status
func hostExitStatus(code int32)

const available = true

func exitStatus(code int) { hostExitStatus(int32(code)) }

func inputLen() int        { return int(hostInputLen()) }
func inputRead(buf []byte) { hostInputRead(unsafe.Pointer(unsafe.SliceData(buf))) }
func toolWait() int        { return int(hostToolWait()) }
func toolTake(buf []byte)  { hostToolTake(unsafe.Pointer(unsafe.SliceData(buf))) }
func output(fd int, p []byte) {
	hostOutput(int32(fd), unsafe.Pointer(unsafe.SliceData(p)), int32(len(p)))
}
func toolSubmit(p []byte) int64 {
	return hostToolSubmit(unsafe.Pointer(unsafe.SliceData(p)), int32(len(p)))
}
