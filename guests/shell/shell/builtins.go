package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// builtin is a command that changes the shell itself. It returns the exit
// status, and an error only for control flow (exit, return, break) or
// cancellation.
type builtin func(r *runner, args []string) (int, error)

// builtins are looked up before applets, after functions.
var builtins map[string]builtin

func init() {
	builtins = map[string]builtin{
		":":         func(*runner, []string) (int, error) { return 0, nil },
		"cd":        builtinCd,
		"pwd":       builtinPwd,
		"pushd":     builtinPushd,
		"popd":      builtinPopd,
		"dirs":      builtinDirs,
		"exit":      builtinExit,
		"return":    builtinReturn,
		"break":     builtinBreak,
		"continue":  builtinBreak,
		"shift":     builtinShift,
		"set":       builtinSet,
		"unset":     builtinUnset,
		"export":    builtinDeclare,
		"readonly":  builtinDeclare,
		"local":     builtinDeclare,
		"declare":   builtinDeclare,
		"typeset":   builtinDeclare,
		"read":      builtinRead,
		"eval":      builtinEval,
		"source":    builtinSource,
		".":         builtinSource,
		"command":   builtinCommand,
		"builtin":   builtinBuiltin,
		"type":      builtinType,
		"which":     builtinWhich,
		"exec":      builtinExec,
		"trap":      builtinTrap,
		"shopt":     builtinShopt,
		"getopts":   builtinGetopts,
		"mapfile":   builtinMapfile,
		"readarray": builtinMapfile,
		"printf":    builtinPrintf,
		"test":      builtinTest,
		"[":         builtinTest,
		"wait":      builtinWait,
		"hash":      func(*runner, []string) (int, error) { return 0, nil },
		"umask":     builtinUmask,
		"ulimit":    builtinUlimit,
		"alias":     builtinAlias,
		"unalias":   builtinUnalias,
		"jobs":      notSupported("job control is not supported: there are no background jobs"),
		"fg":        notSupported("job control is not supported: there are no background jobs"),
		"bg":        notSupported("job control is not supported: there are no background jobs"),
		"disown":    notSupported("job control is not supported: there are no background jobs"),
		"suspend":   notSupported("job control is not supported"),
		"kill":      notSupported("there are no processes to signal in the sandbox"),
	}
}

// notSupported is a builtin that explains why a bash feature is missing.
func notSupported(why string) builtin {
	return func(r *runner, args []string) (int, error) {
		r.errorf(r.line, "%s: %s", args[0], why)
		return 1, nil
	}
}

// out writes to the shell's stdout, reporting a broken pipe as SIGPIPE.
func (r *runner) out(s string) int {
	if _, err := io.WriteString(r.stdout, s); err != nil {
		return 1
	}
	return 0
}

func builtinCd(r *runner, args []string) (int, error) {
	args = args[1:]
	for len(args) > 0 && (args[0] == "-L" || args[0] == "-P" || args[0] == "--") {
		args = args[1:]
	}
	if len(args) > 1 {
		r.errorf(r.line, "cd: too many arguments")
		return 1, nil
	}
	target := r.env.Get("HOME").String()
	if target == "" {
		target = "/workspace"
	}
	print := false
	if len(args) == 1 {
		target = args[0]
		if target == "-" {
			target = r.env.Get("OLDPWD").String()
			print = true
		}
	}
	dest := r.path(target)
	st, err := os.Stat(dest)
	switch {
	case err != nil:
		r.errorf(r.line, "cd: %s: %s", target, errText(err))
		return 1, nil
	case !st.IsDir():
		r.errorf(r.line, "cd: %s: Not a directory", target)
		return 1, nil
	}
	_ = r.setString("OLDPWD", r.dir)
	r.dir = dest
	if print {
		return r.out(dest + "\n"), nil
	}
	return 0, nil
}

// builtinPushd changes directory, remembering the old one: pushd DIR,
// or pushd alone to swap the top two.
func builtinPushd(r *runner, args []string) (int, error) {
	old := r.dir
	switch {
	case len(args) == 1:
		if len(r.dirStack) == 0 {
			r.errorf(r.line, "pushd: no other directory")
			return 1, nil
		}
		if st, _ := builtinCd(r, []string{"cd", r.dirStack[0]}); st != 0 {
			return st, nil
		}
		r.dirStack[0] = old
	default:
		if st, _ := builtinCd(r, []string{"cd", args[1]}); st != 0 {
			return st, nil
		}
		r.dirStack = append([]string{old}, r.dirStack...)
	}
	return builtinDirs(r, nil)
}

// builtinPopd returns to the directory pushd remembered.
func builtinPopd(r *runner, _ []string) (int, error) {
	if len(r.dirStack) == 0 {
		r.errorf(r.line, "popd: directory stack empty")
		return 1, nil
	}
	if st, _ := builtinCd(r, []string{"cd", r.dirStack[0]}); st != 0 {
		return st, nil
	}
	r.dirStack = r.dirStack[1:]
	return builtinDirs(r, nil)
}

// builtinDirs prints the directory stack, current directory first.
func builtinDirs(r *runner, _ []string) (int, error) {
	return r.out(strings.Join(append([]string{r.dir}, r.dirStack...), " ") + "\n"), nil
}

func builtinPwd(r *runner, _ []string) (int, error) {
	return r.out(r.dir + "\n"), nil
}

// statusArg parses the N of exit/return; "" means the last status.
func (r *runner) statusArg(name string, args []string) (int, bool) {
	if len(args) < 2 {
		return r.status, true
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		r.errorf(r.line, "%s: %s: numeric argument required", name, args[1])
		return statusUsage, false
	}
	return n & 0xff, true
}

