package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/hostapi"
)

// DefaultMaxCallDepth bounds shell function recursion when
// Options.MaxCallDepth is 0.
const DefaultMaxCallDepth = 1000

// Options configure one run of the shell.
type Options struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Env holds the initial exported variables.
	Env map[string]string
	// Dir is the initial working directory; "" means "/workspace".
	Dir string
	// Tools is what the tool applet calls; nil when there are none.
	Tools hostapi.Tools
	// HTTP is what curl and wget call; nil when there is no host.
	HTTP hostapi.HTTP
	// Registry holds the commands; nil means applets.Default().
	Registry *applets.Registry
	// Ctx stops the run when cancelled (also on a deadline).
	Ctx context.Context
	// MaxCallDepth bounds function recursion; 0 means DefaultMaxCallDepth.
	MaxCallDepth int
}

// Exit statuses the shell itself produces.
const (
	statusUsage     = 2   // syntax errors, unsupported syntax, bad builtin usage
	statusNotExec   = 126 // found but cannot run
	statusNotFound  = 127 // no such command
	statusCancelled = 130 // the context was cancelled
	statusTimeout   = 124 // the context's deadline passed
)

// Run parses and runs script, writing diagnostics to opts.Stderr, and
// returns the exit status of the last command (or of exit).
func Run(script string, opts Options) (status int) {
	r := newRunner(opts)
	defer func() {
		// A bug in the shell must not take the whole guest down.
		if v := recover(); v != nil {
			fmt.Fprintf(r.stderr, "sh: internal error: %v\n%s", v, debug.Stack())
			status = 70
		}
	}()
	return r.main(script, []string{"sh"})
}

// newRunner builds a top-level shell from opts.
func newRunner(opts Options) *runner {
	if opts.Ctx == nil {
		opts.Ctx = context.Background()
	}
	if opts.Registry == nil {
		opts.Registry = applets.Default()
	}
	if opts.Stdin == nil {
		opts.Stdin = strings.NewReader("")
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Dir == "" {
		opts.Dir = "/workspace"
	}
	if opts.MaxCallDepth <= 0 {
		opts.MaxCallDepth = DefaultMaxCallDepth
	}
	// Pipeline stages write concurrently; the caller's writers need not be
	// safe for that.
	mu := &sync.Mutex{}
	opts.Stdout = &lockedWriter{mu: mu, w: opts.Stdout}
	opts.Stderr = &lockedWriter{mu: mu, w: opts.Stderr}
	r := &runner{
		ctx:      opts.Ctx,
		reg:      opts.Registry,
		tools:    opts.Tools,
		http:     opts.HTTP,
		vars:     newVars(),
		funcs:    map[string]*syntax.Stmt{},
		dir:      path.Clean(opts.Dir),
		maxDepth: opts.MaxCallDepth,
		stdin:    opts.Stdin,
		stdout:   opts.Stdout,
		stderr:   opts.Stderr,
		started:  time.Now(),
		name:     "sh",
	}
	r.env = env{r}
	for k, v := range maps.All(opts.Env) {
		if k == "PWD" {
			continue
		}
		r.vars.scopes[0][k] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
	}
	r.vars.scopes[0]["OLDPWD"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: r.dir}
	if _, ok := opts.Env["HOME"]; !ok {
		// ~ and cd need a home; the sandbox's is /workspace.
		r.vars.scopes[0]["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: "/workspace"}
	}
	return r
}

// main runs a whole script as a shell (or child shell) does: parse it,
// refuse unsupported syntax, run it, run the EXIT trap, return the status.
// args are $0 $1 ...; args[0] also names the shell in messages.
func (r *runner) main(script string, args []string) int {
	if len(args) > 0 {
		r.arg0, r.name = args[0], args[0]
		r.params = append([]string(nil), args[1:]...)
	}
	file, err := parse(script)
	if err != nil {
		r.errorf(0, "%s", err)
		return statusUsage
	}
	if err := checkSupported(file); err != nil {
		r.errorf(0, "%s", err)
		return statusUsage
	}
	err = r.topLevel(file.Stmts)
	status := r.finish(err)
	if trap := r.exitTrap; trap != "" {
		r.exitTrap = ""
		saved := r.status
		r.status = status
		if terr := r.evalString(trap); terr != nil {
			if es, ok := terr.(*exitSignal); ok {
				return es.code
			}
		}
		r.status = saved
	}
	return status
}

// topLevel runs a script's statements. An expansion error abandons the
// rest of its line and the script continues on the next one, as in bash
// (under set -e the script ends).
func (r *runner) topLevel(list []*syntax.Stmt) error {
	for i := 0; i < len(list); i++ {
		err := r.stmt(list[i])
		var as *abortSignal
		if !errors.As(err, &as) {
			if err != nil {
				return err
			}
			continue
		}
		r.status = 1
		if r.opts.errexit {
			return &exitSignal{1}
		}
		line := list[i].End().Line()
		for i+1 < len(list) && list[i+1].Pos().Line() <= line {
			i++
		}
	}
	return nil
}

// finish turns the error that ended a script into its exit status.
func (r *runner) finish(err error) int {
	var es *exitSignal
	var rs *returnSignal
	var ls *loopSignal
	switch {
	case err == nil:
		return r.status
	case errors.As(err, &es):
		return es.code
	case errors.As(err, &rs):
		return rs.code
	case errors.As(err, &ls):
		return r.status
	case errors.As(err, new(*abortSignal)):
		return 1
	case errors.Is(err, context.DeadlineExceeded):
		r.errorf(0, "stopped: the run's time limit was reached")
		return statusTimeout
	case errors.Is(err, context.Canceled):
		r.errorf(0, "stopped: the run was cancelled")
		return statusCancelled
	}
	r.errorf(0, "%s", err)
	return 1
}

// parse reads a script in the bash dialect; errors name line and column.
func parse(script string) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader(script), "")
	for tries := 100; err != nil; tries-- {
		// $(( 16#ff )): see escapeArithHash.
		fixed, ok := escapeArithHash(script, err, tries)
		if !ok {
			break
		}
		script = fixed
		f, err = p.Parse(strings.NewReader(script), "")
	}
	if err != nil {
		var pe syntax.ParseError
		var le syntax.LangError
		switch {
		case errors.As(err, &pe):
			return nil, fmt.Errorf("line %d:%d: %s", pe.Pos.Line(), pe.Pos.Col(), pe.Text)
		case errors.As(err, &le):
			return nil, fmt.Errorf("line %d:%d: %s is not supported", le.Pos.Line(), le.Pos.Col(), le.Feature)
		}
		return nil, err
	}
	return f, nil
}

