package applets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostcall"
)

// pythonApplet runs Python from the shell: `python -c CODE [ARG...]`,
// `python - [ARG...]` (the script on stdin) or `python FILE [ARG...]`
// (also as python3). Python runs on its own guest (guests/python/), as a
// child process the host starts on the same files, inside this run's
// limits; its stdin is this command's stdin (read to its end first), except
// with `-`, where stdin is the script.
func pythonApplet(p *Proc, args []string) int {
	name := args[0]
	usage := func() int {
		fmt.Fprintf(p.Stderr, "usage: %s -c CODE [ARG...] | %s - [ARG...] | %s FILE [ARG...]\n", name, name, name)
		return 2
	}
	if len(args) < 2 {
		return usage()
	}
	req := wire.SpawnRequest{Language: wire.LangPython}
	switch a := args[1]; {
	case a == "-c":
		if len(args) < 3 {
			fmt.Fprintf(p.Stderr, "%s: argument expected for the -c option\n", name)
			return 2
		}
		req.Code = args[2]
		req.Argv = append([]string{"-c"}, args[3:]...)
	case a == "-":
		b, err := io.ReadAll(p.Stdin)
		if err != nil {
			fmt.Fprintf(p.Stderr, "%s: reading stdin: %v\n", name, err)
			return 1
		}
		req.Code = string(b)
		req.Argv = append([]string{"-"}, args[2:]...)
	case a == "-V" || a == "--version":
		req.Code, req.Argv = "import sys; print('Python', sys.version.split()[0])", []string{"-c"}
	case strings.HasPrefix(a, "-"):
		fmt.Fprintf(p.Stderr, "%s: unsupported option %s (the sandbox's python takes -c CODE, - or FILE)\n", name, a)
		return usage()
	default:
		b, err := os.ReadFile(p.Path(a))
		if err != nil {
			why := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				why = "No such file or directory"
			} else if errors.Is(err, fs.ErrPermission) {
				why = "Permission denied"
			}
			fmt.Fprintf(p.Stderr, "%s: can't open file '%s': %s\n", name, a, why)
			return 2
		}
		req.Code = string(b)
		req.Argv = args[1:]
	}
	if req.Argv[0] != "-" && p.Stdin != nil {
		// Piped input is the script's stdin.
		b, err := io.ReadAll(p.Stdin)
		if err != nil {
			fmt.Fprintf(p.Stderr, "%s: reading stdin: %v\n", name, err)
			return 1
		}
		req.Stdin, req.HasStdin = string(b), len(b) > 0
	}
	// The child starts in this shell's directory, where relative paths
	// in its argv mean what they mean here.
	req.Dir = p.Dir
	// And with this shell's exported variables as its environment.
	req.Env = p.Env
	res := hostcall.Spawn(req)
	io.WriteString(p.Stdout, res.Stdout)
	io.WriteString(p.Stderr, res.Stderr)
	if res.Error != "" && res.ExitCode != 0 && !strings.Contains(res.Stderr, res.Error) {
		fmt.Fprintf(p.Stderr, "%s: %s\n", name, res.Error)
	}
	return res.ExitCode
}
