// Package guestcache is the on-disk cache of compiled guest modules: the
// artifact's name (its key: the guest's digest, the wasmtime version, the
// platform), the trust checks an artifact passes before anyone loads it
// (ownership, permissions and a keyed digest beside it), compiling once
// across processes (a lock file) and pruning.
//
// It handles artifacts as files and bytes. It never compiles, loads or
// runs native code: the host compiles (a CompileFunc it passes to Ensure)
// and loads an artifact only after VerifyArtifact accepts it. It never
// imports cgo or wasmtime, so its tests run in seconds with CGO_ENABLED=0.
// It never decides where the cache lives: its callers pass the directory
// (Python picks it, amla_sandbox/runtime/cache.py).
package guestcache
