// Package guesttest holds integration tests only: the real host
// (gocore/host) running the real guests, the JavaScript guest built from
// guests/js by its build.py and the shell guest built from guests/shell,
// each snapshotted as the package ships them. No fake host: what these
// tests see is what a user's run does.
package guesttest
