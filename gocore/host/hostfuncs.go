package host

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wire"
)

// newLinker defines WASI and the host functions of package wire. The
// functions are store-independent: each finds its process through the
// store's data, so one linker serves every run.
//
// Every function recovers its own panics into a trap: wasmtime-go would
// otherwise re-raise a host function's panic after Call returns, and a
// panic that reaches the Python extension aborts the interpreter.
func newLinker(eng *wasmtime.Engine) (*wasmtime.Linker, error) {
	l := wasmtime.NewLinker(eng)
	if err := l.DefineWasi(); err != nil {
		return nil, err
	}
	if err := refuseLinks(l); err != nil {
		return nil, err
	}
	for _, d := range hostFuncs() {
		if err := l.FuncWrap(wire.Module, d.name, d.fn); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// hostFunc is one host function: its name in package wire and the Go
// function wasmtime wraps (its parameters after the Caller and its results
// before the Trap are the wasm signature; abi_test.go checks the guests'
// declarations against them).
type hostFunc struct {
	name string
	fn   any
}

// hostFuncs are the host functions of package wire.
func hostFuncs() []hostFunc {
	return []hostFunc{
		{wire.FnInputLen, func(c *wasmtime.Caller) (n int32, trap *wasmtime.Trap) {
			defer guard(wire.FnInputLen, &trap)
			return int32(len(procOf(c).input)), nil
		}},
		{wire.FnInputRead, func(c *wasmtime.Caller, ptr int32) (trap *wasmtime.Trap) {
			defer guard(wire.FnInputRead, &trap)
			return copyOut(c, ptr, procOf(c).input)
		}},
		{wire.FnOutput, func(c *wasmtime.Caller, fd, ptr, n int32) (trap *wasmtime.Trap) {
			defer guard(wire.FnOutput, &trap)
			// write copies only what it keeps (nothing once a stream is at
			// its cap), so a flood makes no garbage in the host.
			b, trap := guestView(c, ptr, n)
			if trap != nil {
				return trap
			}
			procOf(c).write(int(fd), b)
			return nil
		}},
		{wire.FnToolSubmit, func(c *wasmtime.Caller, ptr, n int32) (id int64, trap *wasmtime.Trap) {
			defer guard(wire.FnToolSubmit, &trap)
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return 0, trap
			}
			id, err := procOf(c).submit(b, int64(len(memoryOf(c))))
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			return id, nil
		}},
		{wire.FnToolWait, func(c *wasmtime.Caller, timeoutMS int64) (n int32, trap *wasmtime.Trap) {
			defer guard(wire.FnToolWait, &trap)
			n, err := procOf(c).waitJournaled(timeoutMS)
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			return n, nil
		}},
		{wire.FnToolTake, func(c *wasmtime.Caller, ptr int32) (trap *wasmtime.Trap) {
			defer guard(wire.FnToolTake, &trap)
			p := procOf(c)
			trap = copyOut(c, ptr, p.taken...)
			p.taken = nil
			return trap
		}},
		{wire.FnExitStatus, func(c *wasmtime.Caller, code int32) (trap *wasmtime.Trap) {
			defer guard(wire.FnExitStatus, &trap)
			p := procOf(c)
			p.exitStatus, p.exitSet = int(code), true
			return nil
		}},
		{wire.FnSleep, func(c *wasmtime.Caller, ms int64) (trap *wasmtime.Trap) {
			defer guard(wire.FnSleep, &trap)
			if err := procOf(c).sleepJournaled(ms); err != nil {
				return wasmtime.NewTrap(err.Error())
			}
			return nil
		}},
		{wire.FnSpawn, func(c *wasmtime.Caller, ptr, n int32) (size int32, trap *wasmtime.Trap) {
			defer guard(wire.FnSpawn, &trap)
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return 0, trap
			}
			p := procOf(c)
			p.spawned = p.spawn(b, int64(len(memoryOf(c))))
			if p.run.stopped() {
				return 0, wasmtime.NewTrap(errStopped.Error())
			}
			return int32(len(p.spawned)), nil
		}},
		{wire.FnSpawnTake, func(c *wasmtime.Caller, ptr int32) (trap *wasmtime.Trap) {
			defer guard(wire.FnSpawnTake, &trap)
			p := procOf(c)
			trap = copyOut(c, ptr, p.spawned)
			p.spawned = nil
			return trap
		}},
		{wire.FnReturnValue, func(c *wasmtime.Caller, ptr, n int32) (trap *wasmtime.Trap) {
			defer guard(wire.FnReturnValue, &trap)
			p := procOf(c)
			p.returnValue = nil
			if int64(n) > p.run.sb.cfg.Limits.MaxOutput {
				return nil // dropped: the value is None
			}
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return trap
			}
			// Python decodes it from the result's JSON: only valid UTF-8
			// JSON is kept.
			if utf8.Valid(b) && json.Valid(b) {
				p.returnValue = b
			}
			return nil
		}},
		{wire.FnDiskReserve, func(c *wasmtime.Caller, n int64) (refused int32, trap *wasmtime.Trap) {
			defer guard(wire.FnDiskReserve, &trap)
			granted, err := procOf(c).reserveJournaled(n)
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			if granted {
				return 0, nil
			}
			return 1, nil
		}},
	}
}

// guard turns a panic in host function name into a trap that ends the run
// with a runtime error naming the function.
func guard(name string, trap **wasmtime.Trap) {
	if p := recover(); p != nil {
		*trap = wasmtime.NewTrap(fmt.Sprintf("amla: internal error in host function %s: %v", name, p))
	}
}

func procOf(c *wasmtime.Caller) *proc { return c.Data().(*proc) }

func memoryOf(c *wasmtime.Caller) []byte {
	mem := procOf(c).mem
	if mem == nil {
		return nil
	}
	return mem.UnsafeData(c)
}

// guestView returns guest memory [ptr, ptr+n) itself: valid only until
// the guest runs again (or grows its memory), so callers copy what they keep.
func guestView(c *wasmtime.Caller, ptr, n int32) ([]byte, *wasmtime.Trap) {
	mem := memoryOf(c)
	start, end := int64(uint32(ptr)), int64(uint32(ptr))+int64(uint32(n))
	if end > int64(len(mem)) {
		return nil, wasmtime.NewTrap("amla: guest buffer out of bounds")
	}
	return mem[start:end], nil
}

// guestBytes returns a copy of guest memory [ptr, ptr+n).
func guestBytes(c *wasmtime.Caller, ptr, n int32) ([]byte, *wasmtime.Trap) {
	view, trap := guestView(c, ptr, n)
	if trap != nil {
		return nil, trap
	}
	return append([]byte(nil), view...), nil
}

// copyOut writes parts one after another into guest memory at ptr, or
// traps if they do not all fit.
func copyOut(c *wasmtime.Caller, ptr int32, parts ...[]byte) *wasmtime.Trap {
	mem := memoryOf(c)
	start, size := int64(uint32(ptr)), int64(0)
	for _, part := range parts {
		size += int64(len(part))
	}
	if start+size > int64(len(mem)) {
		return wasmtime.NewTrap("amla: guest buffer out of bounds")
	}
	for _, part := range parts {
		start += int64(copy(mem[start:], part))
	}
	return nil
}