func builtinExit(r *runner, args []string) (int, error) {
	code, _ := r.statusArg("exit", args)
	return code, &exitSignal{code}
}

func builtinReturn(r *runner, args []string) (int, error) {
	if r.depth == 0 {
		r.errorf(r.line, "return: can only `return' from a function or sourced script")
		return 1, nil
	}
	code, ok := r.statusArg("return", args)
	if !ok {
		// bash still returns, with status 2.
		return code, &returnSignal{code}
	}
	return code, &returnSignal{code}
}

// builtinBreak is break and continue. As in bash, a count that is not a
// number ends the shell (status 128), and one below 1 is reported and
// treated as 1; either way the loop is left, so no script spins on it.
func builtinBreak(r *runner, args []string) (int, error) {
	n, status := 1, 0
	if len(args) > 1 {
		v, err := strconv.Atoi(args[1])
		switch {
		case err != nil:
			r.errorf(r.line, "%s: %s: numeric argument required", args[0], args[1])
			return 128, &exitSignal{128}
		case v < 1:
			r.errorf(r.line, "%s: %s: loop count out of range", args[0], args[1])
			status = 1
		default:
			n = v
		}
	}
	if r.loops == 0 {
		r.errorf(r.line, "%s: only meaningful in a `for', `while', or `until' loop", args[0])
		return 0, nil
	}
	if status != 0 {
		// bash leaves the loop (even for continue) and keeps status 1.
		return status, &loopSignal{n: 1, status: status}
	}
	return 0, &loopSignal{n: min(n, r.loops), cont: args[0] == "continue"}
}

func builtinShift(r *runner, args []string) (int, error) {
	n := 1
	if len(args) > 1 {
		v, err := strconv.Atoi(args[1])
		if err != nil || v < 0 {
			r.errorf(r.line, "shift: %s: numeric argument required", args[1])
			return 1, nil
		}
		n = v
	}
	if n > len(r.params) {
		return 1, nil
	}
	r.params = r.params[n:]
	return 0, nil
}

// builtinSet sets options (-e -u -x -f -n -v, -o NAME, +X to unset) and,
// after them or after --, the positional parameters. Alone it lists the
// variables.
func builtinSet(r *runner, args []string) (int, error) {
	if len(args) == 1 {
		var b strings.Builder
		r.env.Each(func(name string, vr expand.Variable) bool {
			if vr.IsSet() {
				b.WriteString(name + "=" + quoteValue(vr) + "\n")
			}
			return true
		})
		lines := strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n")
		sort.Strings(lines)
		return r.out(strings.Join(lines, "") + "\n"), nil
	}
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			r.params = slices.Clone(rest[1:])
			return 0, nil
		}
		if a == "-" {
			r.opts.xtrace, r.opts.verbose = false, false
			rest = rest[1:]
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			r.params = slices.Clone(rest)
			return 0, nil
		}
		on := a[0] == '-'
		rest = rest[1:]
		for i := 1; i < len(a); i++ {
			c := a[i]
			if c == 'o' {
				if len(rest) == 0 {
					r.printOptions(on)
					continue
				}
				name := rest[0]
				rest = rest[1:]
				p := r.opts.named(name)
				if p == nil {
					r.errorf(r.line, "set: %s: invalid option name", name)
					return statusUsage, nil
				}
				*p = on
				continue
			}
			p := r.opts.letter(c)
			if p == nil {
				r.errorf(r.line, "set: %c%c: invalid option", a[0], c)
				return statusUsage, nil
			}
			*p = on
		}
	}
	return 0, nil
}

// printOptions is set -o (or +o) without a name.
func (r *runner) printOptions(human bool) {
	var b strings.Builder
	for _, name := range []string{"allexport", "errexit", "noclobber", "noexec", "noglob", "nounset", "pipefail", "verbose", "xtrace"} {
		on := *r.opts.named(name)
		if human {
			state := "off"
			if on {
				state = "on"
			}
			fmt.Fprintf(&b, "%-15s\t%s\n", name, state)
		} else {
			sign := "+"
			if on {
				sign = "-"
			}
			fmt.Fprintf(&b, "set %so %s\n", sign, name)
		}
	}
	r.out(b.String())
}

// quoteValue prints a variable as `set` and `declare -p` do.
func quoteValue(vr expand.Variable) string {
	q := func(s string) string {
		out, err := syntax.Quote(s, syntax.LangBash)
		if err != nil {
			return strconv.Quote(s)
		}
		return out
	}
	switch vr.Kind {
	case expand.Indexed:
		var parts []string
		for i, v := range vr.List {
			parts = append(parts, fmt.Sprintf("[%d]=%s", i, q(v)))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case expand.Associative:
		keys := make([]string, 0, len(vr.Map))
		for k := range vr.Map {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("[%s]=%s", q(k), q(vr.Map[k])))
		}
		return "(" + strings.Join(parts, " ") + ")"
	}
	return q(vr.Str)
}

