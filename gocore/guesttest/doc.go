// Package guesttest holds integration tests only: the real host
// (gocore/host) running the real guests, the JavaScript guest built from
// guests/js by its build.py and the shell guest built from guests/shell,
// each snapshotted as the package ships them. No fake host: what these
// tests see is what a user's run does.
//
// Where a guest cannot be built here (no C compiler for wasm32-wasi, no
// QuickJS source offline) the tests use the guest a build of this checkout
// installed beside the package (amla_sandbox/amla_js.wasm), and with
// neither they skip, saying why and how to get one; a guest that fails to
// build for any other reason fails them. It must never be imported by
// anything but tests, and never writes into the source tree.
package guesttest
