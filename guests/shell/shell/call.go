package shell

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
)

// call runs a simple command: assignments, then a function, a builtin or
// an applet.
func (r *runner) call(c *syntax.CallExpr) error {
	args, err := r.fields(c.Args...)
	if err != nil {
		return r.expandFailed(err)
	}
	substRan, substStatus := r.substRan, r.substStatus
	if len(args) == 0 {
		// Only assignments (or words that expanded to nothing): they stay.
		r.substRan = false
		for _, as := range c.Assigns {
			if err := r.assign(as, false); err != nil {
				return r.assignFailed(err)
			}
			if r.opts.xtrace {
				r.traceAssign(as)
			}
		}
		switch {
		case r.substRan:
			r.status = r.substStatus
		case substRan:
			r.status = substStatus
		default:
			r.status = 0
		}
		return nil
	}
	// NAME=VALUE before a command applies to that command only.
	var prefix map[string]string
	if len(c.Assigns) > 0 {
		prefix = map[string]string{}
		for _, as := range c.Assigns {
			if as.Array != nil || as.Index != nil {
				r.errorf(r.line, "%s: arrays cannot be assigned for one command", as.Name.Value)
				r.status = 1
				return nil
			}
			v, err := r.assignValue(as.Value)
			if err != nil {
				return r.expandFailed(err)
			}
			if as.Append {
				v = r.env.Get(as.Name.Value).String() + v
			}
			prefix[as.Name.Value] = v
		}
	}
	if r.opts.xtrace {
		fmt.Fprintf(r.stderr, "+ %s\n", traceLine(args))
	}
	if r.opts.noexec {
		return nil
	}
	if def, ok := r.aliases[args[0]]; ok && r.opts.expandAliases && def.line < r.line && !r.inAlias[args[0]] && len(c.Assigns) == 0 {
		return r.runAlias(args, def)
	}
	if trap := r.traps["DEBUG"]; trap != "" && !r.inDebugTrap {
		// DEBUG runs before each simple command, with $? unchanged.
		status := r.status
		r.inDebugTrap = true
		err := r.evalString(trap)
		r.inDebugTrap = false
		r.status = status
		if err != nil {
			return err
		}
	}
	return r.exec(args, prefix, false)
}

// traceAssign prints an assignment for set -x as bash does: NAME=VALUE
// with the value quoted when it needs it.
func (r *runner) traceAssign(as *syntax.Assign) {
	vr := r.env.Get(as.Name.Value)
	if as.Array != nil {
		q := make([]string, 0, len(vr.List))
		for _, v := range vr.List {
			q = append(q, "'"+strings.ReplaceAll(v, "'", `'\''`)+"'")
		}
		fmt.Fprintf(r.stderr, "+ %s=(%s)\n", as.Name.Value, strings.Join(q, " "))
		return
	}
	fmt.Fprintf(r.stderr, "+ %s=%s\n", as.Name.Value, traceLine([]string{varString(vr)}))
}

// traceLine quotes args for set -x.
func traceLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if s, err := syntax.Quote(a, syntax.LangBash); err == nil {
			q[i] = s
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

// exec runs args[0]: a function (unless noFuncs, for `command`), a
// builtin, an applet, or a script given by path.
func (r *runner) exec(args []string, prefix map[string]string, noFuncs bool) error {
	name := args[0]
	if body, ok := r.funcs[name]; ok && !noFuncs {
		return r.withPrefix(prefix, func() error { return r.callFunc(name, body, args) })
	}
	if b, ok := builtins[name]; ok {
		return r.withPrefix(prefix, func() error {
			status, err := b(r, args)
			r.status = status
			return err
		})
	}
	if a, ok := r.reg.Lookup(name); ok {
		r.status = r.runApplet(a, args, prefix)
		return nil
	}
	if strings.Contains(name, "/") {
		r.status = r.runPath(args, prefix)
		return nil
	}
	r.errorf(r.line, "%s: command not found", name)
	r.status = statusNotFound
	return nil
}

// withPrefix sets NAME=VALUE prefixes for the duration of a function or
// builtin, exported like the environment of a command.
func (r *runner) withPrefix(prefix map[string]string, fn func() error) error {
	if len(prefix) == 0 {
		return fn()
	}
	r.vars.push()
	for k, v := range prefix {
		r.vars.setLocal(k, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v})
	}
	defer r.vars.pop()
	return fn()
}