func builtinUnset(r *runner, args []string) (int, error) {
	funcs, noRef, status := false, false, 0
	for _, a := range args[1:] {
		switch a {
		case "-f":
			funcs = true
			continue
		case "-v":
			funcs = false
			continue
		case "-n":
			noRef = true
			continue
		}
		if !noRef && !funcs {
			if vr := r.vars.get(a); vr.Kind == expand.NameRef && vr.Str != "" {
				// unset through a nameref unsets what it names.
				a = r.resolveRef(a)
			}
		}
		if funcs {
			delete(r.funcs, a)
			continue
		}
		name, idx, isElem := strings.Cut(a, "[")
		if isElem {
			idx = strings.TrimSuffix(idx, "]")
			vr := r.env.Get(name)
			switch vr.Kind {
			case expand.Associative:
				vr.Map = cloneMap(vr.Map)
				delete(vr.Map, idx)
			case expand.Indexed:
				i, err := r.arith(idx)
				if err == nil {
					if i < 0 {
						i += arrayEnd(&vr)
					}
					vr.List = slices.Clone(vr.List)
					vr.Indexes = slices.Clone(vr.Indexes)
					arrayUnset(&vr, i)
				}
			}
			if err := r.env.Set(name, vr); err != nil {
				r.errorf(r.line, "unset: %s", err)
				status = 1
			}
			continue
		}
		if vr, scope := r.vars.lookup(name); vr.ReadOnly {
			r.errorf(r.line, "unset: %s: cannot unset: readonly variable", name)
			status = 1
			continue
		} else if vr.Local && scope == len(r.vars.scopes)-1 && scope > 0 {
			// A function's own local stays declared (and shadowing),
			// without a value, as in bash.
			r.vars.scopes[scope][name] = expand.Variable{Local: true}
			continue
		}
		if err := r.env.Set(name, expand.Variable{}); err != nil {
			r.errorf(r.line, "unset: %s: cannot unset: readonly variable", name)
			status = 1
			continue
		}
		if _, ok := r.funcs[a]; ok && !r.env.Get(a).IsSet() {
			// bash unsets a function when no variable has the name.
			delete(r.funcs, a)
		}
	}
	return status, nil
}

func builtinEval(r *runner, args []string) (int, error) {
	if err := r.enter(); err != nil {
		return 1, nil
	}
	defer func() { r.depth-- }()
	err := r.evalString(strings.Join(args[1:], " "))
	return r.status, err
}

// enter counts one level of eval/source nesting against the depth limit.
func (r *runner) enter() error {
	if r.depth >= r.maxDepth {
		r.errorf(r.line, "maximum nesting level exceeded (%d)", r.maxDepth)
		return &depthSignal{}
	}
	r.depth++
	return nil
}

func builtinSource(r *runner, args []string) (int, error) {
	if len(args) < 2 {
		r.errorf(r.line, "%s: filename argument required", args[0])
		return statusUsage, nil
	}
	data, err := os.ReadFile(r.path(args[1]))
	if err != nil {
		r.errorf(r.line, "%s: %s", args[1], errText(err))
		return 1, nil
	}
	f, err := parse(string(data))
	if err != nil {
		r.errorf(0, "%s: %s", args[1], err)
		return statusUsage, nil
	}
	if err := checkSupported(f); err != nil {
		r.errorf(0, "%s: %s", args[1], err)
		return statusUsage, nil
	}
	if err := r.enter(); err != nil {
		return 1, nil
	}
	oldParams := r.params
	if len(args) > 2 {
		r.params = slices.Clone(args[2:])
	}
	r.status = 0
	err = r.stmts(f.Stmts)
	r.depth--
	if len(args) > 2 {
		r.params = oldParams
	}
	var rs *returnSignal
	if errors.As(err, &rs) {
		return rs.code, nil
	}
	return r.status, err
}

// keywords are bash's reserved words, for type and command -v.
var keywords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true,
	"case": true, "esac": true, "for": true, "select": true, "while": true, "until": true,
	"do": true, "done": true, "in": true, "function": true, "time": true, "{": true, "}": true,
	"!": true, "[[": true, "]]": true, "coproc": true}

// bashBuiltins are commands bash builds in that are applets here; type
// calls them builtins, as bash does.
var bashBuiltins = map[string]bool{"echo": true, "printf": true, "test": true, "[": true,
	"true": true, "false": true, "kill": true}

// kindOf says what a command name is: function, builtin, applet, or "".
func (r *runner) kindOf(name string) string {
	if keywords[name] {
		return "keyword"
	}
	if _, ok := r.funcs[name]; ok {
		return "function"
	}
	if _, ok := builtins[name]; ok || bashBuiltins[name] {
		if _, ok := r.reg.Lookup(name); ok || builtins[name] != nil {
			return "builtin"
		}
	}
	if _, ok := r.reg.Lookup(name); ok {
		return "file"
	}
	return ""
}

func builtinCommand(r *runner, args []string) (int, error) {
	rest := args[1:]
	describe, verbose := false, false
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && len(rest[0]) > 1 {
		switch rest[0] {
		case "-v":
			describe = true
		case "-V":
			describe, verbose = true, true
		case "-p":
		case "--":
			rest = rest[1:]
			goto run
		default:
			r.errorf(r.line, "command: %s: invalid option", rest[0])
			return statusUsage, nil
		}
		rest = rest[1:]
	}
run:
	if len(rest) == 0 {
		return 0, nil
	}
	if describe {
		// bash: success if any name is found.
		status := 1
		for _, name := range rest {
			kind := r.kindOf(name)
			switch {
			case kind == "":
				if verbose {
					r.errorf(r.line, "command: %s: not found", name)
				}
				continue
			case verbose:
				status = 0
				r.out(describeCommand(name, kind))
			case kind == "file":
				status = 0
				r.out("/usr/bin/" + name + "\n")
			default:
				status = 0
				r.out(name + "\n")
			}
		}
		return status, nil
	}
	err := r.exec(rest, nil, true)
	return r.status, err
}

