// Package shell is the bash-like shell of the sandbox. It parses a script
// with mvdan.cc/sh/v3/syntax (bash dialect), expands words with
// mvdan.cc/sh/v3/expand, and runs the result with its own interpreter:
// mvdan's interp needs os.Pipe and processes, which a wasip1 guest lacks.
//
// The runner knows no particular command. A command is a shell function,
// one of the few builtins that must change the shell's own state (cd,
// export, read, set, ...), or an applet looked up by name in the
// applets.Registry it was given. Pipelines run their stages as goroutines
// joined by io.Pipe; a stage whose reader has gone stops as if it had
// received SIGPIPE.
//
// The shell never changes the process: it keeps its own working directory
// and hands it to every applet, never calls os.Chdir, and resolves every
// path against it. It stops when its context is cancelled, checking between
// commands, in every loop and in pipes, so runaway scripts end even before
// the host's deadline kills the guest.
//
// Syntax it does not implement (background jobs, process substitution,
// coprocesses, select) is rejected before anything runs, with the line and
// column of the construct and exit status 2; nothing is silently ignored.
package shell
