package shell

import (
	"errors"
	"fmt"
	"io"

	"mvdan.cc/sh/v3/syntax"
)

// wrapExpand marks an expansion error, keeping control-flow errors.
func wrapExpand(err error) error {
	switch err.(type) {
	case *exitSignal, *returnSignal, *loopSignal, *abortSignal:
		return err
	}
	if err != nil && errors.Is(err, errExpand) {
		return err
	}
	return fmt.Errorf("%w: %w", errExpand, err)
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
