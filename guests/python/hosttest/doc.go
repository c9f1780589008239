// Package hosttest holds the Go tests of the Python guest (CPython on WASI,
// built by build.py in the parent directory): they run the real guest module,
// snapshotted as the package ships it, on the real host (gocore/host) and
// check its host calls, output, tools, files and limits. The package has
// no code of its own.
package hosttest
