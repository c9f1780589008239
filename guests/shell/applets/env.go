package applets

import (
	"maps"
	"sort"
	"strings"
)

// envApplet prints the exported variables (sorted), or runs a command with
// NAME=VALUE added (-u NAME removes, -i starts empty).
func envApplet(p *Proc, args []string) int {
	env := maps.Clone(p.Env)
	if env == nil {
		env = map[string]string{}
	}
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		switch {
		case a == "-i" || a == "-" || a == "--ignore-environment":
			env = map[string]string{}
		case a == "-u" || a == "--unset":
			if len(rest) < 2 {
				return p.usage("env", "option requires an argument -- 'u'", "env [-i] [-u NAME] [NAME=VALUE]... [COMMAND [ARG]...]")
			}
			delete(env, rest[1])
			rest = rest[1:]
		case a == "--":
			rest = rest[1:]
			goto names
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return p.usage("env", "invalid option -- '"+a[1:]+"'", "env [-i] [-u NAME] [NAME=VALUE]... [COMMAND [ARG]...]")
		default:
			goto names
		}
		rest = rest[1:]
	}
names:
	for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "=") {
		k, v, _ := strings.Cut(rest[0], "=")
		env[k] = v
		rest = rest[1:]
	}
	if len(rest) == 0 {
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(k + "=" + env[k] + "\n")
		}
		if _, err := p.Stdout.Write([]byte(b.String())); err != nil {
			return p.writeFailed("env", err)
		}
		return 0
	}
	child := *p
	child.Env = env
	return child.Exec(p.Stdin, rest)
}