func describeCommand(name, kind string) string {
	switch kind {
	case "function":
		return name + " is a function\n"
	case "builtin":
		return name + " is a shell builtin\n"
	case "keyword":
		return name + " is a shell keyword\n"
	}
	return name + " is /usr/bin/" + name + "\n"
}

func builtinBuiltin(r *runner, args []string) (int, error) {
	if len(args) < 2 {
		return 0, nil
	}
	b, ok := builtins[args[1]]
	if !ok {
		r.errorf(r.line, "builtin: %s: not a shell builtin", args[1])
		return 1, nil
	}
	return b(r, args[1:])
}

func builtinType(r *runner, args []string) (int, error) {
	rest := args[1:]
	short := false
	if len(rest) > 0 && rest[0] == "-t" {
		short, rest = true, rest[1:]
	}
	status := 0
	for _, name := range rest {
		kind := r.kindOf(name)
		switch {
		case kind == "":
			if !short {
				r.errorf(r.line, "type: %s: not found", name)
			}
			status = 1
		case short:
			r.out(kind + "\n")
		default:
			r.out(describeCommand(name, kind))
		}
	}
	return status, nil
}

func builtinWhich(r *runner, args []string) (int, error) {
	status := 0
	for _, name := range args[1:] {
		if strings.HasPrefix(name, "-") {
			continue
		}
		if _, ok := r.reg.Lookup(name); ok {
			r.out("/usr/bin/" + name + "\n")
			continue
		}
		status = 1
	}
	return status, nil
}

func builtinExec(r *runner, args []string) (int, error) {
	if len(args) < 2 {
		return 0, nil
	}
	if err := r.exec(args[1:], nil, true); err != nil {
		return r.status, err
	}
	return r.status, &exitSignal{r.status}
}

// builtinTrap keeps an EXIT trap. Signals never reach the sandbox, so traps
// on them are accepted and never run; ERR, DEBUG and RETURN are refused.
func builtinTrap(r *runner, args []string) (int, error) {
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] == "-p" {
		// trap and trap -p list the traps set (trap -p SIG: those named).
		want := map[string]bool{}
		for _, s := range rest[min(len(rest), 1):] {
			want[trapName(s)] = true
		}
		for _, name := range []string{"EXIT", "DEBUG", "ERR", "RETURN"} {
			action, ok := r.traps[name]
			if !ok || (len(want) > 0 && !want[name]) {
				continue
			}
			r.out("trap -- " + shellQuote(action) + " " + name + "\n")
		}
		return 0, nil
	}
	if rest[0] == "-l" {
		return r.out("EXIT HUP INT QUIT TERM\n"), nil
	}
	action := rest[0]
	sigs := rest[1:]
	if len(sigs) == 0 {
		// trap SIG: reset.
		sigs, action = rest, "-"
	}
	for _, s := range sigs {
		name := trapName(s)
		switch name {
		case "EXIT", "ERR", "RETURN", "DEBUG":
			if r.traps == nil {
				r.traps = map[string]string{}
			}
			if action == "-" {
				delete(r.traps, name)
			} else {
				r.traps[name] = action
			}
			if name == "EXIT" {
				r.exitTrap = r.traps["EXIT"]
			}
		case "HUP", "INT", "QUIT", "TERM", "KILL", "USR1", "USR2", "PIPE", "ALRM", "CHLD", "TSTP", "CONT", "WINCH":
			// Signals never reach the sandbox: accepted, never run.
		default:
			r.errorf(r.line, "trap: %s: invalid signal specification", s)
			return 1, nil
		}
	}
	return 0, nil
}

// trapName is a signal or condition name without SIG, upper case; 0 is
// EXIT.
func trapName(s string) string {
	s = strings.TrimPrefix(strings.ToUpper(s), "SIG")
	switch s {
	case "0":
		return "EXIT"
	case "1":
		return "HUP"
	case "2":
		return "INT"
	case "3":
		return "QUIT"
	case "15":
		return "TERM"
	}
	return s
}

func builtinShopt(r *runner, args []string) (int, error) {
	rest := args[1:]
	mode := ""
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		mode += rest[0][1:]
		rest = rest[1:]
	}
	opt := func(name string) *bool {
		switch name {
		case "nullglob":
			return &r.opts.nullglob
		case "dotglob":
			return &r.opts.dotglob
		case "globstar":
			return &r.opts.globstar
		case "nocaseglob":
			return &r.opts.nocaseglob
		case "extglob":
			return &r.opts.extglob
		case "lastpipe":
			return &r.opts.lastpipe
		case "nocasematch":
			return &r.opts.nocasematch
		case "expand_aliases":
			return &r.opts.expandAliases
		}
		return nil
	}
	status := 0
	for _, name := range rest {
		p := opt(name)
		if p == nil {
			r.errorf(r.line, "shopt: %s: invalid shell option name", name)
			status = 1
			continue
		}
		switch {
		case strings.Contains(mode, "s"):
			*p = true
		case strings.Contains(mode, "u"):
			*p = false
		default:
			if !*p {
				status = 1
			}
			if !strings.Contains(mode, "q") {
				state := "off"
				if *p {
					state = "on"
				}
				r.out(fmt.Sprintf("%-15s\t%s\n", name, state))
			}
		}
	}
	return status, nil
}

