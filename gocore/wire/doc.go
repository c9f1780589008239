// Package wire is the one contract between the host kernel and the WASM
// guests: the names of the host functions the guests import and the JSON
// shapes that cross them. The host and the Go guest (the shell) import this
// package; the C guests (JavaScript and Python) declare the same names and
// constants in one header, guests/include/amla_host.h, which a test here
// checks against this package (and one in package host against the
// functions the host defines), so the sides cannot drift apart.
//
// It must never import anything of the host (wasmtime) or of a guest: it is
// data only.
package wire