// proc builds the Proc an applet runs in.
func (r *runner) proc(prefix map[string]string) *applets.Proc {
	return &applets.Proc{
		Stdin:    r.stdin,
		Stdout:   r.stdout,
		Stderr:   r.stderr,
		Env:      r.exported(prefix),
		Dir:      r.dir,
		Tools:    r.tools,
		HTTP:     r.http,
		Ctx:      r.ctx,
		Registry: r.reg,
		Shell:    r.childShell,
		FD:       r.openFD,
	}
}

// runApplet runs an applet, turning a panic into an error status so one
// faulty applet cannot take the guest down.
func (r *runner) runApplet(a applets.Applet, args []string, prefix map[string]string) (status int) {
	defer func() {
		if v := recover(); v != nil {
			r.errorf(r.line, "%s: internal error: %v\n%s", args[0], v, debug.Stack())
			status = 70
		}
	}()
	return a(r.proc(prefix), args)
}

// runPath runs a command named by a path: a shell script (or, with a node
// or python shebang, JavaScript or Python through their applets).
func (r *runner) runPath(args []string, prefix map[string]string) int {
	full := r.path(args[0])
	st, err := os.Stat(full)
	if err != nil {
		r.errorf(r.line, "%s: %s", args[0], errText(err))
		return statusNotFound
	}
	if st.IsDir() {
		r.errorf(r.line, "%s: Is a directory", args[0])
		return statusNotExec
	}
	f, err := os.Open(full)
	if err != nil {
		r.errorf(r.line, "%s: %s", args[0], errText(err))
		return statusNotExec
	}
	first, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if strings.HasPrefix(first, "#!") && strings.Contains(first, "node") {
		if a, ok := r.reg.Lookup("node"); ok {
			return r.runApplet(a, append([]string{"node"}, args...), prefix)
		}
	}
	if strings.HasPrefix(first, "#!") && strings.Contains(first, "python") {
		if a, ok := r.reg.Lookup("python"); ok {
			return r.runApplet(a, append([]string{"python"}, args...), prefix)
		}
	}
	sh, _ := r.reg.Lookup("sh")
	if sh == nil {
		r.errorf(r.line, "%s: cannot run scripts without sh", args[0])
		return statusNotExec
	}
	return r.runApplet(sh, append([]string{"sh"}, args...), prefix)
}

// callFunc runs a shell function with its own positional parameters and
// local scope. Recursion is bounded by maxDepth.
func (r *runner) callFunc(name string, body *syntax.Stmt, args []string) error {
	if r.depth >= r.maxDepth {
		r.errorf(r.line, "%s: maximum function nesting level exceeded (%d)", name, r.maxDepth)
		r.status = 1
		return &depthSignal{}
	}
	oldParams, oldNames, oldLoops := r.params, r.funcNames, r.loops
	// A function's break and continue do not reach its caller's loops.
	r.params, r.loops = args[1:], 0
	r.funcNames = append([]string{name}, r.funcNames...)
	r.vars.push()
	r.depth++
	err := r.stmt(body)
	r.depth--
	r.vars.pop()
	r.params, r.funcNames, r.loops = oldParams, oldNames, oldLoops
	if trap := r.traps["RETURN"]; trap != "" && r.ctx.Err() == nil {
		status := r.status
		if rs, ok := err.(*returnSignal); ok {
			// bash runs the trap after return's own (successful) status.
			status, r.status = rs.code, 0
		}
		if terr := r.evalString(trap); terr != nil {
			return terr
		}
		r.status = status
	}
	var rs *returnSignal
	if errors.As(err, &rs) {
		r.status = rs.code
		return nil
	}
	var ds *depthSignal
	if errors.As(err, &ds) && r.depth == 0 {
		// Unwound to the outermost call: the script goes on.
		r.status = 1
		return nil
	}
	return err
}

// depthSignal unwinds a runaway recursion to its outermost call.
type depthSignal struct{}

func (*depthSignal) Error() string { return "maximum function nesting level exceeded" }

