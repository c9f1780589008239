// Package applets holds the commands the sandbox shell can run: cat, grep,
// jq, sed, tool and the rest. Each applet is a plain Go function over a Proc
// (its standard streams, exported variables, working directory and the host's
// tools); none starts a process, none knows about the shell's parser.
//
// The guest has no processes and no per-process working directory, so an
// applet resolves every name with Proc.Path, never against the process
// directory. The one exception is awk: GoAWK opens the targets of print > "f"
// and getline < "f" itself, so awk points the process directory at Proc.Dir
// while it runs; nothing else depends on the process directory. Writes that the sandbox
// forbids surface as the usual error texts ("Permission denied", "No such
// file or directory").
//
// The shell looks applets up in a Registry by name. Applets that need to run
// another command (xargs, env, find -exec) go back through Proc.Exec, and sh
// goes back into the shell through Proc.Shell, a hook the shell sets; this
// package never imports the shell.
package applets
