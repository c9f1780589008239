package applets

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
)

// bcApplet is a calculator for bc's arithmetic: decimal numbers with
// `scale` digits after the point, + - * / % ^, comparisons, && || !,
// variables and assignment (= += -= *= /= %= ^=), sqrt() length() scale(),
// and with -l scale=20 and s() c() a() l() e(). Expressions on the command
// line files or stdin are evaluated one statement at a time; bare
// expressions print their value. Control flow (if, while, for, define) is
// not supported.
func bcApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "lqsw", long: map[string]string{"mathlib": "l", "quiet": "q"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("bc", err.Error(), "bc [-l] [FILE]...")
	}
	b := &bcState{vars: map[string]bcNum{}, out: bufio.NewWriter(p.Stdout)}
	for _, o := range opts {
		if o.name == "l" {
			b.mathlib, b.scale = true, 20
		}
	}
	var src strings.Builder
	for _, name := range files {
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("bc", name, err)
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return p.fileErr("bc", name, err)
		}
		src.Write(data)
		src.WriteByte('\n')
	}
	if len(files) == 0 {
		data, err := io.ReadAll(p.Stdin)
		if err != nil {
			p.errorf("bc", "read error: %s", ErrText(err))
			return 1
		}
		src.Write(data)
	}
	status := 0
	for _, stmt := range bcStatements(src.String()) {
		if p.cancelled() {
			return 130
		}
		quit, err := b.statement(stmt)
		if err != nil {
			b.out.Flush()
			p.errorf("bc", "%s", err)
			status = 1
		}
		if quit {
			break
		}
	}
	if err := b.out.Flush(); err != nil {
		return p.writeFailed("bc", err)
	}
	return status
}

// bcNum is a bc value: an exact rational truncated to scale digits.
type bcNum struct {
	v     *big.Rat
	scale int
}

type bcState struct {
	vars    map[string]bcNum
	scale   int
	mathlib bool
	out     *bufio.Writer
}

// bcStatements splits a program on newlines and semicolons, dropping
// comments.
func bcStatements(src string) []string {
	var out []string
	var cur strings.Builder
	inComment, inString := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inComment:
			if c == '*' && i+1 < len(src) && src[i+1] == '/' {
				inComment = false
				i++
			}
		case inString:
			cur.WriteByte(c)
			if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			cur.WriteByte(c)
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			inComment = true
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i++
		case c == '\n' || c == ';':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, cur.String())
}

// statement runs one statement; quit reports quit or halt.
func (b *bcState) statement(s string) (quit bool, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return false, nil
	case s == "quit" || s == "halt":
		return true, nil
	case strings.HasPrefix(s, "\""):
		b.out.WriteString(strings.Trim(s, "\""))
		return false, nil
	}
	for _, kw := range []string{"if", "while", "for", "define", "print", "auto", "return", "{"} {
		if s == kw || strings.HasPrefix(s, kw+" ") || strings.HasPrefix(s, kw+"(") || strings.HasPrefix(s, "{") {
			return false, fmt.Errorf("'%s' is not supported (only expressions and assignments)", kw)
		}
	}
	ps := &bcParser{b: b, src: s}
	// Assignment?
	if name, op, rest, ok := bcAssignment(s); ok {
		ps.src = rest
		v, err := ps.parse()
		if err != nil {
			return false, err
		}
		if op != "=" {
			cur := b.get(name)
			if v, err = b.binary(op[:len(op)-1], cur, v); err != nil {
				return false, err
			}
		}
		b.set(name, v)
		return false, nil
	}
	v, err := ps.parse()
	if err != nil {
		return false, err
	}
	b.out.WriteString(bcFormat(v) + "\n")
	return false, nil
}

// bcAssignment recognises NAME OP= EXPR.
func bcAssignment(s string) (name, op, rest string, ok bool) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] == '_' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", "", "", false
	}
	name = s[:i]
	t := strings.TrimLeft(s[i:], " \t")
	for _, o := range []string{"+=", "-=", "*=", "/=", "%=", "^=", "="} {
		if strings.HasPrefix(t, o) && !strings.HasPrefix(t, "==") {
			return name, o, t[len(o):], true
		}
	}
	return "", "", "", false
}

func (b *bcState) get(name string) bcNum {
	switch name {
	case "scale":
		return bcInt(int64(b.scale))
	case "ibase", "obase":
		return bcInt(10)
	}
	if v, ok := b.vars[name]; ok {
		return v
	}
	return bcInt(0)
}

func (b *bcState) set(name string, v bcNum) {
	switch name {
	case "scale":
		b.scale = int(new(big.Int).Quo(v.v.Num(), v.v.Denom()).Int64())
		if b.scale < 0 {
			b.scale = 0
		}
	case "ibase", "obase":
		// Only base 10 is supported; other bases are ignored.
	default:
		b.vars[name] = v
	}
}

func bcInt(n int64) bcNum { return bcNum{v: new(big.Rat).SetInt64(n)} }

