// Command amla-snapshot pays a guest's start-up once, at build time: it
// instantiates a reactor guest, runs its one-time set-up (_initialize,
// then amla_init), and writes a module whose instances start in that
// state (gocore/wasmsnap, the Wizer technique). Every run still gets a
// fresh instance; it just no longer repeats runtime init, package init or
// (for JavaScript) engine creation and the prelude.
//
// See host.SnapshotGuest for what the instance sees while it sets up.
//
// Usage: amla-snapshot IN.wasm OUT.wasm
//
// It runs only at build time (setup.py); nothing of the installed package
// calls it, and it never writes anything but OUT.wasm (through a
// temporary file beside it, renamed into place).
package main
