//go:build !unix

package guestcache

import "io/fs"

// checkOwned and checkPrivate check nothing where file ownership is not
// POSIX's (Windows: the cache lives in the user's own profile); the keyed
// digests still apply.
func checkOwned(string, fs.FileInfo) error   { return nil }
func checkPrivate(string, fs.FileInfo) error { return nil }
