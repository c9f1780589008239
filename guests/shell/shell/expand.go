package shell

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// readDir lists a directory for globbing; paths are absolute because
// globbing is rooted at $PWD, which is the shell's own directory.
func readDir(name string) ([]fs.DirEntry, error) {
	return os.ReadDir(name)
}

// fields expands words as command arguments: braces, tilde, parameters,
// command substitution, arithmetic, word splitting, globbing.
func (r *runner) fields(words ...*syntax.Word) ([]string, error) {
	r.substRan = false
	out, err := expand.Fields(r.config(), words...)
	if err != nil {
		return nil, wrapExpand(err)
	}
	return out, nil
}

// literal expands one word without splitting or globbing (assignments,
// redirection targets, case words).
func (r *runner) literal(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	s, err := expand.Literal(r.config(), unescapeWord(w))
	if err != nil {
		return "", wrapExpand(err)
	}
	return s, nil
}

// wrapExpand marks an expansion error, keeping control-flow errors.
func wrapExpand(err error) error {
	switch err.(type) {
	case *exitSignal, *returnSignal, *loopSignal:
		return err
	}
	return fmt.Errorf("%w: %w", errExpand, err)
}

// unescapeWord turns the backslash escapes of unquoted literal parts into
// single-quoted parts. expand.Literal and expand.Pattern leave unquoted
// backslashes in place (expand.Fields removes them); this gives every
// context the same quote removal, and keeps escaped characters literal in
// patterns.
func unescapeWord(w *syntax.Word) *syntax.Word {
	need := false
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.Contains(lit.Value, `\`) {
			need = true
			break
		}
	}
	if !need {
		return w
	}
	out := &syntax.Word{Parts: make([]syntax.WordPart, 0, len(w.Parts)+2)}
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, `\`) {
			out.Parts = append(out.Parts, p)
			continue
		}
		s := lit.Value
		var plain strings.Builder
		flush := func() {
			if plain.Len() > 0 {
				out.Parts = append(out.Parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: plain.String()})
				plain.Reset()
			}
		}
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				flush()
				i++
				out.Parts = append(out.Parts, &syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: s[i : i+1]})
				continue
			}
			plain.WriteByte(s[i])
		}
		flush()
	}
	return out
}

// cmdSubst runs $(...) in a subshell, writing its output to w.
func (r *runner) cmdSubst(w io.Writer, cs *syntax.CmdSubst) error {
	sub := r.subshell()
	sub.stdout = w
	sub.pipe = nil
	// $(< file) is the file's content.
	if len(cs.Stmts) == 1 && cs.Stmts[0].Cmd == nil && len(cs.Stmts[0].Redirs) == 1 &&
		cs.Stmts[0].Redirs[0].Op == syntax.RdrIn {
		name, err := sub.literal(cs.Stmts[0].Redirs[0].Word)
		if err != nil {
			return err
		}
		f, err := sub.openIn(name)
		if err != nil {
			r.errorf(r.line, "%s: %s", name, errText(err))
			r.substStatus, r.substRan = 1, true
			return nil
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		r.substStatus, r.substRan = 0, true
		return err
	}
	err := sub.stmts(cs.Stmts)
	r.substStatus, r.substRan = sub.finishSub(err), true
	return r.cancelled(err)
}

// anchoredReplace computes ${x/#pat/rep} or ${x/%pat/rep} for the node
// registered under id (see anchorPrefix). It expands with a fresh
// configuration: the shell's own is in the middle of an expansion.
func (r *runner) anchoredReplace(id string) string {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return ""
	}
	v, ok := anchored.Load(n)
	if !ok {
		return ""
	}
	pe := v.(*syntax.ParamExp)
	cfg := &expand.Config{Env: r.env, CmdSubst: r.cmdSubst, NoUnset: r.opts.nounset}
	plain := *pe
	plain.Repl = nil
	val, err := expand.Literal(cfg, &syntax.Word{Parts: []syntax.WordPart{&plain}})
	if err != nil {
		return ""
	}
	// Drop the anchor from the pattern's first literal.
	origParts := append([]syntax.WordPart(nil), pe.Repl.Orig.Parts...)
	first := *origParts[0].(*syntax.Lit)
	anchor := first.Value[0]
	first.Value = first.Value[1:]
	origParts[0] = &first
	pat, err := expand.Pattern(cfg, unescapeWord(&syntax.Word{Parts: origParts}))
	if err != nil {
		return val
	}
	with := ""
	if pe.Repl.With != nil {
		if with, err = expand.Literal(cfg, unescapeWord(pe.Repl.With)); err != nil {
			return val
		}
	}
	expr, err := pattern.Regexp(pat, 0)
	if err != nil {
		return val
	}
	if anchor == '#' {
		expr = "^(?:" + expr + ")"
	} else {
		expr = "(?:" + expr + ")$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return val
	}
	loc := re.FindStringIndex(val)
	if loc == nil {
		return val
	}
	return val[:loc[0]] + with + val[loc[1]:]
}