// checkSupported refuses, before anything runs, the syntax this shell does
// not implement, naming the construct and where it is.
func checkSupported(node syntax.Node) error {
	var err error
	at := func(n syntax.Node, format string, args ...any) {
		if err == nil {
			p := n.Pos()
			err = fmt.Errorf("line %d:%d: %s", p.Line(), p.Col(), fmt.Sprintf(format, args...))
		}
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background {
				at(n, "background jobs ('&') are not supported: there are no processes in the sandbox; run the command in the foreground")
			}
			if n.Coprocess || n.Disown {
				at(n, "coprocesses are not supported")
			}
		case *syntax.CoprocClause:
			at(n, "coprocesses (coproc) are not supported")
		case *syntax.Redirect:
			if n.N != nil && !isDigitString(n.N.Value) && !validName(strings.Trim(n.N.Value, "{}")) {
				at(n, "%s: not a valid descriptor name", n.N.Value)
			}
		case *syntax.FuncDecl:
			if n.Name == nil {
				at(n, "anonymous functions are not supported")
			}
		case *syntax.Word:
			if count := braceWords(n); count > maxBraceWords {
				at(n, "brace expansion to %d words is too large (the limit is %d)", count, maxBraceWords)
			}
		case *syntax.TestDecl:
			at(n, "@test declarations are not supported")
		case *syntax.ParamExp:
			if n.Width || n.IsSet || n.Flags != nil || len(n.Modifiers) > 0 || n.NestedParam != nil {
				at(n, "this parameter expansion is not supported")
			}
		case *syntax.CmdSubst:
			if n.TempFile || n.ReplyVar {
				at(n, "mksh command substitutions are not supported")
			}
		}
		return err == nil
	})
	return err
}