// childShell is applets.Proc.Shell: sh runs a script in a new shell that
// inherits the exported variables and directory but not functions or
// other variables, as a child process would.
func (r *runner) childShell(p *applets.Proc, run applets.ShellRun) int {
	if r.depth >= r.maxDepth {
		fmt.Fprintf(p.Stderr, "%s: maximum nesting level exceeded (%d)\n", r.name, r.maxDepth)
		return 1
	}
	c := newRunner(Options{
		Stdin: p.Stdin, Stdout: p.Stdout, Stderr: p.Stderr,
		Env: p.Env, Dir: p.Dir, Tools: p.Tools, HTTP: p.HTTP, Registry: p.Registry, Ctx: p.Ctx,
		MaxCallDepth: r.maxDepth,
	})
	c.depth = r.depth + 1
	if len(run.Options) > 0 {
		if status, _ := builtinSet(c, append([]string{"set"}, run.Options...)); status != 0 {
			return status
		}
	}
	args := run.Args
	if len(args) == 0 {
		args = []string{"sh"}
	}
	return c.main(run.Script, args)
}

// assignFailed reports a failed assignment (a readonly variable, a bad
// expansion).
func (r *runner) assignFailed(err error) error {
	if errors.Is(err, errExpand) {
		return r.expandFailed(err)
	}
	switch err.(type) {
	case *exitSignal, *returnSignal, *loopSignal, *abortSignal:
		return err
	}
	// Like bash, a failed assignment (a readonly variable) abandons the
	// rest of the line.
	r.errorf(r.line, "%s", err)
	r.status = 1
	return &abortSignal{}
}

