// Package host is the kernel of amla-sandbox: the process-wide wasmtime
// Engine, the guest module (compiled once, its artifact cached on disk by
// gocore/guestcache), Sandboxes (each owning a private directory, limits
// and an Authorizer) and Runs (one guest instance executing one script,
// with its queue of tool requests, on a worker thread of
// gocore/workerpool).
//
// Every limit of a run is charged here, for the whole process tree: the
// memory of a run's processes and of its tool requests waiting for answers
// (memory_limit), the disk quota (asked by the guests before they write,
// and measured by the host after runs), the output caps, the deadline, the
// tool-call budget, the nesting of child processes.
//
// It never names, trusts or prunes a compiled artifact itself (guestcache
// does, and the host loads only what guestcache.VerifyArtifact accepts),
// and never starts a thread for a guest itself (workerpool does).
//
// It must never resolve a guest path itself: wasmtime's WASI preopens confine
// the guest, and host code that walks a sandbox directory never follows
// symlinks. It never calls Python: Python pulls events with Run.Step and
// answers with Run.Resume or Run.ResumeError.
//
// The bytes of snapshots and journals are gocore/snapshot's and
// gocore/journal's (pure Go): the host walks and writes a sandbox's
// directory for them, and records and replays runs with them.
package host