// builtinGetopts parses options as POSIX getopts does, keeping its place
// in OPTIND.
func builtinGetopts(r *runner, args []string) (int, error) {
	if len(args) < 3 {
		r.errorf(r.line, "getopts: usage: getopts optstring name [arg ...]")
		return statusUsage, nil
	}
	spec, name := args[1], args[2]
	params := r.params
	if len(args) > 3 {
		params = args[3:]
	}
	silent := strings.HasPrefix(spec, ":")
	spec = strings.TrimPrefix(spec, ":")
	optind, err := strconv.Atoi(r.env.Get("OPTIND").String())
	if err != nil || optind < 1 {
		optind = 1
	}
	// OPTPOS (our own) is the position inside a cluster such as -abc.
	pos, _ := strconv.Atoi(r.env.Get("_OPTPOS").String())
	if pos < 1 {
		pos = 1
	}
	done := func() (int, error) {
		_ = r.setString(name, "?")
		_ = r.setString("OPTIND", strconv.Itoa(optind))
		_ = r.setString("_OPTPOS", "1")
		return 1, nil
	}
	if optind > len(params) {
		return done()
	}
	word := params[optind-1]
	if word == "--" {
		optind++
		return done()
	}
	if len(word) < 2 || word[0] != '-' {
		return done()
	}
	c := word[pos]
	pos++
	advance := func() {
		if pos >= len(word) {
			optind++
			pos = 1
		}
	}
	i := strings.IndexByte(spec, c)
	_ = r.env.Set("OPTARG", expand.Variable{})
	switch {
	case i < 0 || c == ':':
		advance()
		if silent {
			_ = r.setString("OPTARG", string(c))
		} else {
			r.errorf(r.line, "getopts: illegal option -- %c", c)
		}
		_ = r.setString(name, "?")
	case i+1 < len(spec) && spec[i+1] == ':':
		switch {
		case pos < len(word):
			_ = r.setString("OPTARG", word[pos:])
			optind++
			pos = 1
		case optind < len(params):
			_ = r.setString("OPTARG", params[optind])
			optind += 2
			pos = 1
		default:
			optind++
			pos = 1
			if silent {
				_ = r.setString(name, ":")
				_ = r.setString("OPTARG", string(c))
			} else {
				r.errorf(r.line, "getopts: option requires an argument -- %c", c)
				_ = r.setString(name, "?")
			}
			_ = r.setString("OPTIND", strconv.Itoa(optind))
			_ = r.setString("_OPTPOS", strconv.Itoa(pos))
			return 0, nil
		}
		_ = r.setString(name, string(c))
	default:
		advance()
		_ = r.setString(name, string(c))
	}
	_ = r.setString("OPTIND", strconv.Itoa(optind))
	_ = r.setString("_OPTPOS", strconv.Itoa(pos))
	return 0, nil
}

// builtinRead reads a line from stdin into variables: split by IFS, the
// last variable taking the rest; -r keeps backslashes, -a fills an array,
// -d sets the delimiter, -n limits the count, -p prints a prompt.
func builtinRead(r *runner, args []string) (int, error) {
	raw := false
	delim := byte('\n')
	limit := 0
	exact := false // -N: exactly limit characters, the delimiter included
	fd := 0
	array := ""
	var names []string
	rest := args[1:]
	for len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' {
		a := rest[0]
		rest = rest[1:]
		if a == "--" {
			break
		}
		for i := 1; i < len(a); i++ {
			c := a[i]
			needVal := func() (string, bool) {
				if i+1 < len(a) {
					v := a[i+1:]
					i = len(a)
					return v, true
				}
				if len(rest) == 0 {
					r.errorf(r.line, "read: -%c: option requires an argument", c)
					return "", false
				}
				v := rest[0]
				rest = rest[1:]
				return v, true
			}
			switch c {
			case 'r':
				raw = true
			case 's', 'e':
			case 'p', 'd', 'n', 'N', 't', 'a', 'u':
				v, ok := needVal()
				if !ok {
					return statusUsage, nil
				}
				switch c {
				case 'p':
					fmt.Fprint(r.stderr, v)
				case 'd':
					delim = 0
					if v != "" {
						delim = v[0]
					}
				case 'n', 'N':
					n, err := strconv.Atoi(v)
					if err != nil || n < 0 {
						r.errorf(r.line, "read: %s: invalid number", v)
						return statusUsage, nil
					}
					limit, exact = n, c == 'N'
					if limit == 0 {
						return 0, nil
					}
				case 'a':
					array = v
				case 'u':
					n, err := strconv.Atoi(v)
					if err != nil || n < 0 {
						r.errorf(r.line, "read: %s: invalid file descriptor specification", v)
						return 1, nil
					}
					fd = n
				}
			default:
				r.errorf(r.line, "read: -%c: invalid option", c)
				return statusUsage, nil
			}
		}
	}
	names = rest
	for _, n := range names {
		if !validName(n) {
			r.errorf(r.line, "read: `%s': not a valid identifier", n)
			return 1, nil
		}
	}
	br, ferr := r.readerFD(fd)
	if ferr != nil {
		r.errorf(r.line, "read: %s", ferr)
		return 1, nil
	}
	d := int(delim)
	if exact {
		d = -1
	}
	line, eof, err := readLine(br, d, limit, raw)
	status := 0
	if eof || err != nil {
		status = 1
		if line.text == "" {
			// bash still empties the variables.
			for _, n := range names {
				_ = r.setString(n, "")
			}
			return status, nil
		}
	}
	ifs := r.ifsValue()
	switch {
	case array != "":
		fields := splitRead(line, ifs, -1)
		if err := r.env.Set(array, expand.Variable{Set: true, Kind: expand.Indexed, List: fields}); err != nil {
			r.errorf(r.line, "read: %s", err)
			return 1, nil
		}
	case len(names) == 0:
		if err := r.setString("REPLY", line.text); err != nil {
			r.errorf(r.line, "read: %s", err)
			return 1, nil
		}
	default:
		fields := splitRead(line, ifs, len(names))
		for i, n := range names {
			v := ""
			if i < len(fields) {
				v = fields[i]
			}
			if err := r.setVar(n, v); err != nil {
				r.errorf(r.line, "read: %s", err)
				return 1, nil
			}
		}
	}
	return status, nil
}

