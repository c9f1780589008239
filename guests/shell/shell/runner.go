package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/hostapi"
)

// runner is one shell: the top-level one, a subshell, a pipeline stage or
// a command substitution. Subshells are copies; nothing is shared but the
// context, the registry, the tools and the function-depth budget.
type runner struct {
	ctx   context.Context
	reg   *applets.Registry
	tools hostapi.Tools
	http  hostapi.HTTP

	vars   *vars
	env    env
	funcs  map[string]*syntax.Stmt
	dir    string
	params []string
	arg0   string
	name   string // names the shell in diagnostics
	status int    // $?
	opts   shellOpts

	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// fds are the descriptors from 3 up (exec 3>file, process
	// substitution); procSubs the process substitutions still running.
	fds      fdTable
	procSubs []*procSub
	// isSub is set in subshells, pipeline stages and substitutions.
	isSub bool
	// pipe is the stage output this shell writes to, if it is a pipeline
	// stage; once its reader has gone the stage stops (SIGPIPE).
	pipe *pipeOut

	depth     int      // function calls (and sourced files) in progress
	loops     int      // loops in progress, for break and continue
	funcNames []string // FUNCNAME: the running functions, innermost first
	dirStack  []string // pushd's stack, below the current directory
	maxDepth  int
	// noErrexit > 0 while running a condition, where set -e is ignored.
	noErrexit int
	line      uint // line of the command running, for diagnostics
	started   time.Time
	exitTrap  string
	// traps holds the EXIT, ERR and RETURN traps.
	traps       map[string]string
	inDebugTrap bool
	// aliases are the shell's aliases; inAlias names those being
	// expanded, which do not expand again.
	aliases map[string]aliasDef
	inAlias map[string]bool
	// pipeStatus is PIPESTATUS: the statuses of the last pipeline.
	pipeStatus []int

	// substStatus is the status of the last command substitution, which
	// becomes $? for a command made only of assignments.
	substStatus int
	substRan    bool
}

// Control flow travels up as errors.
type (
	// exitSignal ends the shell (exit, set -e, fatal expansion errors).
	exitSignal struct{ code int }
	// returnSignal ends a function or sourced file.
	returnSignal struct{ code int }
	// loopSignal is break (cont false) or continue, n levels up.
	loopSignal struct {
		n    int
		cont bool
		// status is the loop's status when the break was an error
		// (break 0): the loop is left, $? is 1.
		status int
	}
)

func (e *exitSignal) Error() string   { return fmt.Sprintf("exit %d", e.code) }
func (e *returnSignal) Error() string { return fmt.Sprintf("return %d", e.code) }
func (e *loopSignal) Error() string   { return "break" }

// pipeOut is a pipeline stage's stdout; it remembers that the reader left.
type pipeOut struct {
	w      io.Writer
	broken atomic.Bool
}

func (p *pipeOut) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && errors.Is(err, io.ErrClosedPipe) {
		p.broken.Store(true)
	}
	return n, err
}

// subshell copies the shell for ( ), a pipeline stage or $( ).
func (r *runner) subshell() *runner {
	c := *r
	c.vars = r.vars.clone()
	c.env = env{&c}
	c.funcs = maps.Clone(r.funcs)
	c.params = slices.Clone(r.params)
	c.dirStack = slices.Clone(r.dirStack)
	// The subshell sees the same descriptors but closing one of them
	// there closes nothing of the parent's.
	c.fds = make(fdTable, len(r.fds))
	for n, e := range r.fds {
		c.fds[n] = &fdEntry{r: e.r, w: e.w}
	}
	c.procSubs = nil
	c.isSub = true
	// Each shell reuses its own PIPESTATUS array.
	c.pipeStatus = slices.Clone(r.pipeStatus)
	c.exitTrap = ""
	c.traps = nil
	c.aliases = maps.Clone(r.aliases)
	return &c
}

// checkCancel returns the context's error once the run must stop.
func (r *runner) checkCancel() error {
	return r.ctx.Err()
}

