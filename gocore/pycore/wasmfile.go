package pycore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// wasmMagic opens every WebAssembly binary; a core module follows it with
// version 1 as a little-endian uint32 (a component has another version and
// layer 1).
var wasmMagic = []byte{0x00, 'a', 's', 'm'}

const (
	wasmModuleVersion = 1
	wasmComponentTag  = 0x0001_0000 // layer 1 in the upper half of the version word
)

// checkWasmFile refuses, with an error naming path, a guest that is not a
// readable WebAssembly core module: missing, a directory, or a file whose
// header is not `\0asm` version 1. It reads eight bytes, so a sandbox with
// a wrong wasm_path fails when it is made, not at its first run with an
// engine backtrace.
func checkWasmFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return newError(kindRuntime, "WASM file not found: %s", path)
		}
		return newError(kindRuntime, "WASM file %s cannot be read: %v", path, err)
	}
	if st.IsDir() {
		return newError(kindRuntime, "WASM file %s is a directory, not a WebAssembly module", path)
	}
	if !st.Mode().IsRegular() {
		return newError(kindRuntime, "WASM file %s is not a regular file (%s), not a WebAssembly module", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return newError(kindRuntime, "WASM file %s cannot be read: %v", path, err)
	}
	defer f.Close()
	var head [8]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return newError(kindRuntime, "WASM file %s cannot be read: %v", path, err)
	}
	if n < len(head) || !bytes.Equal(head[:4], wasmMagic) {
		return newError(kindRuntime, "WASM file %s is not a WebAssembly module: it does not begin with the bytes \\0asm (it begins with %q)", path, head[:n])
	}
	switch v := binary.LittleEndian.Uint32(head[4:]); {
	case v == wasmModuleVersion:
		return nil
	case v&0xffff_0000 == wasmComponentTag:
		return newError(kindRuntime, "WASM file %s is a WebAssembly component, not a core module: the sandbox runs core modules", path)
	default:
		return newError(kindRuntime, "WASM file %s is a WebAssembly binary of version %d; the sandbox runs version 1 modules", path, v)
	}
}