// builtinMapfile reads lines into an array: mapfile [-t] [-n N] [-s N]
// [-d DELIM] [ARRAY].
func builtinMapfile(r *runner, args []string) (int, error) {
	trim, count, skip := false, 0, 0
	delim := byte('\n')
	rest := args[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && len(rest[0]) > 1 {
		a := rest[0]
		rest = rest[1:]
		switch a {
		case "-t":
			trim = true
		case "-n", "-s", "-d":
			if len(rest) == 0 {
				r.errorf(r.line, "%s: %s: option requires an argument", args[0], a)
				return statusUsage, nil
			}
			v := rest[0]
			rest = rest[1:]
			switch a {
			case "-d":
				delim = 0
				if v != "" {
					delim = v[0]
				}
			default:
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					r.errorf(r.line, "%s: %s: invalid number", args[0], v)
					return statusUsage, nil
				}
				if a == "-n" {
					count = n
				} else {
					skip = n
				}
			}
		default:
			r.errorf(r.line, "%s: %s: invalid option", args[0], a)
			return statusUsage, nil
		}
	}
	name := "MAPFILE"
	if len(rest) > 0 {
		name = rest[0]
	}
	br := r.stdinReader()
	var list []string
	for i := 0; count == 0 || len(list) < count; i++ {
		line, err := br.ReadString(delim)
		if line == "" && err != nil {
			break
		}
		if i < skip {
			continue
		}
		if trim {
			line = strings.TrimSuffix(line, string(delim))
		}
		list = append(list, line)
		if err != nil {
			break
		}
	}
	if err := r.env.Set(name, expand.Variable{Set: true, Kind: expand.Indexed, List: list}); err != nil {
		r.errorf(r.line, "%s: %s", args[0], err)
		return 1, nil
	}
	return 0, nil
}

// builtinPrintf handles printf -v VAR; everything else is the applet's.
func builtinPrintf(r *runner, args []string) (int, error) {
	a, ok := r.reg.Lookup("printf")
	if !ok {
		r.errorf(r.line, "printf: command not found")
		return statusNotFound, nil
	}
	if len(args) < 3 || args[1] != "-v" {
		return r.runApplet(a, args, nil), nil
	}
	name := args[2]
	var buf bytes.Buffer
	old := r.stdout
	r.stdout = &buf
	status := r.runApplet(a, append([]string{"printf"}, args[3:]...), nil)
	r.stdout = old
	if err := r.setString(name, buf.String()); err != nil {
		r.errorf(r.line, "printf: %s", err)
		return 1, nil
	}
	return status, nil
}

func builtinUmask(r *runner, args []string) (int, error) {
	if len(args) == 1 {
		return r.out("0022\n"), nil
	}
	return 0, nil
}

func builtinUlimit(r *runner, args []string) (int, error) {
	if len(args) == 1 || args[len(args)-1] == "-a" || strings.HasPrefix(args[len(args)-1], "-") {
		return r.out("unlimited\n"), nil
	}
	return 0, nil
}

// declare implements declare, typeset, local, export and readonly, for the
// parsed form (DeclClause) and when called as a command.
type declare struct {
	r         *runner
	variant   string
	export    *bool // -x / +x (export -n)
	ronly     bool
	kind      expand.ValueKind
	global    bool
	print     bool
	funcs     bool
	status    int
	names     int    // names declared or shown
	attrs     string // -i -l -u letters to add
	unattrs   string // +i +l +u letters to remove
	funcNames bool   // -F: names only
	nameref   bool   // -n: NAME refers to the variable its value names
}

func builtinDeclare(r *runner, args []string) (int, error) {
	d := &declare{r: r, variant: args[0]}
	if !d.start() {
		return 1, nil
	}
	for _, a := range args[1:] {
		if err := d.word(a); err != nil {
			return d.status, err
		}
	}
	return d.finish(), nil
}

// declClause runs the parsed form of declare and friends.
func (r *runner) declClause(c *syntax.DeclClause) error {
	d := &declare{r: r, variant: c.Variant.Value}
	if !d.start() {
		r.status = 1
		return nil
	}
	for _, as := range c.Args {
		if as.Name == nil {
			words, err := r.fields(as.Value)
			if err != nil {
				return r.expandFailed(err)
			}
			for _, w := range words {
				if err := d.word(w); err != nil {
					return err
				}
			}
			continue
		}
		if err := d.assign(as); err != nil {
			return err
		}
	}
	r.status = d.finish()
	return nil
}

// start checks where the declaration may be used and sets defaults.
func (d *declare) start() bool {
	switch d.variant {
	case "local":
		if len(d.r.vars.scopes) < 2 || d.r.depth == 0 {
			d.r.errorf(d.r.line, "local: can only be used in a function")
			return false
		}
	case "export":
		t := true
		d.export = &t
	case "readonly":
		d.ronly = true
	case "nameref":
		d.nameref = true
	}
	return true
}

