package applets

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// exprApplet evaluates expr(1) expressions: | & = != < <= > >= + - * / %,
// STRING : REGEX, match, substr, index, length, and parentheses. Exit status
// 0 when the result is neither empty nor 0, 1 otherwise, 2 on error.
func exprApplet(p *Proc, args []string) int {
	e := &exprEval{args: args[1:]}
	v, err := e.or()
	if err == nil && e.i < len(e.args) {
		err = fmt.Errorf("syntax error: unexpected argument '%s'", e.args[e.i])
	}
	if err != nil {
		p.errorf("expr", "%s", err)
		return 2
	}
	fmt.Fprintln(p.Stdout, v)
	if v == "" || v == "0" {
		return 1
	}
	return 0
}

type exprEval struct {
	args []string
	i    int
}

func (e *exprEval) peek() string {
	if e.i < len(e.args) {
		return e.args[e.i]
	}
	return ""
}

func (e *exprEval) or() (string, error) {
	l, err := e.and()
	for err == nil && e.peek() == "|" {
		e.i++
		var r string
		if r, err = e.and(); err == nil && (l == "" || l == "0") {
			l = r
		}
	}
	return l, err
}

func (e *exprEval) and() (string, error) {
	l, err := e.cmp()
	for err == nil && e.peek() == "&" {
		e.i++
		var r string
		if r, err = e.cmp(); err == nil && (l == "" || l == "0" || r == "" || r == "0") {
			l = "0"
		}
	}
	return l, err
}

func (e *exprEval) cmp() (string, error) {
	l, err := e.sum()
	for err == nil {
		op := e.peek()
		if op != "=" && op != "!=" && op != "<" && op != "<=" && op != ">" && op != ">=" {
			return l, nil
		}
		e.i++
		var r string
		if r, err = e.sum(); err != nil {
			return "", err
		}
		var c int
		a, aerr := strconv.ParseInt(l, 10, 64)
		b, berr := strconv.ParseInt(r, 10, 64)
		if aerr == nil && berr == nil {
			c = map[bool]int{true: -1, false: 1}[a < b]
			if a == b {
				c = 0
			}
		} else {
			c = strings.Compare(l, r)
		}
		ok := map[string]bool{"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
		l = map[bool]string{true: "1", false: "0"}[ok]
	}
	return l, err
}

func (e *exprEval) sum() (string, error) {
	l, err := e.product()
	for err == nil && (e.peek() == "+" || e.peek() == "-") {
		op := e.args[e.i]
		e.i++
		var r string
		if r, err = e.product(); err != nil {
			return "", err
		}
		l, err = exprArith(l, op, r)
	}
	return l, err
}

func (e *exprEval) product() (string, error) {
	l, err := e.match()
	for err == nil && (e.peek() == "*" || e.peek() == "/" || e.peek() == "%") {
		op := e.args[e.i]
		e.i++
		var r string
		if r, err = e.match(); err != nil {
			return "", err
		}
		l, err = exprArith(l, op, r)
	}
	return l, err
}

func (e *exprEval) match() (string, error) {
	l, err := e.primary()
	for err == nil && e.peek() == ":" {
		e.i++
		var r string
		if r, err = e.primary(); err != nil {
			return "", err
		}
		l, err = exprMatch(l, r)
	}
	return l, err
}

func (e *exprEval) primary() (string, error) {
	if e.i >= len(e.args) {
		return "", fmt.Errorf("syntax error: missing argument")
	}
	a := e.args[e.i]
	e.i++
	need := func(n int) ([]string, error) {
		var vals []string
		for k := 0; k < n; k++ {
			v, err := e.primary()
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return vals, nil
	}
	switch a {
	case "(":
		v, err := e.or()
		if err != nil {
			return "", err
		}
		if e.peek() != ")" {
			return "", fmt.Errorf("syntax error: expecting ')'")
		}
		e.i++
		return v, nil
	case "length":
		v, err := need(1)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(len([]rune(v[0]))), nil
	case "match":
		v, err := need(2)
		if err != nil {
			return "", err
		}
		return exprMatch(v[0], v[1])
	case "index":
		v, err := need(2)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(strings.IndexAny(v[0], v[1]) + 1), nil
	case "substr":
		v, err := need(3)
		if err != nil {
			return "", err
		}
		rs := []rune(v[0])
		pos, perr := strconv.Atoi(v[1])
		n, nerr := strconv.Atoi(v[2])
		if perr != nil || nerr != nil || pos < 1 || n < 0 || pos > len(rs) {
			return "", nil
		}
		return string(rs[pos-1 : min(len(rs), pos-1+n)]), nil
	case "+":
		return e.primary()
	}
	return a, nil
}

func exprArith(l, op, r string) (string, error) {
	a, err := strconv.ParseInt(l, 10, 64)
	if err != nil {
		return "", fmt.Errorf("non-integer argument")
	}
	b, err := strconv.ParseInt(r, 10, 64)
	if err != nil {
		return "", fmt.Errorf("non-integer argument")
	}
	switch op {
	case "+":
		return strconv.FormatInt(a+b, 10), nil
	case "-":
		return strconv.FormatInt(a-b, 10), nil
	case "*":
		return strconv.FormatInt(a*b, 10), nil
	}
	if b == 0 {
		return "", fmt.Errorf("division by zero")
	}
	if op == "/" {
		return strconv.FormatInt(a/b, 10), nil
	}
	return strconv.FormatInt(a%b, 10), nil
}

// exprMatch anchors a BRE at the start: the group's text, or the length.
func exprMatch(s, pat string) (string, error) {
	re, err := compileRE(pat, basicRE, false)
	if err != nil {
		return "", err
	}
	re = regexp.MustCompile("^(?:" + re.String() + ")")
	m := re.FindStringSubmatch(s)
	if re.NumSubexp() > 0 {
		if m == nil {
			return "", nil
		}
		return m[1], nil
	}
	if m == nil {
		return "0", nil
	}
	return strconv.Itoa(len([]rune(m[0]))), nil
}
