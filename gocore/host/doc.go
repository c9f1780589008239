// Package host is the kernel of amla-sandbox: the process-wide wasmtime
// Engine, the guest module (compiled once, cached on disk), Sandboxes (each
// owning a private directory, limits and an Authorizer) and Runs (one guest
// instance executing one script, with its queue of tool requests).
//
// It must never resolve a guest path itself: wasmtime's WASI preopens confine
// the guest, and host code that walks a sandbox directory never follows
// symlinks. It never calls Python: Python pulls events with Run.Next and
// answers with Run.Resume.
package host
