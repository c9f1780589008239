// Package wire is the one contract between the host kernel and the WASM
// guests: the names of the host functions the guests import and the JSON
// shapes that cross them. The host and the Go guest (the shell) import this
// package; the C guest (JavaScript, guests/js/amla.h) declares the same
// names and constants, and a test in package host checks that header
// against this package, so the sides cannot drift apart.
//
// It must never import anything of the host (wasmtime) or of a guest: it is
// data only.
package wire