// stmts runs a list of statements.
func (r *runner) stmts(list []*syntax.Stmt) error {
	for _, s := range list {
		if err := r.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

// stmt runs one statement: its redirections, its command, !, and set -e.
func (r *runner) stmt(s *syntax.Stmt) error {
	if err := r.checkCancel(); err != nil {
		return err
	}
	r.line = s.Pos().Line()
	// Process substitutions started by this statement end with it.
	mark := len(r.procSubs)
	defer r.finishProcSubs(mark)
	if s.Cmd == nil || isExecRedirect(s) {
		// Redirections alone open (and truncate) files; exec with only
		// redirections changes the shell's own streams.
		restore, err := r.redirect(s.Redirs, s.Cmd != nil)
		restore()
		if err != nil {
			r.errorf(r.line, "%s", err)
			r.status = 1
			return r.afterSimple(s)
		}
		r.status = 0
		return nil
	}
	restore, err := r.redirect(s.Redirs, false)
	if err != nil {
		r.errorf(r.line, "%s", err)
		restore()
		r.status = 1
		return r.afterSimple(s)
	}
	if s.Negated {
		r.noErrexit++
	}
	err = r.command(s.Cmd)
	if s.Negated {
		r.noErrexit--
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op != syntax.Pipe && c.Op != syntax.PipeAll {
			break
		}
	case *syntax.CallExpr, *syntax.Subshell, *syntax.ArithmCmd, *syntax.TestClause,
		*syntax.DeclClause, *syntax.LetClause:
		r.pipeStatus = append(r.pipeStatus[:0], r.status)
	}
	restore()
	if err != nil {
		return err
	}
	if s.Negated {
		if r.status == 0 {
			r.status = 1
		} else {
			r.status = 0
		}
		return nil
	}
	return r.afterSimple(s)
}

// isExecRedirect reports whether s is `exec` with redirections only.
func isExecRedirect(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	return ok && len(call.Assigns) == 0 && len(call.Args) == 1 && call.Args[0].Lit() == "exec" && len(s.Redirs) > 0
}

// afterSimple applies what follows a command: the broken-pipe stop of a
// pipeline stage, and set -e for commands that are not compound (those
// already checked their own commands) and not in a condition.
func (r *runner) afterSimple(s *syntax.Stmt) error {
	if r.pipe != nil && r.pipe.broken.Load() {
		return &exitSignal{applets.StatusBrokenPipe}
	}
	if r.status == 0 || r.noErrexit > 0 {
		return nil
	}
	if trap := r.traps["ERR"]; trap != "" && simpleFailure(s) {
		status := r.status
		r.noErrexit++
		err := r.evalString(trap)
		r.noErrexit--
		r.status = status
		if err != nil {
			return err
		}
	}
	if !r.opts.errexit {
		return nil
	}
	switch c := s.Cmd.(type) {
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
		*syntax.Block, *syntax.FuncDecl:
		return nil
	case *syntax.BinaryCmd:
		if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
			return nil
		}
	}
	return &exitSignal{r.status}
}

// simpleFailure reports whether a failed statement triggers ERR and
// set -e itself (compound commands have already checked their parts).
func simpleFailure(s *syntax.Stmt) bool {
	switch c := s.Cmd.(type) {
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
		*syntax.Block, *syntax.FuncDecl:
		return false
	case *syntax.BinaryCmd:
		return c.Op != syntax.AndStmt && c.Op != syntax.OrStmt
	}
	return true
}

// command runs one command and sets r.status.
func (r *runner) command(cm syntax.Command) error {
	switch c := cm.(type) {
	case *syntax.CallExpr:
		return r.call(c)
	case *syntax.Block:
		return r.stmts(c.Stmts)
	case *syntax.Subshell:
		sub := r.subshell()
		err := sub.stmts(c.Stmts)
		r.status = sub.finishSub(err)
		if trap := sub.exitTrap; trap != "" && r.ctx.Err() == nil {
			sub.exitTrap = ""
			sub.status = r.status
			if terr := sub.evalString(trap); terr != nil {
				r.status = sub.finishSub(terr)
			}
		}
		return r.cancelled(err)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			r.noErrexit++
			err := r.stmt(c.X)
			r.noErrexit--
			if err != nil {
				return err
			}
			if (r.status == 0) == (c.Op == syntax.AndStmt) {
				return r.stmt(c.Y)
			}
			return nil
		default:
			return r.pipeline(c)
		}
	case *syntax.IfClause:
		return r.ifClause(c)
	case *syntax.WhileClause:
		return r.whileClause(c)
	case *syntax.ForClause:
		return r.forClause(c)
	case *syntax.CaseClause:
		return r.caseClause(c)
	case *syntax.FuncDecl:
		r.funcs[c.Name.Value] = c.Body
		r.status = 0
		return nil
	case *syntax.ArithmCmd:
		if r.opts.xtrace {
			fmt.Fprintf(r.stderr, "+ ((  %s  ))\n", nodeArithText(c.X))
		}
		n, err := r.arithm(c.X)
		if err != nil {
			return r.expandFailed(err)
		}
		r.status = boolStatus(n != 0)
		return nil
	case *syntax.TestClause:
		ok, err := r.testExpr(c.X)
		if err != nil {
			if errors.Is(err, errExpand) {
				return r.expandFailed(err)
			}
			r.errorf(r.line, "%s", err)
			r.status = 2
			return nil
		}
		r.status = boolStatus(ok)
		return nil
	case *syntax.DeclClause:
		return r.declClause(c)
	case *syntax.LetClause:
		if r.opts.xtrace {
			var words []string
			for _, x := range c.Exprs {
				words = append(words, nodeArithText(x))
			}
			fmt.Fprintf(r.stderr, "+ let %s\n", strings.Join(words, " "))
		}
		r.status = 1
		for _, x := range c.Exprs {
			var n int
			var err error
			if w, ok := x.(*syntax.Word); ok {
				// let 'i += 1': a quoted argument is an expression too.
				var s string
				if s, err = r.literal(w); err == nil {
					n, err = r.arith(s)
				}
			} else {
				n, err = r.arithm(x)
			}
			if err != nil {
				return r.expandFailed(err)
			}
			r.status = boolStatus(n != 0)
		}
		return nil
	case *syntax.TimeClause:
		start := time.Now()
		var err error
		if c.Stmt != nil {
			err = r.stmt(c.Stmt)
		}
		d := time.Since(start)
		fmt.Fprintf(r.stderr, "\nreal\t%dm%.3fs\nuser\t0m0.000s\nsys\t0m0.000s\n", int(d.Minutes()), d.Seconds()-60*float64(int(d.Minutes())))
		return err
	}
	r.errorf(r.line, "%T is not supported", cm)
	r.status = statusUsage
	return nil
}