// local reports whether names are declared in the function's scope.
func (d *declare) local() bool {
	switch d.variant {
	case "local":
		return true
	case "declare", "typeset":
		return !d.global && d.r.depth > 0 && len(d.r.vars.scopes) > 1
	}
	return false
}

// word handles one argument given as text: flags, NAME or NAME=VALUE.
func (d *declare) word(w string) error {
	if (strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+")) && len(w) > 1 {
		on := w[0] == '-'
		for _, c := range w[1:] {
			switch c {
			case 'x':
				v := on
				d.export = &v
			case 'n':
				if d.variant == "export" {
					v := false
					d.export = &v
					continue
				}
				d.nameref = on
			case 'r':
				d.ronly = on
			case 'a':
				d.kind = expand.Indexed
			case 'A':
				d.kind = expand.Associative
			case 'g':
				d.global = true
			case 'p':
				d.print = true
			case 'f':
				d.funcs = true
			case 'F':
				d.funcs, d.funcNames = true, true
			case 'i', 'l', 'u':
				if on {
					d.attrs += string(c)
				} else {
					d.unattrs += string(c)
				}
			case 't':
				// Tracing has no meaning without DEBUG traps.
			default:
				d.r.errorf(d.r.line, "%s: -%c: invalid option", d.variant, c)
				d.status = statusUsage
				return nil
			}
		}
		return nil
	}
	name, value, hasValue := strings.Cut(w, "=")
	as := &syntax.Assign{Name: &syntax.Lit{Value: name}, Naked: !hasValue}
	if hasValue {
		as.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: value}}}
	}
	return d.assign(as)
}

// assign declares one NAME or NAME=VALUE with the collected attributes.
func (d *declare) assign(as *syntax.Assign) error {
	r := d.r
	name := as.Name.Value
	d.names++
	if d.print || d.funcs {
		d.show(name)
		return nil
	}
	if !validName(name) {
		r.errorf(r.line, "%s: `%s': not a valid identifier", d.variant, name)
		d.status = 1
		return nil
	}
	local := d.local()
	if d.nameref {
		target := ""
		if as.Value != nil {
			v, err := r.literal(as.Value)
			if err != nil {
				return r.assignFailed(err)
			}
			target = v
		}
		if base, _, _ := strings.Cut(target, "["); target != "" && !validName(base) {
			r.errorf(r.line, "%s: `%s': invalid variable name for name reference", d.variant, target)
			d.status = 1
			return nil
		}
		if target == name {
			r.errorf(r.line, "%s: %s: nameref variable self references not allowed", d.variant, name)
			d.status = 1
			return nil
		}
		vr := expand.Variable{Set: target != "", Kind: expand.NameRef, Str: target}
		if local {
			r.vars.setLocal(name, vr)
		} else {
			_, scope := r.vars.lookup(name)
			if scope < 0 {
				scope = 0
			}
			vr.Exported = r.vars.scopes[scope][name].Exported
			r.vars.scopes[scope][name] = vr
		}
		return nil
	}
	if !as.Naked || as.Array != nil || as.Value != nil {
		if d.kind == expand.Associative && as.Array != nil && r.env.Get(name).Kind != expand.Associative {
			// declare -A m=(...): make it associative before filling it.
			empty := expand.Variable{Set: true, Kind: expand.Associative, Map: map[string]string{}}
			if local {
				r.vars.setLocal(name, empty)
			} else if err := r.env.Set(name, empty); err != nil {
				r.errorf(r.line, "%s", err)
				d.status = 1
				return nil
			}
			local = false // already declared in the right scope
		}
		if err := r.assign(as, local); err != nil {
			if ferr := r.assignFailed(err); ferr != nil {
				return ferr
			}
			d.status = 1
			return nil
		}
	} else {
		cur, scope := r.vars.lookup(name)
		switch {
		case local && scope != len(r.vars.scopes)-1:
			vr := expand.Variable{Kind: d.kind}
			if d.kind == expand.Indexed || d.kind == expand.Associative {
				vr.Set = true
				vr.Map = map[string]string{}
			}
			r.vars.setLocal(name, vr)
		case d.kind != expand.Unknown && cur.Kind != d.kind:
			vr := expand.Variable{Set: true, Kind: d.kind, Map: map[string]string{}}
			if cur.Kind == expand.String && d.kind == expand.Indexed {
				vr.List = []string{cur.Str}
			}
			if err := r.env.Set(name, vr); err != nil {
				r.errorf(r.line, "%s", err)
				d.status = 1
				return nil
			}
		case scope < 0 && d.variant != "export" && d.variant != "readonly":
			r.vars.scopes[0][name] = expand.Variable{Kind: d.kind}
		}
	}
	if d.attrs != "" || d.unattrs != "" {
		r.vars.setAttrs(name, d.unattrs, true)
		r.vars.setAttrs(name, d.attrs, false)
		if vr := r.env.Get(name); vr.IsSet() && vr.Kind == expand.String && d.attrs != "" {
			// declare -l x=ABC: the attribute applies to the value given.
			v, err := r.applyAttrs(name, vr.Str)
			if err == nil {
				vr.Str = v
				_, scope := r.vars.lookup(name)
				r.vars.scopes[scope][name] = vr
			}
		}
	}
	if d.export != nil || d.ronly {
		_, scope := r.vars.lookup(name)
		if scope < 0 {
			scope = 0
			r.vars.scopes[0][name] = expand.Variable{}
		}
		vr := r.vars.scopes[scope][name]
		if d.export != nil {
			vr.Exported = *d.export
		}
		if d.ronly {
			vr.ReadOnly = true
		}
		r.vars.scopes[scope][name] = vr
	}
	return nil
}

