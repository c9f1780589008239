// Package pca creates and verifies PCAs (docs/capabilities.md, "PCA tokens"): CBOR tokens signed
// with Ed25519 that state which tool patterns an executor may call.
//
// Tokens must be byte-for-byte those of the reference encoder, so the CBOR
// here is deterministic (definite lengths, shortest ints, map keys in
// insertion order) and the decoder refuses anything non-canonical: a token
// that does not re-encode to the bytes that were signed cannot verify.
//
// It uses only the standard library (crypto/ed25519); it never needs the
// Python cryptography package, and it never trusts a token's contents
// before the signature of a trusted authority has been checked.
package pca