// trunc cuts v to scale digits after the point, toward zero.
func trunc(v *big.Rat, scale int) *big.Rat {
	m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	x := new(big.Rat).Mul(v, new(big.Rat).SetInt(m))
	q := new(big.Int).Quo(x.Num(), x.Denom())
	return new(big.Rat).SetFrac(q, m)
}

// bcFormat prints a value like bc: no leading zero before the point.
func bcFormat(n bcNum) string {
	s := n.v.FloatString(n.scale)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if strings.HasPrefix(s, "0.") {
		s = s[1:]
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// binary applies an arithmetic operator with bc's scale rules.
func (b *bcState) binary(op string, x, y bcNum) (bcNum, error) {
	r := new(big.Rat)
	scale := 0
	switch op {
	case "+":
		r.Add(x.v, y.v)
		scale = max(x.scale, y.scale)
	case "-":
		r.Sub(x.v, y.v)
		scale = max(x.scale, y.scale)
	case "*":
		r.Mul(x.v, y.v)
		scale = min(x.scale+y.scale, max(b.scale, x.scale, y.scale))
	case "/":
		if y.v.Sign() == 0 {
			return bcNum{}, fmt.Errorf("divide by zero")
		}
		r.Quo(x.v, y.v)
		scale = b.scale
	case "%":
		if y.v.Sign() == 0 {
			return bcNum{}, fmt.Errorf("divide by zero")
		}
		q := trunc(new(big.Rat).Quo(x.v, y.v), b.scale)
		r.Sub(x.v, q.Mul(q, y.v))
		scale = max(b.scale+y.scale, x.scale)
	case "^":
		if !y.v.IsInt() {
			return bcNum{}, fmt.Errorf("non-zero scale in exponent")
		}
		e := y.v.Num().Int64()
		r.SetInt64(1)
		base := x.v
		neg := e < 0
		if neg {
			e = -e
		}
		for i := int64(0); i < e; i++ {
			r.Mul(r, base)
		}
		scale = min(x.scale*int(e), max(b.scale, x.scale))
		if neg {
			if r.Sign() == 0 {
				return bcNum{}, fmt.Errorf("divide by zero")
			}
			r.Inv(r)
			scale = b.scale
		}
	default:
		return bcNum{}, fmt.Errorf("unknown operator %s", op)
	}
	return bcNum{trunc(r, scale), scale}, nil
}

// bcParser evaluates one expression while parsing it.
type bcParser struct {
	b   *bcState
	src string
	i   int
}

func (ps *bcParser) skip() {
	for ps.i < len(ps.src) && (ps.src[ps.i] == ' ' || ps.src[ps.i] == '\t') {
		ps.i++
	}
}

func (ps *bcParser) accept(tok string) bool {
	ps.skip()
	if strings.HasPrefix(ps.src[ps.i:], tok) {
		ps.i += len(tok)
		return true
	}
	return false
}

func (ps *bcParser) parse() (bcNum, error) {
	v, err := ps.or()
	if err != nil {
		return v, err
	}
	ps.skip()
	if ps.i < len(ps.src) {
		return v, fmt.Errorf("syntax error at '%s'", ps.src[ps.i:])
	}
	return v, nil
}

func truth(ok bool) bcNum {
	if ok {
		return bcInt(1)
	}
	return bcInt(0)
}

func (ps *bcParser) or() (bcNum, error) {
	l, err := ps.and()
	for err == nil && ps.accept("||") {
		var r bcNum
		if r, err = ps.and(); err == nil {
			l = truth(l.v.Sign() != 0 || r.v.Sign() != 0)
		}
	}
	return l, err
}

func (ps *bcParser) and() (bcNum, error) {
	l, err := ps.not()
	for err == nil && ps.accept("&&") {
		var r bcNum
		if r, err = ps.not(); err == nil {
			l = truth(l.v.Sign() != 0 && r.v.Sign() != 0)
		}
	}
	return l, err
}

func (ps *bcParser) not() (bcNum, error) {
	ps.skip()
	if strings.HasPrefix(ps.src[ps.i:], "!") && !strings.HasPrefix(ps.src[ps.i:], "!=") {
		ps.i++
		v, err := ps.not()
		return truth(err == nil && v.v.Sign() == 0), err
	}
	return ps.rel()
}

func (ps *bcParser) rel() (bcNum, error) {
	l, err := ps.sum()
	if err != nil {
		return l, err
	}
	for _, op := range []string{"<=", ">=", "==", "!=", "<", ">"} {
		if ps.accept(op) {
			r, err := ps.sum()
			if err != nil {
				return l, err
			}
			c := l.v.Cmp(r.v)
			return truth(map[string]bool{"<=": c <= 0, ">=": c >= 0, "==": c == 0, "!=": c != 0, "<": c < 0, ">": c > 0}[op]), nil
		}
	}
	return l, nil
}

func (ps *bcParser) sum() (bcNum, error) {
	l, err := ps.product()
	for err == nil {
		var op string
		switch {
		case ps.accept("+"):
			op = "+"
		case ps.accept("-"):
			op = "-"
		default:
			return l, nil
		}
		var r bcNum
		if r, err = ps.product(); err == nil {
			l, err = ps.b.binary(op, l, r)
		}
	}
	return l, err
}

func (ps *bcParser) product() (bcNum, error) {
	l, err := ps.unary()
	for err == nil {
		var op string
		switch {
		case ps.accept("*"):
			op = "*"
		case ps.accept("/"):
			op = "/"
		case ps.accept("%"):
			op = "%"
		default:
			return l, nil
		}
		var r bcNum
		if r, err = ps.unary(); err == nil {
			l, err = ps.b.binary(op, l, r)
		}
	}
	return l, err
}

func (ps *bcParser) unary() (bcNum, error) {
	if ps.accept("-") {
		v, err := ps.unary()
		if err != nil {
			return v, err
		}
		return bcNum{new(big.Rat).Neg(v.v), v.scale}, nil
	}
	ps.accept("+")
	return ps.power()
}

func (ps *bcParser) power() (bcNum, error) {
	base, err := ps.primary()
	if err != nil || !ps.accept("^") {
		return base, err
	}
	exp, err := ps.unary() // right-associative
	if err != nil {
		return base, err
	}
	return ps.b.binary("^", base, exp)
}

func (ps *bcParser) primary() (bcNum, error) {
	ps.skip()
	if ps.i >= len(ps.src) {
		return bcNum{}, fmt.Errorf("syntax error: unexpected end of expression")
	}
	c := ps.src[ps.i]
	switch {
	case c == '(':
		ps.i++
		v, err := ps.or()
		if err != nil {
			return v, err
		}
		if !ps.accept(")") {
			return v, fmt.Errorf("syntax error: missing ')'")
		}
		return v, nil
	case c >= '0' && c <= '9' || c == '.':
		start := ps.i
		for ps.i < len(ps.src) && (ps.src[ps.i] >= '0' && ps.src[ps.i] <= '9' || ps.src[ps.i] == '.') {
			ps.i++
		}
		text := ps.src[start:ps.i]
		v, ok := new(big.Rat).SetString(text)
		if !ok {
			return bcNum{}, fmt.Errorf("bad number '%s'", text)
		}
		scale := 0
		if dot := strings.IndexByte(text, '.'); dot >= 0 {
			scale = len(text) - dot - 1
		}
		return bcNum{v, scale}, nil
	case c >= 'a' && c <= 'z' || c == '_':
		start := ps.i
		for ps.i < len(ps.src) && (ps.src[ps.i] >= 'a' && ps.src[ps.i] <= 'z' || ps.src[ps.i] == '_' || ps.src[ps.i] >= '0' && ps.src[ps.i] <= '9') {
			ps.i++
		}
		name := ps.src[start:ps.i]
		if !ps.accept("(") {
			return ps.b.get(name), nil
		}
		arg, err := ps.or()
		if err != nil {
			return arg, err
		}
		if !ps.accept(")") {
			return arg, fmt.Errorf("syntax error: missing ')'")
		}
		return ps.b.call(name, arg)
	}
	return bcNum{}, fmt.Errorf("syntax error at '%s'", ps.src[ps.i:])
}

// call applies a built-in function.
func (b *bcState) call(name string, x bcNum) (bcNum, error) {
	switch name {
	case "sqrt":
		if x.v.Sign() < 0 {
			return bcNum{}, fmt.Errorf("square root of a negative number")
		}
		scale := max(b.scale, x.scale)
		// Newton's method on integers scaled by 10^(2*scale).
		m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2*scale)), nil)
		n := new(big.Int).Mul(x.v.Num(), m)
		n.Quo(n, x.v.Denom())
		root := new(big.Int).Sqrt(n)
		return bcNum{new(big.Rat).SetFrac(root, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)), scale}, nil
	case "length":
		s := strings.TrimLeft(strings.Replace(strings.TrimPrefix(x.v.FloatString(x.scale), "-"), ".", "", 1), "0")
		if s == "" {
			s = "0"
		}
		return bcInt(int64(len(s))), nil
	case "scale":
		return bcInt(int64(x.scale)), nil
	}
	if !b.mathlib {
		return bcNum{}, fmt.Errorf("function %s() is not defined", name)
	}
	f, _ := x.v.Float64()
	var r float64
	switch name {
	case "s":
		r = math.Sin(f)
	case "c":
		r = math.Cos(f)
	case "a":
		r = math.Atan(f)
	case "l":
		if f <= 0 {
			return bcNum{}, fmt.Errorf("logarithm of a non-positive number")
		}
		r = math.Log(f)
	case "e":
		r = math.Exp(f)
	default:
		return bcNum{}, fmt.Errorf("function %s() is not defined", name)
	}
	v := new(big.Rat)
	if v.SetFloat64(r) == nil {
		return bcNum{}, fmt.Errorf("%s(): result out of range", name)
	}
	return bcNum{trunc(v, b.scale), b.scale}, nil
}
