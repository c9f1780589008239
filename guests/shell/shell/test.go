package shell

import (
	"fmt"
	"strconv"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
)

// testExpr evaluates a [[ ]] expression. Operands are not split or
// globbed; the right side of == and != is a pattern, of =~ a regular
// expression (RE2 syntax) whose groups land in BASH_REMATCH.
func (r *runner) testExpr(x syntax.TestExpr) (bool, error) {
	switch x := x.(type) {
	case *syntax.Word:
		s, err := r.literal(x)
		return s != "", err
	case *syntax.ParenTest:
		return r.testExpr(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
			ok, err := r.testExpr(x.X)
			return !ok, err
		}
		w, ok := x.X.(*syntax.Word)
		if !ok {
			return false, fmt.Errorf("%s: unexpected expression", x.Op)
		}
		s, err := r.literal(w)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsVarSet:
			return r.varIsSet(s), nil
		case syntax.TsOptSet:
			if p := r.opts.named(s); p != nil {
				return *p, nil
			}
			return false, nil
		case syntax.TsRefVar:
			return false, nil
		}
		return applets.UnaryTest(r.proc(nil), x.Op.String(), s)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.AndTest, syntax.OrTest:
			left, err := r.testExpr(x.X)
			if err != nil {
				return false, err
			}
			if left == (x.Op == syntax.OrTest) {
				return left, nil
			}
			return r.testExpr(x.Y)
		}
		lw, lok := x.X.(*syntax.Word)
		rw, rok := x.Y.(*syntax.Word)
		if !lok || !rok {
			return false, fmt.Errorf("%s: unexpected expression", x.Op)
		}
		left, err := r.literal(lw)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
			ok, err := r.matchPattern(rw, left)
			if err != nil {
				return false, wrapExpand(err)
			}
			return ok == (x.Op != syntax.TsNoMatch), nil
		case syntax.TsReMatch:
			expr, err := r.regexWord(rw)
			if err != nil {
				return false, err
			}
			re, err := compileERE(expr, r.opts.nocasematch)
			if err != nil {
				return false, err
			}
			m := re.FindStringSubmatch(left)
			if m == nil {
				_ = r.env.Set("BASH_REMATCH", expand.Variable{Set: true, Kind: expand.Indexed, List: []string{}})
				return false, nil
			}
			_ = r.env.Set("BASH_REMATCH", expand.Variable{Set: true, Kind: expand.Indexed, List: m})
			return true, nil
		}
		right, err := r.literal(rw)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsGtr, syntax.TsLeq, syntax.TsGeq:
			// In [[ ]] the operands of -eq and friends are arithmetic.
			a, err := r.arith(left)
			if err != nil {
				return false, err
			}
			b, err := r.arith(right)
			if err != nil {
				return false, err
			}
			switch x.Op {
			case syntax.TsEql:
				return a == b, nil
			case syntax.TsNeq:
				return a != b, nil
			case syntax.TsLss:
				return a < b, nil
			case syntax.TsGtr:
				return a > b, nil
			case syntax.TsLeq:
				return a <= b, nil
			default:
				return a >= b, nil
			}
		}
		return applets.BinaryTest(r.proc(nil), x.Op.String(), left, right)
	}
	return false, fmt.Errorf("unsupported test expression")
}

// varIsSet is -v NAME: a variable, an array element NAME[I] or a
// positional parameter that is set.
func (r *runner) varIsSet(ref string) bool {
	name, index, err := parseRef(ref)
	if err != nil {
		return false
	}
	if isDigitString(name) {
		n, _ := strconv.Atoi(name)
		return n <= len(r.params)
	}
	e := r.newExpander(false)
	v, err := e.lookupText(name, index)
	if err != nil {
		return false
	}
	if v.isArr {
		return len(v.list) > 0
	}
	return v.set
}

// builtinTest is test and [: bash builds them in, so -v sees the
// shell's variables; everything else is the applet's.
func builtinTest(r *runner, args []string) (int, error) {
	a, ok := r.reg.Lookup(args[0])
	if !ok {
		r.errorf(r.line, "%s: command not found", args[0])
		return statusNotFound, nil
	}
	var fixed []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-v" && i+1 < len(args) && i != 2 {
			if _, _, err := parseRef(args[i+1]); err == nil {
				// -v NAME becomes -n with a non-empty word if set.
				set := ""
				if r.varIsSet(args[i+1]) {
					set = "1"
				}
				if fixed == nil {
					fixed = append([]string(nil), args[:i]...)
				}
				fixed = append(fixed, "-n", set)
				i++
				continue
			}
		}
		if fixed != nil {
			fixed = append(fixed, args[i])
		}
	}
	if fixed != nil {
		args = fixed
	}
	return r.runApplet(a, args, nil), nil
}
