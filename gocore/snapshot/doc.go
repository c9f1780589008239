// Package snapshot is the snapshot format: a sandbox's files (/tmp and
// /workspace) and the calls its budgets have left, as one authenticated
// byte string (docs/durable.md gives the layout). It writes a snapshot
// record by record (Writer), computes the files digest that identifies a
// state of the files (Digest), and checks and decodes a snapshot (Parse)
// into entries whose contents are read through a bounded inflater.
//
// It is pure Go and needs no cgo. It never touches the filesystem: the
// host (gocore/host) walks a sandbox's directory and writes a restore,
// handing this package entries and bytes.
//
// It must never accept a snapshot whose trailer is not the MAC under the
// durable key of its skeleton (checked before any record is used), never
// accept a path that is not relative, clean and under tmp or workspace,
// nor entries out of walk order, never inflate a file past its declared
// size, and never change the bytes it writes for the same files, budgets
// and key: snapshots made by older builds of this format version must
// still be read, and files digests compared across builds.
package snapshot