// show prints one variable (declare -p) or function (declare -f, -F).
func (d *declare) show(name string) {
	r := d.r
	if d.funcs {
		body, ok := r.funcs[name]
		if !ok {
			d.status = 1
			return
		}
		if d.funcNames {
			if d.names > 0 {
				r.out(name + "\n")
			} else {
				r.out("declare -f " + name + "\n")
			}
			return
		}
		r.out(formatFunc(name, body))
		return
	}
	vr, scope := r.vars.lookup(name)
	if scope < 0 {
		vr = r.env.Get(name)
	}
	if scope < 0 && !vr.IsSet() {
		r.errorf(r.line, "%s: %s: not found", d.variant, name)
		d.status = 1
		return
	}
	if raw, _ := r.vars.lookup(name); raw.Kind == expand.NameRef {
		vr = raw
	}
	flags := r.declFlagsOf(name, vr)
	if flags == "" {
		flags = "-"
	}
	line := "declare -" + flags + " " + name
	if vr.IsSet() {
		line += "=" + declValue(vr)
	}
	r.out(line + "\n")
}

// declFlagsOf are a variable's attribute letters in bash's order.
func (r *runner) declFlagsOf(name string, vr expand.Variable) string {
	attrs := r.vars.attrsOf(name)
	var b strings.Builder
	switch vr.Kind {
	case expand.Indexed:
		b.WriteByte('a')
	case expand.Associative:
		b.WriteByte('A')
	}
	if strings.Contains(attrs, "i") {
		b.WriteByte('i')
	}
	if vr.Kind == expand.NameRef {
		b.WriteByte('n')
	}
	if vr.ReadOnly {
		b.WriteByte('r')
	}
	if vr.Exported {
		b.WriteByte('x')
	}
	for _, c := range "lu" {
		if strings.ContainsRune(attrs, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// formatFunc prints a function as declare -f and type do: the name, then
// the body's commands one per line, indented by four spaces.
func formatFunc(name string, body *syntax.Stmt) string {
	var b strings.Builder
	b.WriteString(name + " () \n{ \n")
	stmts := []*syntax.Stmt{body}
	if blk, ok := body.Cmd.(*syntax.Block); ok && len(body.Redirs) == 0 {
		stmts = blk.Stmts
	}
	printer := syntax.NewPrinter(syntax.Indent(4))
	for _, st := range stmts {
		var sb bytes.Buffer
		printer.Print(&sb, st)
		for _, l := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// finish handles the forms without names, which list: export (-p),
// readonly, declare -p, declare -f, declare -F.
func (d *declare) finish() int {
	if d.names > 0 || d.status != 0 {
		return d.status
	}
	r := d.r
	if d.funcs {
		names := make([]string, 0, len(r.funcs))
		for n := range r.funcs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			d.show(n)
		}
		return d.status
	}
	var names []string
	r.env.Each(func(name string, vr expand.Variable) bool {
		switch {
		case d.variant == "export" && !vr.Exported,
			d.variant == "readonly" && !vr.ReadOnly,
			d.variant == "local" && !vr.Local,
			!vr.Declared():
			return true
		}
		names = append(names, name)
		return true
	})
	sort.Strings(names)
	for _, n := range names {
		d.show(n)
	}
	return d.status
}

// aliasDef is an alias and the line it was defined on: bash expands
// aliases when it reads a line, so one defined on the line that uses it
// is not yet in effect there.
type aliasDef struct {
	value string
	line  uint
}

// builtinAlias defines or prints aliases. As in bash, a script expands
// them only after shopt -s expand_aliases.
func builtinAlias(r *runner, args []string) (int, error) {
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "-p" {
		rest = rest[1:]
	}
	show := func(name string) {
		r.out("alias " + name + "=" + shellQuote(r.aliases[name].value) + "\n")
	}
	if len(rest) == 0 {
		for _, name := range slices.Sorted(maps.Keys(r.aliases)) {
			show(name)
		}
		return 0, nil
	}
	status := 0
	for _, a := range rest {
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			if _, found := r.aliases[name]; !found {
				r.errorf(r.line, "alias: %s: not found", name)
				status = 1
				continue
			}
			show(name)
			continue
		}
		if name == "" || strings.ContainsAny(name, "/$`=\"'\\ \t\n;|&<>()") {
			r.errorf(r.line, "alias: `%s': invalid alias name", name)
			status = 1
			continue
		}
		if r.aliases == nil {
			r.aliases = map[string]aliasDef{}
		}
		r.aliases[name] = aliasDef{value: value, line: r.line}
	}
	return status, nil
}

func builtinUnalias(r *runner, args []string) (int, error) {
	status := 0
	for _, a := range args[1:] {
		if a == "-a" {
			r.aliases = nil
			continue
		}
		if _, ok := r.aliases[a]; !ok {
			r.errorf(r.line, "unalias: %s: not found", a)
			status = 1
			continue
		}
		delete(r.aliases, a)
	}
	return status, nil
}

// builtinWait: with no background jobs there is nothing to wait for, so
// wait alone succeeds, and waiting for a job or process id fails as bash
// does for one that does not exist.
func builtinWait(r *runner, args []string) (int, error) {
	status := 0
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if strings.HasPrefix(a, "%") {
			r.errorf(r.line, "wait: %s: no such job", a)
		} else {
			r.errorf(r.line, "wait: pid %s is not a child of this shell", a)
		}
		status = 127
	}
	return status, nil
}