// cancelled passes on only the errors a subshell cannot absorb: the
// run's cancellation.
func (r *runner) cancelled(err error) error {
	if err != nil && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return nil
}

// finishSub is the status of a subshell that ended with err.
func (r *runner) finishSub(err error) int {
	var es *exitSignal
	var rs *returnSignal
	switch {
	case err == nil:
		return r.status
	case errors.As(err, &es):
		return es.code
	case errors.As(err, &rs):
		return rs.code
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return statusCancelled
	}
	var as *abortSignal
	if errors.As(err, &as) {
		return 1
	}
	return r.status
}

func boolStatus(ok bool) int {
	if ok {
		return 0
	}
	return 1
}

// cond runs a condition list, where set -e does not apply.
func (r *runner) cond(list []*syntax.Stmt) (bool, error) {
	r.noErrexit++
	err := r.stmts(list)
	r.noErrexit--
	return r.status == 0, err
}

func (r *runner) ifClause(c *syntax.IfClause) error {
	for ; c != nil; c = c.Else {
		if len(c.Cond) == 0 { // else
			return r.stmts(c.Then)
		}
		ok, err := r.cond(c.Cond)
		if err != nil {
			return err
		}
		if ok {
			return r.stmts(c.Then)
		}
	}
	r.status = 0
	return nil
}

