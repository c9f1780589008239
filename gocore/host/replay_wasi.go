package host

// The WASI functions of journaled runs. A guest learns about the world
// outside it through a few WASI calls besides the amla host functions:
// the clock, random bytes, poll_oneoff (sleeps: the Go runtime's timers),
// file times and inode numbers (filestat), and the order of directory
// entries (fd_readdir). A journaled run's instances are linked against a
// linker where our own functions shadow wasmtime's for those calls.
//
// Recording, our function calls wasmtime's real one and journals what it
// wrote. It reaches the real one through a tiny shim module instantiated
// in the same store, which imports wasmtime's WASI functions and the
// guest's memory and re-exports that memory as "memory": wasmtime's WASI
// functions find the memory they write through their caller's "memory"
// export, and a host function called directly from Go has no caller
// instance, so the call must come from wasm.
//
// Replaying, clock, random bytes, poll_oneoff and fd_readdir write the
// journal's bytes without calling wasmtime (no sleep sleeps); filestat
// calls the real one (the file must exist as it did: same type, same
// size) and then writes the journal's times and inode numbers.

import (
	"amlasandbox/gocore/journal"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

const wasiModule = "wasi_snapshot_preview1"

// shimWAT is the shim: each export calls the WASI function of the same
// name, from wasm, with the guest's memory as the caller's "memory".
const shimWAT = `(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_get" (func $fdstat (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $pathstat (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "guest" "memory" (memory 0))
  (export "memory" (memory 0))
  (func (export "clock_time_get") (param i32 i64 i32) (result i32)
    (call $clock (local.get 0) (local.get 1) (local.get 2)))
  (func (export "random_get") (param i32 i32) (result i32)
    (call $random (local.get 0) (local.get 1)))
  (func (export "poll_oneoff") (param i32 i32 i32 i32) (result i32)
    (call $poll (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
  (func (export "fd_filestat_get") (param i32 i32) (result i32)
    (call $fdstat (local.get 0) (local.get 1)))
  (func (export "path_filestat_get") (param i32 i32 i32 i32 i32) (result i32)
    (call $pathstat (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)))
  (func (export "fd_readdir") (param i32 i32 i32 i64 i32) (result i32)
    (call $readdir (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)))
)`

// shimImports are the shim's WASI imports, in its import order.
var shimImports = []string{"clock_time_get", "random_get", "poll_oneoff", "fd_filestat_get", "path_filestat_get", "fd_readdir"}

// wasiShim is one store's shim instance: wasmtime's real functions.
type wasiShim struct {
	clock, random, poll, fdstat, pathstat, readdir *wasmtime.Func
}

var (
	journalOnce   sync.Once
	journalLinker *wasmtime.Linker // the amla functions, WASI, and ours over it
	wasiLinker    *wasmtime.Linker // WASI alone: the shim's imports
	shimModule    *wasmtime.Module
	journalErrOne error
)

// journalingLinker returns the process's linker for journaled runs.
func journalingLinker() (*wasmtime.Linker, error) {
	journalOnce.Do(func() {
		eng := sharedEngine()
		wat, err := wasmtime.Wat2Wasm(shimWAT)
		if err != nil {
			journalErrOne = fmt.Errorf("the WASI shim: %w", err)
			return
		}
		if shimModule, err = wasmtime.NewModule(eng, wat); err != nil {
			journalErrOne = fmt.Errorf("the WASI shim: %w", err)
			return
		}
		wasiLinker = wasmtime.NewLinker(eng)
		if err := wasiLinker.DefineWasi(); err != nil {
			journalErrOne = err
			return
		}
		l, err := newLinker(eng)
		if err != nil {
			journalErrOne = err
			return
		}
		l.AllowShadowing(true)
		if err := defineJournalingWasi(l); err != nil {
			journalErrOne = err
			return
		}
		journalLinker = l
	})
	return journalLinker, journalErrOne
}

// linkerFor is the linker an instance for p is made with.
func (g *GuestModule) linkerFor(p *proc) (*wasmtime.Linker, error) {
	if p.run == nil || !p.run.dur.journaled() {
		return g.linker, nil
	}
	return journalingLinker()
}

// attachShim instantiates the shim in the instance's store when the
// instance was made for a journaled run.
func (in *instance) attachShim(journaled bool) error {
	if !journaled {
		return nil
	}
	if in.mem == nil {
		return fmt.Errorf("the guest exports no memory")
	}
	imports := make([]wasmtime.AsExtern, 0, len(shimImports)+1)
	for _, name := range shimImports {
		ext := wasiLinker.Get(in.store, wasiModule, name)
		if ext == nil {
			return fmt.Errorf("wasmtime defines no WASI %s", name)
		}
		imports = append(imports, ext)
	}
	imports = append(imports, in.mem)
	inst, err := wasmtime.NewInstance(in.store, shimModule, imports)
	if err != nil {
		return fmt.Errorf("instantiating the WASI shim: %w", err)
	}
	f := func(name string) *wasmtime.Func { return inst.GetFunc(in.store, name) }
	in.shim = &wasiShim{clock: f("clock_time_get"), random: f("random_get"), poll: f("poll_oneoff"),
		fdstat: f("fd_filestat_get"), pathstat: f("path_filestat_get"), readdir: f("fd_readdir")}
	return nil
}

// realCall calls wasmtime's WASI function through the shim and returns
// its errno.
func realCall(c *wasmtime.Caller, f *wasmtime.Func, args ...any) (int32, *wasmtime.Trap) {
	v, err := f.Call(c, args...)
	if err != nil {
		return 0, wasmtime.NewTrap("amla: WASI call: " + err.Error())
	}
	return v.(int32), nil
}

// errnoFault is WASI's EFAULT: a pointer outside the guest's memory.
const errnoFault = 21

// defineJournalingWasi defines our WASI functions over wasmtime's.
func defineJournalingWasi(l *wasmtime.Linker) error {
	defs := []struct {
		name string
		fn   any
	}{
		{"clock_time_get", func(c *wasmtime.Caller, id int32, precision int64, out int32) (errno int32, trap *wasmtime.Trap) {
			defer guard("clock_time_get", &trap)
			p := procOf(c)
			d := p.run.dur
			asked := fmt.Sprintf("clock_time_get(clock %d)", id)
			ev, err := d.next(asked, journal.EvClock)
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			if ev != nil {
				if int32(ev.Clock) != id {
					return 0, trapOf(d.diverge(d.calls, ev.Describe(), asked))
				}
				if ev.Errno == 0 {
					if !putU64(c, out, ev.Value) {
						return errnoFault, nil
					}
					d.sawClock(ev.Clock, ev.Value)
				}
				d.rec.Add(ev)
				return int32(ev.Errno), nil
			}
			errno, trap = realCall(c, p.shim.clock, id, precision, out)
			if trap != nil {
				return 0, trap
			}
			rec := &journal.Event{Kind: journal.EvClock, Clock: byte(id), Errno: uint16(errno)}
			if errno == 0 {
				v, ok := getU64(c, out)
				if !ok {
					return errnoFault, nil
				}
				if d.live && id >= 1 && id <= 3 {
					v = d.liveClock(byte(id), v)
					putU64(c, out, v)
				}
				d.sawClock(byte(id), v)
				rec.Value = v
			}
			d.rec.Add(rec)
			return errno, nil
		}},
		{"random_get", func(c *wasmtime.Caller, buf, n int32) (errno int32, trap *wasmtime.Trap) {
			defer guard("random_get", &trap)
			p := procOf(c)
			d := p.run.dur
			asked := fmt.Sprintf("random_get(%d bytes)", uint32(n))
			ev, err := d.next(asked, journal.EvRandom)
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			if ev != nil {
				if ev.Errno == 0 && len(ev.Data) != int(uint32(n)) {
					return 0, trapOf(d.diverge(d.calls, ev.Describe(), asked))
				}
				if trap := copyOut(c, buf, ev.Data); trap != nil {
					return errnoFault, nil
				}
				d.rec.Add(ev)
				return int32(ev.Errno), nil
			}
			errno, trap = realCall(c, p.shim.random, buf, n)
			if trap != nil {
				return 0, trap
			}
			rec := &journal.Event{Kind: journal.EvRandom, Errno: uint16(errno)}
			if errno == 0 {
				b, t := guestBytes(c, buf, n)
				if t != nil {
					return errnoFault, nil
				}
				rec.Data = b
			}
			d.rec.Add(rec)
			return errno, nil
		}},
		{"poll_oneoff", func(c *wasmtime.Caller, in, out, nsubs, neventsPtr int32) (errno int32, trap *wasmtime.Trap) {
			defer guard("poll_oneoff", &trap)
			p := procOf(c)
			d := p.run.dur
			asked := fmt.Sprintf("poll_oneoff(%d subscriptions)", uint32(nsubs))
			ev, err := d.next(asked, journal.EvPoll)
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			if ev != nil {
				if ev.N != uint64(uint32(nsubs)) || ev.NEvents > ev.N {
					return 0, trapOf(d.diverge(d.calls, ev.Describe(), asked))
				}
				if copyOut(c, out, ev.Data) != nil || !putU32(c, neventsPtr, uint32(ev.NEvents)) {
					return errnoFault, nil
				}
				d.rec.Add(ev)
				return int32(ev.Errno), nil
			}
			restore := d.shiftAbsoluteSubscriptions(c, in, nsubs)
			errno, trap = realCall(c, p.shim.poll, in, out, nsubs, neventsPtr)
			restore()
			if trap != nil {
				return 0, trap
			}
			rec := &journal.Event{Kind: journal.EvPoll, N: uint64(uint32(nsubs)), Errno: uint16(errno)}
			if errno == 0 {
				ne, ok := getU32(c, neventsPtr)
				if !ok || ne > uint32(nsubs) {
					return errnoFault, nil
				}
				b, t := guestBytes(c, out, int32(ne*32))
				if t != nil {
					return errnoFault, nil
				}
				rec.NEvents, rec.Data = uint64(ne), b
			}
			d.rec.Add(rec)
			return errno, nil
		}},
		{"fd_filestat_get", func(c *wasmtime.Caller, fd, buf int32) (errno int32, trap *wasmtime.Trap) {
			defer guard("fd_filestat_get", &trap)
			p := procOf(c)
			return filestat(c, p, journal.EvFdStat, buf, func() (int32, *wasmtime.Trap) {
				return realCall(c, p.shim.fdstat, fd, buf)
			})
		}},
		{"path_filestat_get", func(c *wasmtime.Caller, fd, flags, path, pathLen, buf int32) (errno int32, trap *wasmtime.Trap) {
			defer guard("path_filestat_get", &trap)
			p := procOf(c)
			return filestat(c, p, journal.EvPathStat, buf, func() (int32, *wasmtime.Trap) {
				return realCall(c, p.shim.pathstat, fd, flags, path, pathLen, buf)
			})
		}},
		{"fd_readdir", func(c *wasmtime.Caller, fd, buf, bufLen int32, cookie int64, bufused int32) (errno int32, trap *wasmtime.Trap) {
			defer guard("fd_readdir", &trap)
			p := procOf(c)
			d := p.run.dur
			ev, err := d.next("fd_readdir", journal.EvReaddir)
			if err != nil {
				return 0, wasmtime.NewTrap(err.Error())
			}
			if ev != nil {
				if uint64(len(ev.Data)) > uint64(uint32(bufLen)) {
					return 0, trapOf(d.diverge(d.calls, ev.Describe(), fmt.Sprintf("fd_readdir into %d bytes", uint32(bufLen))))
				}
				if copyOut(c, buf, ev.Data) != nil || !putU32(c, bufused, uint32(ev.N)) {
					return errnoFault, nil
				}
				d.rec.Add(ev)
				return int32(ev.Errno), nil
			}
			errno, trap = realCall(c, p.shim.readdir, fd, buf, bufLen, cookie, bufused)
			if trap != nil {
				return 0, trap
			}
			rec := &journal.Event{Kind: journal.EvReaddir, Errno: uint16(errno)}
			if errno == 0 {
				used, ok := getU32(c, bufused)
				if !ok || used > uint32(bufLen) {
					return errnoFault, nil
				}
				b, t := guestBytes(c, buf, int32(used))
				if t != nil {
					return errnoFault, nil
				}
				rec.N, rec.Data = uint64(used), b
			}
			d.rec.Add(rec)
			return errno, nil
		}},
	}
	for _, def := range defs {
		if err := l.FuncWrap(wasiModule, def.name, def.fn); err != nil {
			return fmt.Errorf("defining %s: %w", def.name, err)
		}
	}
	return nil
}

// filestat journals (or replays) a filestat: the real call runs either
// way; a replay checks the file is what it was and writes the recorded
// times and inode numbers over the real ones.
func filestat(c *wasmtime.Caller, p *proc, kind byte, buf int32, real func() (int32, *wasmtime.Trap)) (int32, *wasmtime.Trap) {
	d := p.run.dur
	name := "fd_filestat_get"
	if kind == journal.EvPathStat {
		name = "path_filestat_get"
	}
	ev, err := d.next(name, kind)
	if err != nil {
		return 0, wasmtime.NewTrap(err.Error())
	}
	errno, trap := real()
	if trap != nil {
		return 0, trap
	}
	var got []byte
	if errno == 0 {
		b, t := guestBytes(c, buf, journal.FilestatSize)
		if t != nil {
			return errnoFault, nil
		}
		got = b
	}
	if ev == nil {
		d.rec.Add(&journal.Event{Kind: kind, Errno: uint16(errno), Data: got})
		return errno, nil
	}
	if uint16(errno) != ev.Errno {
		return 0, trapOf(d.diverge(d.calls, fmt.Sprintf("%s giving errno %d", name, ev.Errno), fmt.Sprintf("%s giving errno %d", name, errno)))
	}
	if errno == 0 {
		// filetype at 16, size at 32: the file must be what it was.
		sameType := got[16] == ev.Data[16]
		sameSize := got[16] != 4 || binary.LittleEndian.Uint64(got[32:]) == binary.LittleEndian.Uint64(ev.Data[32:])
		if !sameType || !sameSize {
			return 0, trapOf(d.diverge(d.calls,
				fmt.Sprintf("%s of a file of type %d and %d bytes", name, ev.Data[16], binary.LittleEndian.Uint64(ev.Data[32:])),
				fmt.Sprintf("%s of a file of type %d and %d bytes", name, got[16], binary.LittleEndian.Uint64(got[32:]))))
		}
		if copyOut(c, buf, ev.Data) != nil {
			return errnoFault, nil
		}
	}
	d.rec.Add(ev)
	return errno, nil
}

func trapOf(err error) *wasmtime.Trap { return wasmtime.NewTrap(err.Error()) }

// sawClock notes the value of a clock the guest received.
func (d *durableRun) sawClock(id byte, v uint64) {
	if id < 4 {
		d.clockLast[id], d.clockSet[id] = v, true
	}
}

// liveClock is the value a guest gets from monotonic clock id (1-3) after
// its replay went live: the host's reading, shifted forward if the
// journal's clock was ahead (another process, another machine), so the
// guest's time never runs backwards and its timers come due. The wall
// clock (0) is never shifted: it says what time it is.
func (d *durableRun) liveClock(id byte, real uint64) uint64 {
	if d.clockOffset[id] == 0 && d.clockSet[id] && real+d.clockOffset[id] < d.clockLast[id] {
		d.clockOffset[id] = d.clockLast[id] - real
	}
	return real + d.clockOffset[id]
}

// shiftAbsoluteSubscriptions moves the deadlines of absolute clock
// subscriptions of a poll_oneoff from the guest's (shifted) time to the
// host's, for the real call; the returned function puts them back.
func (d *durableRun) shiftAbsoluteSubscriptions(c *wasmtime.Caller, in, nsubs int32) func() {
	if d == nil || !d.live {
		return func() {}
	}
	type saved struct {
		ptr int32
		v   uint64
	}
	var undo []saved
	for i := int32(0); i < nsubs && i < 1024; i++ {
		sub := in + i*48
		// subscription: userdata u64, tag u8 at 8 (0 = clock), clock id
		// u32 at 16, timeout u64 at 24, precision u64 at 32, flags u16 at
		// 40 (1 = absolute).
		b, t := guestView(c, sub, 48)
		if t != nil {
			break
		}
		id := binary.LittleEndian.Uint32(b[16:])
		if b[8] != 0 || binary.LittleEndian.Uint16(b[40:])&1 == 0 || id < 1 || id > 3 || d.clockOffset[id] == 0 {
			continue
		}
		v := binary.LittleEndian.Uint64(b[24:])
		undo = append(undo, saved{sub + 24, v})
		binary.LittleEndian.PutUint64(b[24:], v-min(v, d.clockOffset[id]))
	}
	return func() {
		for _, u := range undo {
			putU64(c, u.ptr, u.v)
		}
	}
}

func getU64(c *wasmtime.Caller, ptr int32) (uint64, bool) {
	b, t := guestView(c, ptr, 8)
	if t != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}

func getU32(c *wasmtime.Caller, ptr int32) (uint32, bool) {
	b, t := guestView(c, ptr, 4)
	if t != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), true
}

func putU64(c *wasmtime.Caller, ptr int32, v uint64) bool {
	b, t := guestView(c, ptr, 8)
	if t != nil {
		return false
	}
	binary.LittleEndian.PutUint64(b, v)
	return true
}

func putU32(c *wasmtime.Caller, ptr int32, v uint32) bool {
	b, t := guestView(c, ptr, 4)
	if t != nil {
		return false
	}
	binary.LittleEndian.PutUint32(b, v)
	return true
}
