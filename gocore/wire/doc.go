// Package wire is the one contract between the host kernel and the WASM guest:
// the names of the host functions the guest imports and the JSON shapes that
// cross them. Both sides import this package so they cannot drift apart.
//
// It must never import anything of the host (wasmtime) or the guest (goja,
// the shell): it is data only.
package wire
