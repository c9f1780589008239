// Package workerpool holds the process-wide resources that runs share: the
// worker threads guests run on, and the bound on idle spare instances.
//
// Workers (workers.go, workers.c): threads this package creates with a
// stack of ThreadStack bytes, big enough for a guest's wasm stack plus the
// host frames around it. At most DefaultMaxWorkers (SetMaxWorkers) runs
// compute at once; more wait in a queue (Go), a run waiting on Python gives
// its slot up (ReleaseSlot, RetakeSlot), and a nested process runs on a
// thread of its own in its parent's slot (Run). Idle workers give their
// stack pages back.
//
// Spares (spares.go): at most DefaultMaxSpares holders (sandboxes) of the
// process keep a spare instance, none unused for longer than
// DefaultSpareIdle; a janitor goroutine releases the rest and hands the
// memory they freed back to the system.
//
// It never touches wasmtime, a guest or a sandbox's state: jobs are plain
// functions and holders an interface (SpareHolder). It never calls Python.
// It uses cgo only for threads (pthread), their stacks and malloc_trim.
package workerpool
