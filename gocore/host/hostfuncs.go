package host

import (
	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wire"
)

// newLinker defines WASI and the host functions of package wire. The
// functions are store-independent: each finds its Run through the store's
// data, so one linker serves every run.
func newLinker(eng *wasmtime.Engine) (*wasmtime.Linker, error) {
	l := wasmtime.NewLinker(eng)
	if err := l.DefineWasi(); err != nil {
		return nil, err
	}
	defs := []struct {
		name string
		fn   any
	}{
		{wire.FnInputLen, func(c *wasmtime.Caller) int32 {
			return int32(len(runOf(c).input))
		}},
		{wire.FnInputRead, func(c *wasmtime.Caller, ptr int32) *wasmtime.Trap {
			r := runOf(c)
			return copyOut(c, ptr, r.input)
		}},
		{wire.FnOutput, func(c *wasmtime.Caller, fd, ptr, n int32) *wasmtime.Trap {
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return trap
			}
			runOf(c).write(int(fd), b)
			return nil
		}},
		{wire.FnToolSubmit, func(c *wasmtime.Caller, ptr, n int32) (int64, *wasmtime.Trap) {
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return 0, trap
			}
			return runOf(c).submit(b), nil
		}},
		{wire.FnToolWait, func(c *wasmtime.Caller) (int32, *wasmtime.Trap) {
			return runOf(c).wait()
		}},
		{wire.FnExitStatus, func(c *wasmtime.Caller, code int32) {
			r := runOf(c)
			r.mu.Lock()
			r.exitStatus, r.exitSet = int(code), true
			r.mu.Unlock()
		}},
		{wire.FnToolTake, func(c *wasmtime.Caller, ptr int32) *wasmtime.Trap {
			r := runOf(c)
			trap := copyOut(c, ptr, r.taken)
			r.taken = nil
			return trap
		}},
	}
	for _, d := range defs {
		if err := l.FuncWrap(wire.Module, d.name, d.fn); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func runOf(c *wasmtime.Caller) *Run { return c.Data().(*Run) }

func memoryOf(c *wasmtime.Caller) []byte {
	ext := c.GetExport("memory")
	if ext == nil || ext.Memory() == nil {
		return nil
	}
	return ext.Memory().UnsafeData(c)
}

// guestBytes returns a copy of guest memory [ptr, ptr+n).
func guestBytes(c *wasmtime.Caller, ptr, n int32) ([]byte, *wasmtime.Trap) {
	mem := memoryOf(c)
	start, end := int64(uint32(ptr)), int64(uint32(ptr))+int64(uint32(n))
	if end > int64(len(mem)) {
		return nil, wasmtime.NewTrap("amla: guest buffer out of bounds")
	}
	out := make([]byte, end-start)
	copy(out, mem[start:end])
	return out, nil
}

func copyOut(c *wasmtime.Caller, ptr int32, data []byte) *wasmtime.Trap {
	mem := memoryOf(c)
	start := int64(uint32(ptr))
	if start+int64(len(data)) > int64(len(mem)) {
		return wasmtime.NewTrap("amla: guest buffer out of bounds")
	}
	copy(mem[start:], data)
	return nil
}