// loopBody runs one iteration; done reports a break out of this loop.
func (r *runner) loopBody(body []*syntax.Stmt) (done bool, err error) {
	r.loops++
	err = r.stmts(body)
	r.loops--
	var ls *loopSignal
	if errors.As(err, &ls) {
		if ls.n > 1 {
			return true, &loopSignal{n: ls.n - 1, cont: ls.cont, status: ls.status}
		}
		if ls.status != 0 {
			r.status = ls.status
		}
		return !ls.cont, nil
	}
	if err == nil && r.pipe != nil && r.pipe.broken.Load() {
		return true, &exitSignal{applets.StatusBrokenPipe}
	}
	return false, err
}

func (r *runner) whileClause(c *syntax.WhileClause) error {
	status := 0
	for {
		if err := r.checkCancel(); err != nil {
			return err
		}
		// break and continue in the condition act on this loop too, as in
		// bash: the rest of the condition is skipped with status 0, so
		// continue goes round a while loop again and ends an until loop.
		r.loops++
		ok, err := r.cond(c.Cond)
		r.loops--
		var ls *loopSignal
		if errors.As(err, &ls) {
			if ls.n > 1 {
				return &loopSignal{n: ls.n - 1, cont: ls.cont, status: ls.status}
			}
			if ls.cont && !c.Until {
				continue
			}
			status = ls.status
			break
		}
		if err != nil {
			return err
		}
		if ok == c.Until {
			break
		}
		done, err := r.loopBody(c.Do)
		status = r.status
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	r.status = status
	return nil
}

func (r *runner) forClause(c *syntax.ForClause) error {
	if c.Select {
		return r.selectClause(c)
	}
	status := 0
	switch loop := c.Loop.(type) {
	case *syntax.WordIter:
		var items []string
		if loop.InPos.IsValid() {
			var err error
			if items, err = r.fields(loop.Items...); err != nil {
				return r.expandFailed(err)
			}
		} else {
			items = slices.Clone(r.params)
		}
		for _, it := range items {
			if err := r.checkCancel(); err != nil {
				return err
			}
			if r.opts.xtrace {
				fmt.Fprintf(r.stderr, "+ for %s in %s\n", loop.Name.Value, traceLine(items))
			}
			if err := r.setString(loop.Name.Value, it); err != nil {
				r.errorf(r.line, "%s", err)
				r.status = 1
				return nil
			}
			done, err := r.loopBody(c.Do)
			status = r.status
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
	case *syntax.CStyleLoop:
		if loop.Init != nil {
			if _, err := r.arithm(loop.Init); err != nil {
				return r.expandFailed(err)
			}
		}
		for {
			if err := r.checkCancel(); err != nil {
				return err
			}
			if loop.Cond != nil {
				n, err := r.arithm(loop.Cond)
				if err != nil {
					return r.expandFailed(err)
				}
				if n == 0 {
					break
				}
			}
			done, err := r.loopBody(c.Do)
			status = r.status
			if err != nil {
				return err
			}
			if done {
				break
			}
			if loop.Post != nil {
				if _, err := r.arithm(loop.Post); err != nil {
					return r.expandFailed(err)
				}
			}
		}
	}
	r.status = status
	return nil
}

func (r *runner) caseClause(c *syntax.CaseClause) error {
	word, err := r.literal(c.Word)
	if err != nil {
		return r.expandFailed(err)
	}
	r.status = 0
	fallThrough := false
	for i, item := range c.Items {
		matched := fallThrough
		for _, pat := range item.Patterns {
			if matched {
				break
			}
			ok, err := r.matchPattern(pat, word)
			if err != nil {
				return r.expandFailed(err)
			}
			matched = ok
		}
		if !matched {
			continue
		}
		if err := r.stmts(item.Stmts); err != nil {
			return err
		}
		switch item.Op {
		case syntax.Fallthrough:
			fallThrough = true
			if i == len(c.Items)-1 {
				return nil
			}
		case syntax.Resume, syntax.ResumeKorn:
			fallThrough = false
		default:
			return nil
		}
	}
	return nil
}

// matchPattern matches s against a shell pattern word (case, [[ == ]]).
func (r *runner) matchPattern(pat *syntax.Word, s string) (bool, error) {
	p, err := r.pattern(pat)
	if err != nil {
		return false, err
	}
	mode := pattern.NoGlobStar
	if r.opts.nocasematch {
		mode |= pattern.NoGlobCase
	}
	match, err := wholeMatcher(p, mode)
	if err != nil {
		var neg *pattern.NegExtGlobError
		if errors.As(err, &neg) || strings.Contains(err.Error(), "!(...)") {
			return false, err
		}
		// Not a valid pattern: bash compares it as text.
		return p == s, nil
	}
	return match(s), nil
}

// errExpand marks errors of word expansion.
var errExpand = errors.New("expansion failed")

// expandFailed reports an expansion error. Unset variables under set -u
// and ${x:?} end the shell, as in bash; other errors fail the command.
func (r *runner) expandFailed(err error) error {
	if ctxErr := r.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var ue *unsetError
	if errors.As(err, &ue) {
		// bash ends the shell: with 127 at the top, 1 in a subshell.
		r.errorf(r.line, "%s: %s", ue.name, ue.msg)
		code := statusNotFound
		if r.isSub {
			code = 1
		}
		r.status = code
		return &exitSignal{code}
	}
	var es *exitSignal
	if errors.As(err, &es) {
		return es
	}
	var as *abortSignal
	if errors.As(err, &as) {
		return as
	}
	r.errorf(r.line, "%s", strings.TrimPrefix(err.Error(), errExpand.Error()+": "))
	r.status = 1
	return &abortSignal{}
}

// abortSignal abandons the rest of the current line after an expansion
// error (division by zero, a bad substitution), as bash does: the script
// goes on with the next line, with status 1.
type abortSignal struct{}

func (*abortSignal) Error() string { return "expansion error" }

// evalString parses and runs source in this shell (eval, traps). $? is
// kept for the source to see (a trap reads the exit status).
func (r *runner) evalString(src string) error {
	f, err := parse(src)
	if err != nil {
		r.errorf(r.line, "%s", err)
		r.status = statusUsage
		return nil
	}
	if err := checkSupported(f); err != nil {
		r.errorf(r.line, "%s", err)
		r.status = statusUsage
		return nil
	}
	if len(f.Stmts) == 0 {
		r.status = 0
		return nil
	}
	return r.stmts(f.Stmts)
}

// selectClause is select NAME in WORDS: it prints the numbered words and
// the $PS3 prompt on stderr, reads a line from stdin into REPLY, sets
// NAME to the word chosen (empty for a bad answer) and runs the body,
// until break or the end of input. An empty line prints the menu again.
func (r *runner) selectClause(c *syntax.ForClause) error {
	loop, _ := c.Loop.(*syntax.WordIter)
	if loop == nil {
		return nil
	}
	var items []string
	if loop.InPos.IsValid() {
		var err error
		if items, err = r.fields(loop.Items...); err != nil {
			return r.expandFailed(err)
		}
	} else {
		items = slices.Clone(r.params)
	}
	if len(items) == 0 {
		r.status = 0
		return nil
	}
	menu := func() {
		var b strings.Builder
		width := len(strconv.Itoa(len(items)))
		for i, it := range items {
			fmt.Fprintf(&b, "%*d) %s\n", width, i+1, it)
		}
		io.WriteString(r.stderr, b.String())
	}
	menu()
	status := 0
	for {
		if err := r.checkCancel(); err != nil {
			return err
		}
		prompt := "#? "
		if vr := r.env.Get("PS3"); vr.IsSet() {
			prompt = vr.String()
		}
		io.WriteString(r.stderr, prompt)
		line, eof, err := readLine(r.stdinReader(), '\n', 0, false)
		if eof && line.text == "" || err != nil {
			io.WriteString(r.stderr, "\n")
			r.status = 1
			return nil
		}
		_ = r.setString("REPLY", line.text)
		if strings.TrimSpace(line.text) == "" {
			menu()
			continue
		}
		choice := ""
		if n, err := strconv.Atoi(strings.TrimSpace(line.text)); err == nil && n >= 1 && n <= len(items) {
			choice = items[n-1]
		}
		if err := r.setString(loop.Name.Value, choice); err != nil {
			r.errorf(r.line, "%s", err)
			r.status = 1
			return nil
		}
		done, err := r.loopBody(c.Do)
		status = r.status
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	r.status = status
	return nil
}
