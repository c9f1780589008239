package applets

import (
	"fmt"
	"io"
)

const shUsage = "sh [-e] [-u] [-x] [-o OPTION] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]... | -s [ARG]...]"

// shApplet runs a shell script in a child shell: sh -c SCRIPT [NAME
// ARGS...], sh FILE [ARGS...], or the script read from stdin (sh, sh -s).
// Options -e, -u, -x, -o OPT are passed on as a leading `set`. The shell
// itself is reached through p.Shell, which the shell package sets.
func shApplet(p *Proc, args []string) int {
	name := args[0]
	if p.Shell == nil {
		p.errorf(name, "no shell is available here")
		return 126
	}
	var setOpts []string
	var script string
	haveScript, fromStdin := false, false
	rest := args[1:]
	for len(rest) > 0 && len(rest[0]) > 1 && (rest[0][0] == '-' || rest[0][0] == '+') {
		a := rest[0]
		rest = rest[1:]
		if a == "--" {
			break
		}
		if a == "-o" || a == "+o" {
			if len(rest) == 0 {
				return p.usage(name, "-o: option requires an argument", shUsage)
			}
			setOpts = append(setOpts, a, rest[0])
			rest = rest[1:]
			continue
		}
		for _, c := range a[1:] {
			switch c {
			case 'c':
				if len(rest) == 0 {
					return p.usage(name, "-c: option requires an argument", shUsage)
				}
				script, haveScript = rest[0], true
				rest = rest[1:]
			case 's':
				fromStdin = true
			case 'e', 'u', 'x', 'f', 'v', 'n':
				setOpts = append(setOpts, string(a[0])+string(c))
			case 'i', 'l':
				// Interactive and login shells mean nothing here.
			default:
				return p.usage(name, fmt.Sprintf("-%c: invalid option", c), shUsage)
			}
		}
	}
	argv := []string{name}
	switch {
	case haveScript:
		// sh -c SCRIPT NAME ARGS...: NAME is $0.
		if len(rest) > 0 {
			argv = rest
		}
	case !fromStdin && len(rest) > 0:
		f, err := p.Open(rest[0])
		if err != nil {
			p.errorf(name, "%s: %s", rest[0], ErrText(err))
			return 127
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			p.errorf(name, "%s: %s", rest[0], ErrText(err))
			return 126
		}
		script, argv = string(b), rest
	default:
		b, err := io.ReadAll(p.Stdin)
		if err != nil {
			p.errorf(name, "reading stdin: %s", ErrText(err))
			return 1
		}
		script = string(b)
		argv = append(argv, rest...)
	}
	return p.Shell(p, ShellRun{Script: script, Args: argv, Options: setOpts})
}