func isDigitString(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// errorf writes a diagnostic: "NAME: line N: message", or without the line
// when line is 0 (the message then carries its own position).
func (r *runner) errorf(line uint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		fmt.Fprintf(r.stderr, "%s: line %d: %s\n", r.name, line, msg)
		return
	}
	fmt.Fprintf(r.stderr, "%s: %s\n", r.name, msg)
}

// lockedWriter serializes writes to a caller's stream.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// maxBraceWords bounds brace expansion: {1..1000000000} would exhaust the
// guest's memory before the run could be stopped.
const maxBraceWords = 1 << 20

// braceWords counts the words a word's brace expansion makes.
func braceWords(w *syntax.Word) int {
	if !strings.Contains(w.Lit(), "{") && !wordHasBraceLit(w) {
		return 1
	}
	c := *w
	c.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&c) {
		return 1
	}
	return countBraces(&c)
}

// wordHasBraceLit reports whether any literal part holds a brace.
func wordHasBraceLit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.Contains(lit.Value, "{") {
			return true
		}
	}
	return false
}

// countBraces multiplies out the brace expressions of a split word,
// saturating at maxBraceWords+1.
func countBraces(w *syntax.Word) int {
	total := 1
	for _, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n := 0
		if be.Sequence && len(be.Elems) >= 2 {
			n = seqCount(be.Elems)
		} else {
			for _, e := range be.Elems {
				n += countBraces(e)
			}
		}
		total *= max(n, 1)
		if total > maxBraceWords {
			return maxBraceWords + 1
		}
	}
	return total
}

// seqCount is the length of {a..b[..step]}.
func seqCount(elems []*syntax.Word) int {
	from, err1 := strconv.Atoi(elems[0].Lit())
	to, err2 := strconv.Atoi(elems[1].Lit())
	if err1 != nil || err2 != nil {
		return 52 // letters
	}
	step := 1
	if len(elems) > 2 {
		if s, err := strconv.Atoi(elems[2].Lit()); err == nil && s != 0 {
			step = s
		}
	}
	if step < 0 {
		step = -step
	}
	d := to - from
	if d < 0 {
		d = -d
	}
	return d/step + 1
}

// Session is a shell that runs script after script as one shell would:
// variables (exported or not), functions, aliases, options, the working
// directory, open descriptors, the directory stack and $? carry over from
// one script to the next (a sandbox with keep_state, docs/sessions.md).
// What belongs to one run (its input and output, its context, tools and
// commands) is given to each Run.
type Session struct {
	r *runner
}

// NewSession starts a session whose first script runs with opts' Env as
// its exported variables and opts.Dir as its working directory.
func NewSession(opts Options) *Session {
	return &Session{r: newRunner(opts)}
}

// Run runs script in the session and returns its exit status, as Run
// would. opts gives the run's streams, context, tools, commands and call
// depth; of its Env, only variables the session does not have yet are
// added (the session's own values, set by its scripts, win), and its Dir
// is ignored: the session stays where its last script left it.
func (s *Session) Run(script string, opts Options) (status int) {
	fresh := newRunner(opts)
	r := s.r
	r.ctx, r.reg, r.tools, r.http = fresh.ctx, fresh.reg, fresh.tools, fresh.http
	r.stdin, r.stdout, r.stderr = fresh.stdin, fresh.stdout, fresh.stderr
	r.maxDepth = fresh.maxDepth
	for k, v := range fresh.vars.scopes[0] {
		if _, ok := r.vars.scopes[0][k]; !ok && k != "OLDPWD" {
			r.vars.scopes[0][k] = v
		}
	}
	// A script interrupted inside a function or loop (a cancelled run is
	// not kept, but an exit or return in one is) leaves none of that
	// behind.
	r.depth, r.loops, r.funcNames, r.noErrexit = 0, 0, nil, 0
	r.vars.scopes, r.vars.attrs = r.vars.scopes[:1], r.vars.attrs[:1]
	// Aliases of earlier scripts were defined before any line of this one.
	for name, def := range r.aliases {
		def.line = 0
		r.aliases[name] = def
	}
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(r.stderr, "sh: internal error: %v\n%s", v, debug.Stack())
			status = 70
		}
	}()
	return r.main(script, []string{"sh"})
}
