package host

// Resetting an instance for the next run.
//
// A run must start from the snapshot's clean state, and a fresh instance is
// that state by construction. Making one (store, WASI context, mapping the
// snapshot's memory image) and freeing one (unmapping, with TLB shootdowns
// to the other CPUs) cost about 80 and 105 µs; worse, every page the next
// run writes is copied from the image on a page fault, about 90 faults in a
// shell `echo 1`. Together that was more than half of a short run.
//
// A used instance can be put back into the state a fresh one has instead:
//
//   - its memory: every page the run could have changed is a private
//     (anonymous) page now, because the image is mapped copy-on-write. The
//     kernel says which pages those are (dirty_linux.go), and each is copied
//     back from a pristine instance of the same module, one that never ran.
//     Pages still mapped from the image, or never touched, already hold what
//     a fresh instance holds. The copied pages stay resident, so the next
//     run writes them without faulting;
//   - its mutable globals, which a snapshot exports for this
//     (wasmsnap.ResetGlobalExport), set to the pristine instance's values;
//   - its WASI context (open files, the stderr log), made anew;
//   - the store's data, the process, made anew.
//
// Tables are not reset: the guests never change theirs (the snapshot relies
// on that as well, see package wasmsnap). Memory cannot shrink, so an
// instance whose run grew its memory is not reset; neither is one whose
// run ended in a trap (a timeout, a crash, the memory limit, an exit
// through proc_exit), nor one with more than maxResetBytes of changed
// pages, which would stay resident. Those are freed and a fresh spare is
// made, as when the kernel cannot report pages (not Linux).

import (
	"github.com/bytecodealliance/wasmtime-go/v39"
)

// maxResetBytes bounds the memory a reset copies (and keeps resident per
// sandbox between runs); past it a fresh instance is cheaper to keep.
const maxResetBytes = 2 << 20

// pristine is an instance of a guest module that never runs: the memory
// and globals every fresh instance starts with. Its memory is mapped from
// the module's image, so it costs page tables, not copies.
type pristine struct {
	store   *wasmtime.Store
	mem     []byte
	globals []wasmtime.Val
}

// pristineState returns g's pristine instance, made on first use; nil when
// g cannot be reset or the instance could not be made.
func (g *GuestModule) pristineState() *pristine {
	g.pristineOnce.Do(func() {
		if !g.resettable {
			return
		}
		store := wasmtime.NewStoreWithData(sharedEngine(), &proc{pending: map[int64]bool{}})
		// No WASI context and no run: instantiating calls nothing (a
		// snapshot has no start function).
		inst, err := g.linker.Instantiate(store, g.module)
		if err != nil {
			store.Close()
			return
		}
		ext := inst.GetExport(store, "memory")
		if ext == nil || ext.Memory() == nil {
			store.Close()
			return
		}
		pr := &pristine{store: store, mem: ext.Memory().UnsafeData(store)}
		for _, name := range g.resetGlobals {
			ge := inst.GetExport(store, name)
			if ge == nil || ge.Global() == nil {
				store.Close()
				return
			}
			pr.globals = append(pr.globals, ge.Global().Get(store))
		}
		g.pristine = pr
	})
	return g.pristine
}

// reset puts in, whose last run returned normally, back into the state of
// a fresh instance for another run of the script's own process. It reports
// false, changing nothing the caller relies on, when in cannot be reset;
// the caller then closes it.
func (s *Sandbox) reset(in *instance) bool {
	if in == nil || in.store == nil || !in.returned || in.g == nil || in.mem == nil || in.resetGlobals == nil || in.p.depth != 0 {
		return false
	}
	pr := in.g.pristineState()
	if pr == nil || len(pr.globals) != len(in.resetGlobals) {
		return false
	}
	mem := in.mem.UnsafeData(in.store)
	if len(mem) != len(pr.mem) {
		return false // the run grew the memory
	}
	spans, ok := changedPages(mem, maxResetBytes)
	if !ok {
		return false
	}
	wasi, err := s.wasiConfig(in.runtimeLog, s.cfg.Limits.MemoryLimit)
	if err != nil {
		return false
	}
	for _, sp := range spans {
		copy(mem[sp.off:sp.end], pr.mem[sp.off:sp.end])
	}
	for i, g := range in.resetGlobals {
		if err := g.Set(in.store, pr.globals[i]); err != nil {
			// The instance is half reset; the caller frees it.
			return false
		}
	}
	in.store.SetWasi(wasi)
	// The store's epoch callback pointed at the last run's stop switch.
	parked.attach(in.store)
	*in.p = proc{depth: 0, pending: map[int64]bool{}, mem: in.mem}
	in.returned = false
	return true
}

// span is the byte range [off, end) of a guest memory.
type span struct{ off, end int }
