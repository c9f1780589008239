// Package durable is what the durable formats (gocore/snapshot,
// gocore/journal) share: the process's durable key, the envelope every
// durable artifact is written in (magic, format version, body, and a
// trailer that is an HMAC-SHA-256 under the durable key), a strict reader
// of the varint fields inside, and an inflater bounded to a declared size.
//
// It is pure Go and needs no cgo: nothing here runs a guest, touches the
// filesystem or knows what a sandbox is.
//
// It must never hand out a byte of an artifact whose trailer it has not
// checked (CheckTrailer before anything else is read), never read past the
// bytes it is given, never allocate for a declared size before checking it
// against the bytes that hold it, and never produce more bytes from a
// compressed stream than the stream declares.
package durable
