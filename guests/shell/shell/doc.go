// Package shell is the bash-like shell of the sandbox. It parses a script
// with mvdan.cc/sh/v3/syntax (bash dialect) and runs it with its own
// interpreter, which also expands words and evaluates arithmetic itself:
// mvdan's interp needs os.Pipe, which wasip1 lacks (docs/shell.md, "The
// runner"), and mvdan's expand drops the empty fields a non-blank IFS
// makes. Bash is the reference: testdata/bash holds bash's own answers.
//
// The runner knows no particular command. A command is a shell function,
// one of the builtins that must change the shell's own state (cd,
// export, read, set, ...), or an applet looked up by name in the
// applets.Registry it was given. Pipelines run their stages as goroutines
// joined by io.Pipe; a stage whose reader has gone stops as if it had
// received SIGPIPE. Descriptors above 2 and process substitutions are
// readers and writers in the shell's own table, which applets reach
// through /dev/fd/N.
//
// The shell never changes the process: it keeps its own working directory
// and hands it to every applet, never calls os.Chdir, and resolves every
// path against it. It stops when its context is cancelled, checking between
// commands, in every loop and in pipes, so runaway scripts end even before
// the host's deadline kills the guest.
//
// What a sandbox cannot have (background jobs, coprocesses) is rejected
// before anything runs, with the line and column of the construct and exit
// status 2; nothing is silently ignored.
package shell