// assign performs one NAME=VALUE, NAME+=VALUE, NAME=(...) or NAME[i]=V.
// local declares it in the current function scope.
func (r *runner) assign(as *syntax.Assign, local bool) error {
	name := as.Name.Value
	cur := r.env.Get(name)
	if local {
		if _, scope := r.vars.lookup(name); scope != len(r.vars.scopes)-1 {
			cur = expand.Variable{}
		}
	}
	var vr expand.Variable
	switch {
	case as.Array != nil:
		var err error
		if vr, err = r.arrayValue(name, cur, as); err != nil {
			return err
		}
	case as.Index != nil:
		val, err := r.assignValue(as.Value)
		if err != nil {
			return err
		}
		if vr, err = r.elemAssign(cur, as, val); err != nil {
			return err
		}
	default:
		val, err := r.assignValue(as.Value)
		if err != nil {
			return err
		}
		integer := strings.Contains(r.vars.attrsOf(name), "i")
		switch {
		case as.Append && integer:
			// n+=3 with declare -i adds.
			a, err := r.arith(varString(cur))
			if err != nil {
				return err
			}
			b, err := r.arith(val)
			if err != nil {
				return err
			}
			val = strconv.Itoa(a + b)
		case as.Append && cur.Kind == expand.Indexed:
			old, _ := arrayGet(&cur, 0)
			val = old + val
		case as.Append:
			val = cur.String() + val
		}
		if val, err = r.applyAttrs(name, val); err != nil {
			return err
		}
		if vr.Kind == expand.Unknown {
			switch cur.Kind {
			case expand.Indexed:
				// a=v on an array sets its first element.
				vr = cur
				vr.List = slices.Clone(cur.List)
				vr.Indexes = slices.Clone(cur.Indexes)
				arraySet(&vr, 0, val)
			case expand.Associative:
				vr = cur
				vr.Map = cloneMap(cur.Map)
				vr.Map["0"] = val
			default:
				vr = expand.Variable{Set: true, Kind: expand.String, Str: val}
			}
		}
	}
	vr.Set = true
	if local {
		r.vars.setLocal(name, vr)
		return nil
	}
	return r.env.Set(name, vr)
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// arrayValue builds the value of NAME=(...) or NAME+=(...).
func (r *runner) arrayValue(name string, cur expand.Variable, as *syntax.Assign) (expand.Variable, error) {
	if cur.Kind == expand.Associative {
		vr := expand.Variable{Set: true, Kind: expand.Associative, Map: map[string]string{}}
		if as.Append {
			vr.Map = cloneMap(cur.Map)
		}
		for _, el := range as.Array.Elems {
			if el.Index == nil {
				return vr, fmt.Errorf("%s: associative array assignments need [KEY]=VALUE", name)
			}
			k, err := r.indexKey(el.Index)
			if err != nil {
				return vr, err
			}
			v, err := r.assignValue(el.Value)
			if err != nil {
				return vr, err
			}
			vr.Map[k] = v
		}
		return vr, nil
	}
	vr := expand.Variable{Set: true, Kind: expand.Indexed}
	if as.Append {
		switch cur.Kind {
		case expand.Indexed:
			vr.List = slices.Clone(cur.List)
			vr.Indexes = slices.Clone(cur.Indexes)
		case expand.String:
			vr.List = []string{cur.Str}
		}
	}
	for _, el := range as.Array.Elems {
		if el.Index != nil {
			i, err := r.arithm(el.Index)
			if err != nil {
				return vr, wrapExpand(err)
			}
			v, err := r.assignValue(el.Value)
			if err != nil {
				return vr, err
			}
			if i < 0 {
				return vr, fmt.Errorf("%s[%d]: bad array subscript", name, i)
			}
			arraySet(&vr, i, v)
			continue
		}
		vals, err := r.fields(el.Value)
		if err != nil {
			return vr, err
		}
		arrayAppend(&vr, vals...)
	}
	return vr, nil
}

// elemAssign sets one element: NAME[i]=V or NAME[KEY]=V.
func (r *runner) elemAssign(cur expand.Variable, as *syntax.Assign, val string) (expand.Variable, error) {
	if cur.Kind == expand.Associative {
		k, err := r.indexKey(as.Index)
		if err != nil {
			return cur, err
		}
		vr := cur
		vr.Map = cloneMap(cur.Map)
		if as.Append {
			val = vr.Map[k] + val
		}
		vr.Map[k] = val
		return vr, nil
	}
	i, err := r.arithm(as.Index)
	if err != nil {
		return cur, wrapExpand(err)
	}
	vr := expand.Variable{Set: true, Kind: expand.Indexed}
	switch cur.Kind {
	case expand.Indexed:
		vr.List = slices.Clone(cur.List)
		vr.Indexes = slices.Clone(cur.Indexes)
	case expand.String:
		vr.List = []string{cur.Str}
	}
	if i < 0 {
		// Negative subscripts count back from one past the highest index.
		if i += arrayEnd(&vr); i < 0 {
			return cur, fmt.Errorf("%s[%d]: bad array subscript", as.Name.Value, i-arrayEnd(&vr))
		}
	}
	if as.Append {
		old, _ := arrayGet(&vr, i)
		val = old + val
	}
	arraySet(&vr, i, val)
	return vr, nil
}

// Indexed arrays are dense (List alone) until an element is set past the
// end or unset in the middle; then Indexes holds each element's index, as
// expand understands.

// arrayEnd is one past the highest index.
func arrayEnd(vr *expand.Variable) int {
	if vr.Indexes == nil {
		return len(vr.List)
	}
	if len(vr.Indexes) == 0 {
		return 0
	}
	return vr.Indexes[len(vr.Indexes)-1] + 1
}

// sparse makes the index list explicit.
func sparse(vr *expand.Variable) {
	if vr.Indexes == nil {
		vr.Indexes = make([]int, len(vr.List))
		for k := range vr.Indexes {
			vr.Indexes[k] = k
		}
	}
}

// arrayGet returns element i.
func arrayGet(vr *expand.Variable, i int) (string, bool) {
	if vr.Indexes == nil {
		if i < len(vr.List) {
			return vr.List[i], true
		}
		return "", false
	}
	if pos, ok := slices.BinarySearch(vr.Indexes, i); ok {
		return vr.List[pos], true
	}
	return "", false
}

// arraySet sets element i (i >= 0).
func arraySet(vr *expand.Variable, i int, v string) {
	if vr.Indexes == nil {
		switch {
		case i < len(vr.List):
			vr.List[i] = v
			return
		case i == len(vr.List):
			vr.List = append(vr.List, v)
			return
		}
		sparse(vr)
	}
	pos, ok := slices.BinarySearch(vr.Indexes, i)
	if ok {
		vr.List[pos] = v
		return
	}
	vr.Indexes = slices.Insert(vr.Indexes, pos, i)
	vr.List = slices.Insert(vr.List, pos, v)
}

// arrayAppend adds values after the highest index.
func arrayAppend(vr *expand.Variable, vals ...string) {
	for _, v := range vals {
		arraySet(vr, arrayEnd(vr), v)
	}
}

// arrayUnset removes element i.
func arrayUnset(vr *expand.Variable, i int) {
	sparse(vr)
	if pos, ok := slices.BinarySearch(vr.Indexes, i); ok {
		vr.Indexes = slices.Delete(vr.Indexes, pos, pos+1)
		vr.List = slices.Delete(vr.List, pos, pos+1)
	}
}

// indexKey expands the key of an associative array element.
func (r *runner) indexKey(x syntax.ArithmExpr) (string, error) {
	if w, ok := x.(*syntax.Word); ok {
		return r.literal(w)
	}
	n, err := r.arithm(x)
	if err != nil {
		return "", wrapExpand(err)
	}
	return strconv.Itoa(n), nil
}

// readText is a line read by read: its text, and which bytes a
// backslash escaped (those never split fields).
type readText struct {
	text string
	esc  []bool
}

// readLine reads one line for read: up to delim (-1: none), without it,
// at most limit characters (0: no limit). Unless raw, a backslash
// escapes the next character and a backslash-newline continues the line.
// eof is true when the input ended before delim.
func readLine(br *bufio.Reader, delim, limit int, raw bool) (line readText, eof bool, err error) {
	var b []byte
	var esc []bool
	chars := 0
	for limit <= 0 || chars < limit {
		c, err := br.ReadByte()
		if err == io.EOF {
			return readText{string(b), esc}, true, nil
		}
		if err != nil {
			return readText{string(b), esc}, true, err
		}
		if int(c) == delim {
			return readText{string(b), esc}, false, nil
		}
		if c == '\\' && !raw {
			n, err := br.ReadByte()
			if err != nil {
				return readText{string(b), esc}, true, nil
			}
			if n == '\n' {
				continue
			}
			b, esc = append(b, n), append(esc, true)
			chars++
			continue
		}
		b, esc = append(b, c), append(esc, false)
		if c < 0x80 || c >= 0xc0 {
			chars++
		}
	}
	return readText{string(b), esc}, false, nil
}

// splitRead splits a line for read into at most n fields (-1: all): as
// word splitting, except that the last field takes the rest of the line
// (trimmed of IFS white space, and of one final delimiter when it holds
// a single field), as POSIX says.
func splitRead(line readText, ifs string, n int) []string {
	s, esc := line.text, line.esc
	isIFS := func(i int) bool { return !esc[i] && strings.IndexByte(ifs, s[i]) >= 0 }
	isBlank := func(i int) bool { return isIFS(i) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') }
	var fields []string
	i := 0
	for i < len(s) && isBlank(i) {
		i++
	}
	for i < len(s) {
		if n > 0 && len(fields) == n-1 {
			rest := i
			end := len(s)
			for end > rest && isBlank(end-1) {
				end--
			}
			// One field and one trailing delimiter: drop the delimiter.
			j := rest
			for j < end && !isIFS(j) {
				j++
			}
			k := j
			for k < end && isBlank(k) {
				k++
			}
			if k < end && isIFS(k) {
				k++
				for k < end && isBlank(k) {
					k++
				}
			}
			if j == end || k == end {
				end = j
			}
			fields = append(fields, s[rest:end])
			return fields
		}
		start := i
		for i < len(s) && !isIFS(i) {
			i++
		}
		fields = append(fields, s[start:i])
		if i == len(s) {
			break
		}
		// The delimiter: blanks, at most one other IFS character, blanks.
		for i < len(s) && isBlank(i) {
			i++
		}
		if i < len(s) && isIFS(i) && !isBlank(i) {
			i++
			for i < len(s) && isBlank(i) {
				i++
			}
		}
	}
	return fields
}

// runAlias runs a command whose name is an alias: the alias's text with
// the command's other words after it, quoted, as bash would have read it.
func (r *runner) runAlias(args []string, def aliasDef) error {
	var b strings.Builder
	b.WriteString(def.value)
	for _, a := range args[1:] {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(" " + q)
	}
	if r.inAlias == nil {
		r.inAlias = map[string]bool{}
	}
	r.inAlias[args[0]] = true
	defer delete(r.inAlias, args[0])
	line := r.line
	err := r.evalString(b.String())
	r.line = line
	return err
}
