// Package wasmsnap turns an initialised WebAssembly instance into a module
// that starts in that state, so that runtime init, package init and any
// other setup are paid once, when the snapshot is made, instead of on every
// instantiation. It is the technique of Wizer, written for this project:
//
//  1. Instrument exports the module's memory and defined globals under
//     reserved names ("__snap_memory", "__snap_global_<i>").
//  2. The host instantiates the instrumented module with the same imports
//     it will give later instances (WASI preopens included), and calls the
//     init exports (for a WASI reactor: "_initialize", then its own).
//  3. CaptureInstance reads the memory and the globals.
//  4. Rewrite changes the original module: mutable globals start at their
//     captured values, memory 0's minimum is the captured size, the data
//     segments hold the captured memory's non-zero parts, and the start
//     section and "_initialize" export are gone. Its mutable globals are
//     exported as "__snap_reset_global_<i>", so that a host can put a used
//     instance back into the snapshot's state (its memory as a fresh
//     instance maps it, and these globals) instead of making a new one.
//
// Snapshot does steps 1 to 4 with wasmtime-go. Engines map data segments of
// a module into memory copy-on-write (wasmtime does so from a memory image
// it builds at compile time), so a snapshot instantiates about as fast as
// the original, and the calls that init made are not repeated.
//
// The binary rewriting is plain Go over the core WebAssembly binary format;
// only Snapshot and CaptureInstance use wasmtime. It never reads or writes
// files (modules come and go as bytes), and never imports the host or
// knows a guest's language or the host functions' meaning.
//
// How a host uses it: build the guest as a reactor (Go: -buildmode=c-shared
// with //go:wasmexport entries; C: -mexec-model=reactor with an exported
// init that reads no per-run input). Once per guest module, make a store
// set up as runs will be (same WASI preopens in the same order, same
// environment; with epoch interruption on, a deadline), a linker with the
// WASI imports and the host functions (init should call none that depend
// on a run; TrapImports defines them as functions that trap, naming
// themselves, which makes that explicit), and call
//
//	snap, err := wasmsnap.Snapshot(store, linker, guestWasm,
//		wasmsnap.CallExports("_initialize", "amla_init"))
//
// Compile snap and cache it like any module (key it on the sha256 of the
// original module plus everything init could see). Every run then
// instantiates the snapshot in a fresh store and calls its run export
// directly: fresh state each run, no init. Making a snapshot compiles the
// module twice (instrumented, then the snapshot); an engine set for fast
// compilation may serve the first, since Snapshot only needs the store to
// run init.
//
// What a snapshot freezes, and what it cannot handle:
//
//   - Only modules that define exactly one 32-bit, non-shared memory. An
//     imported memory, several memories, memory64 and shared memory are
//     rejected with an error.
//   - Globals: numeric ones are captured; a mutable global of another type
//     (v128, funcref, externref) is rejected; immutable ones keep their
//     initialisers.
//   - Tables are not captured. If init changes a table (table.set,
//     table.grow, for example to register a callback or load a library at
//     run time) the snapshot is wrong; this is not detected, so only
//     snapshot guests known not to do it (Go and C programs built for
//     wasip1 do not).
//   - Host state is not part of the module. WASI file descriptors opened
//     during init (preopens, which the Go and C runtimes look up in their
//     init) are numbers in memory: later instances must get the same
//     preopens in the same order. Environment variables, arguments, the
//     clock and random numbers read during init are frozen into the
//     snapshot.
//   - For Go that means: the runtime copies the environment and arguments
//     during init, so os.Getenv and os.Args give the snapshot's values in
//     every instance (GOMEMLIMIT included: a per-run limit must be applied
//     with debug.SetMemoryLimit from a value passed at run time, through a
//     wasmexport parameter or a host call). The map hash seed and the
//     runtime's random state are drawn during init too, so every instance
//     of one snapshot iterates maps in the same order and math/rand (v1
//     and v2 top-level functions) returns the same sequence; crypto/rand
//     reads fresh random bytes on every call and is unaffected, and a
//     math/rand source seeded from it per run is fine.
//   - The monotonic clock of a new WASI context starts near zero again, so
//     a runtime that remembered a monotonic reading during init sees time
//     step back by the length of init; Go's timers and sleeps still work
//     (tested).
//   - Anything a host function handed the instance during init (handles,
//     resources) is frozen as well and must stay valid for later instances.
package wasmsnap
