package shell

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Arithmetic follows bash: the text of $(( )), (( )), let, array
// subscripts and for (( )) is first expanded like a double-quoted string
// ($x, ${x}, $(cmd)), then parsed and evaluated here. A bare name in the
// text is a variable whose value is itself evaluated as an expression;
// numbers may be written 0x1F, 017 or BASE#DIGITS (bases 2 to 64).

// arithError is an arithmetic error; bash reports it with the expression.
type arithError struct {
	expr, msg, token string
}

func (e *arithError) Error() string {
	if e.token != "" {
		return fmt.Sprintf("%s: %s (error token is \"%s\")", e.expr, e.msg, e.token)
	}
	return fmt.Sprintf("%s: %s", e.expr, e.msg)
}

// arithText caches the source text of parsed arithmetic nodes: loops
// evaluate the same node many times.
var arithText sync.Map // syntax.Node -> string

// nodeArithText prints an arithmetic expression back to bash source.
func nodeArithText(x syntax.ArithmExpr) string {
	if s, ok := arithText.Load(x); ok {
		return s.(string)
	}
	var b bytes.Buffer
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.ArithmExp{X: x}}}
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "0"
	}
	// The printer breaks lines where positions are missing.
	s := strings.TrimSpace(strings.ReplaceAll(b.String(), "\\\n", ""))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "$(("), "))")
	// The parser only accepts BASE#DIGITS with the # escaped (see
	// escapeArithHash); the printed text has it back.
	s = strings.ReplaceAll(s, `\#`, "#")
	arithText.Store(x, s)
	return s
}

// arithm evaluates a parsed arithmetic expression.
func (r *runner) arithm(x syntax.ArithmExpr) (int, error) {
	if x == nil {
		return 0, nil
	}
	if w, ok := x.(*syntax.Word); ok {
		if lit := w.Lit(); lit != "" && (lit[0] != '0' || lit == "0") {
			if n, err := strconv.Atoi(lit); err == nil {
				return n, nil // the common case: a plain number
			}
		}
	}
	text := nodeArithText(x)
	return r.arith(text)
}

// arith expands and evaluates arithmetic source text.
func (r *runner) arith(text string) (int, error) {
	expanded := text
	if strings.ContainsAny(text, "$`") {
		p := syntax.NewParser(syntax.Variant(syntax.LangBash))
		w, err := p.Document(strings.NewReader(text))
		if err != nil {
			return 0, wrapExpand(&arithError{expr: text, msg: "syntax error in expression"})
		}
		if expanded, err = r.document(w); err != nil {
			return 0, err
		}
	}
	ev := &arithEval{r: r, src: expanded}
	n, err := ev.run()
	if err != nil {
		return 0, wrapExpand(err)
	}
	return n, nil
}

// arithEval is one evaluation: a precedence-climbing parser that
// evaluates as it parses; skip > 0 while parsing the branch that && || ?:
// do not take.
type arithEval struct {
	r     *runner
	src   string
	pos   int
	skip  int
	depth int
}

func (e *arithEval) run() (int, error) {
	e.space()
	if e.pos == len(e.src) {
		return 0, nil
	}
	v, err := e.comma()
	if err != nil {
		return 0, err
	}
	e.space()
	if e.pos < len(e.src) {
		return 0, e.fail("syntax error in expression", e.src[e.pos:])
	}
	return v, nil
}

func (e *arithEval) fail(msg, token string) error {
	return &arithError{expr: strings.TrimSpace(e.src), msg: msg, token: token}
}

func (e *arithEval) space() {
	for e.pos < len(e.src) && strings.IndexByte(" \t\n\r", e.src[e.pos]) >= 0 {
		e.pos++
	}
}

// peek reports whether op comes next (not followed by a character that
// would make it a longer operator from notBefore).
func (e *arithEval) peek(op, notBefore string) bool {
	e.space()
	if !strings.HasPrefix(e.src[e.pos:], op) {
		return false
	}
	if rest := e.src[e.pos+len(op):]; rest != "" && notBefore != "" && strings.IndexByte(notBefore, rest[0]) >= 0 {
		return false
	}
	return true
}

func (e *arithEval) take(op, notBefore string) bool {
	if e.peek(op, notBefore) {
		e.pos += len(op)
		return true
	}
	return false
}

func (e *arithEval) comma() (int, error) {
	v, err := e.assign()
	for err == nil && e.take(",", "") {
		v, err = e.assign()
	}
	return v, err
}

// assignOps are tried longest first.
var assignOps = []string{"<<=", ">>=", "**=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "="}

func (e *arithEval) assign() (int, error) {
	start := e.pos
	if lv, ok := e.lvalue(); ok {
		for _, op := range assignOps {
			if op == "=" && (e.peek("==", "")) {
				break
			}
			if !e.take(op, "") {
				continue
			}
			rhs, err := e.assign()
			if err != nil {
				return 0, err
			}
			if e.skip > 0 {
				return 0, nil
			}
			v := rhs
			if op != "=" {
				old, err := e.get(lv)
				if err != nil {
					return 0, err
				}
				if v, err = e.binary(strings.TrimSuffix(op, "="), old, rhs); err != nil {
					return 0, err
				}
			}
			return v, e.set(lv, v)
		}
	}
	e.pos = start
	return e.ternary()
}

func (e *arithEval) ternary() (int, error) {
	cond, err := e.binaryLevel(0)
	if err != nil || !e.take("?", "") {
		return cond, err
	}
	if cond == 0 {
		e.skip++
	}
	a, err := e.assign()
	if cond == 0 {
		e.skip--
	}
	if err != nil {
		return 0, err
	}
	if !e.take(":", "") {
		return 0, e.fail("`:' expected for conditional expression", e.src[e.pos:])
	}
	if cond != 0 {
		e.skip++
	}
	b, err := e.ternary()
	if cond != 0 {
		e.skip--
	}
	if err != nil {
		return 0, err
	}
	if cond != 0 {
		return a, nil
	}
	return b, nil
}

// levels are the binary operators from loosest to tightest; each entry
// lists an operator and the characters that must not follow it.
var levels = [][][2]string{
	{{"||", ""}},
	{{"&&", ""}},
	{{"|", "|="}},
	{{"^", "="}},
	{{"&", "&="}},
	{{"==", ""}, {"!=", ""}},
	{{"<=", ""}, {">=", ""}, {"<", "<="}, {">", ">="}},
	{{"<<", "="}, {">>", "="}},
	{{"+", "+="}, {"-", "-="}},
	{{"*", "*="}, {"/", "="}, {"%", "="}},
}

func (e *arithEval) binaryLevel(level int) (int, error) {
	if level == len(levels) {
		return e.power()
	}
	left, err := e.binaryLevel(level + 1)
	if err != nil {
		return 0, err
	}
	for {
		op := ""
		for _, cand := range levels[level] {
			if e.take(cand[0], cand[1]) {
				op = cand[0]
				break
			}
		}
		if op == "" {
			return left, nil
		}
		short := (op == "&&" && left == 0) || (op == "||" && left != 0)
		if short {
			e.skip++
		}
		right, err := e.binaryLevel(level + 1)
		if short {
			e.skip--
		}
		if err != nil {
			return 0, err
		}
		switch {
		case op == "&&":
			left = boolInt(left != 0 && right != 0)
		case op == "||":
			left = boolInt(left != 0 || right != 0)
		case e.skip > 0:
			left = 0
		default:
			if left, err = e.binary(op, left, right); err != nil {
				return 0, err
			}
		}
	}
}

func (e *arithEval) power() (int, error) {
	base, err := e.unary()
	if err != nil || !e.take("**", "=") {
		return base, err
	}
	exp, err := e.power()
	if err != nil {
		return 0, err
	}
	if e.skip > 0 {
		return 0, nil
	}
	return e.binary("**", base, exp)
}

func (e *arithEval) unary() (int, error) {
	switch {
	case e.take("++", ""), e.take("--", ""):
		op := e.src[e.pos-2 : e.pos]
		lv, ok := e.lvalue()
		if !ok {
			return 0, e.fail("syntax error: operand expected", e.src[e.pos:])
		}
		v, err := e.get(lv)
		if err != nil || e.skip > 0 {
			return 0, err
		}
		if op == "++" {
			v++
		} else {
			v--
		}
		return v, e.set(lv, v)
	case e.take("!", "="):
		v, err := e.unary()
		return boolInt(v == 0), err
	case e.take("~", ""):
		v, err := e.unary()
		return ^v, err
	case e.take("+", ""):
		return e.unary()
	case e.take("-", ""):
		v, err := e.unary()
		return -v, err
	}
	return e.postfix()
}

func (e *arithEval) postfix() (int, error) {
	start := e.pos
	if lv, ok := e.lvalue(); ok {
		if e.take("++", "") || e.take("--", "") {
			op := e.src[e.pos-2 : e.pos]
			v, err := e.get(lv)
			if err != nil || e.skip > 0 {
				return 0, err
			}
			nv := v + 1
			if op == "--" {
				nv = v - 1
			}
			return v, e.set(lv, nv)
		}
		e.pos = start
	}
	return e.primary()
}

// lvar is a variable named in an expression, with its subscript.
type lvar struct {
	name  string
	index string // the subscript's text; "" for none
	has   bool
}

// lvalue reads NAME or NAME[SUBSCRIPT] at the current position.
func (e *arithEval) lvalue() (lvar, bool) {
	e.space()
	i := e.pos
	for i < len(e.src) && isNameByte(e.src[i], i > e.pos) {
		i++
	}
	if i == e.pos {
		return lvar{}, false
	}
	lv := lvar{name: e.src[e.pos:i]}
	if i < len(e.src) && e.src[i] == '[' {
		depth, j := 0, i
		for ; j < len(e.src); j++ {
			if e.src[j] == '[' {
				depth++
			} else if e.src[j] == ']' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if j == len(e.src) {
			return lvar{}, false
		}
		lv.index, lv.has = e.src[i+1:j], true
		i = j + 1
	}
	e.pos = i
	return lv, true
}

func isNameByte(c byte, notFirst bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || notFirst && c >= '0' && c <= '9'
}

func (e *arithEval) primary() (int, error) {
	e.space()
	if e.pos == len(e.src) {
		return 0, e.fail("syntax error: operand expected", "")
	}
	c := e.src[e.pos]
	switch {
	case c == '(':
		e.pos++
		v, err := e.comma()
		if err != nil {
			return 0, err
		}
		if !e.take(")", "") {
			return 0, e.fail("missing `)'", e.src[e.pos:])
		}
		return v, nil
	case c >= '0' && c <= '9':
		i := e.pos
		for i < len(e.src) && (isNameByte(e.src[i], true) || e.src[i] == '#' || e.src[i] == '@') {
			i++
		}
		tok := e.src[e.pos:i]
		e.pos = i
		n, err := parseArithNumber(tok)
		if err != nil {
			return 0, e.fail(err.Error(), tok)
		}
		return n, nil
	}
	if lv, ok := e.lvalue(); ok {
		if e.skip > 0 {
			return 0, nil
		}
		return e.get(lv)
	}
	return 0, e.fail("syntax error: operand expected", e.src[e.pos:])
}

// parseArithNumber reads 17, 0x11, 021 or BASE#DIGITS.
func parseArithNumber(tok string) (int, error) {
	base := 10
	digits := tok
	if b, d, ok := strings.Cut(tok, "#"); ok {
		n, err := strconv.Atoi(b)
		if err != nil || n < 2 || n > 64 {
			return 0, fmt.Errorf("invalid arithmetic base")
		}
		base, digits = n, d
	} else if len(tok) > 1 && tok[0] == '0' {
		if tok[1] == 'x' || tok[1] == 'X' {
			base, digits = 16, tok[2:]
		} else {
			base, digits = 8, tok[1:]
		}
	}
	if digits == "" {
		return 0, fmt.Errorf("invalid number")
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		d := digitValue(digits[i], base)
		if d < 0 || d >= base {
			return 0, fmt.Errorf("value too great for base")
		}
		n = n*base + d
	}
	return n, nil
}

// digitValue is bash's digit order: 0-9, a-z, A-Z, @, _ (letters are
// case-insensitive in bases up to 36).
func digitValue(c byte, base int) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		if base <= 36 {
			return int(c-'A') + 10
		}
		return int(c-'A') + 36
	case c == '@':
		return 62
	case c == '_':
		return 63
	}
	return -1
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (e *arithEval) binary(op string, a, b int) (int, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/", "%":
		if b == 0 {
			return 0, e.fail("division by 0", strconv.Itoa(b))
		}
		if op == "/" {
			return a / b, nil
		}
		return a % b, nil
	case "**":
		if b < 0 {
			return 0, e.fail("exponent less than 0", strconv.Itoa(b))
		}
		n := 1
		for ; b > 0; b-- {
			n *= a
		}
		return n, nil
	case "<<":
		return a << uint(b&63), nil
	case ">>":
		return a >> uint(b&63), nil
	case "&":
		return a & b, nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	case "==":
		return boolInt(a == b), nil
	case "!=":
		return boolInt(a != b), nil
	case "<":
		return boolInt(a < b), nil
	case ">":
		return boolInt(a > b), nil
	case "<=":
		return boolInt(a <= b), nil
	case ">=":
		return boolInt(a >= b), nil
	}
	return 0, e.fail("unknown operator", op)
}

// maxArithDepth bounds variables whose values name each other.
const maxArithDepth = 1024

// get reads a variable's numeric value: its text evaluated as an
// expression ("" is 0).
func (e *arithEval) get(lv lvar) (int, error) {
	if e.skip > 0 {
		return 0, nil
	}
	s, err := e.text(lv)
	if err != nil {
		return 0, err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	if e.depth >= maxArithDepth {
		return 0, e.fail("expression recursion level exceeded", s)
	}
	sub := &arithEval{r: e.r, src: s, depth: e.depth + 1}
	return sub.run()
}

// text is a variable's value as a string.
func (e *arithEval) text(lv lvar) (string, error) {
	r := e.r
	if !lv.has {
		vr := r.env.Get(lv.name)
		if !vr.IsSet() && r.opts.nounset {
			return "", expandUnset(lv.name, "unbound variable")
		}
		return varString(vr), nil
	}
	vr := r.env.Get(lv.name)
	if vr.Kind == expand.Associative {
		k, err := r.assocKeyText(lv.index)
		if err != nil {
			return "", err
		}
		return vr.Map[k], nil
	}
	i, err := r.arith(lv.index)
	if err != nil {
		return "", err
	}
	v, _ := elemGet(&vr, i)
	return v, nil
}

// set assigns a number to a variable or element.
func (e *arithEval) set(lv lvar, v int) error {
	if e.skip > 0 {
		return nil
	}
	r := e.r
	s := strconv.Itoa(v)
	if !lv.has {
		if err := r.setVar(lv.name, s); err != nil {
			return err
		}
		return nil
	}
	return r.setElem(lv.name, lv.index, s, false)
}

// assocKeyText expands the text of an associative array's key.
func (r *runner) assocKeyText(text string) (string, error) {
	if !strings.ContainsAny(text, "$`\\'\"") {
		return text, nil
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	w, err := p.Document(strings.NewReader(text))
	if err != nil {
		return text, nil
	}
	return r.document(w)
}

// escapeArithHash makes a script whose arithmetic uses BASE#DIGITS
// parseable: the parser reads # there as an operator and fails with
// "not a valid arithmetic operator: `#`"; escaped, it reads \# as part of
// a word, and nodeArithText turns it back. At most limit fixes are tried.
func escapeArithHash(script string, err error, limit int) (string, bool) {
	pe, ok := err.(syntax.ParseError)
	if !ok || !strings.Contains(pe.Text, "not a valid arithmetic operator: `#`") || limit <= 0 {
		return script, false
	}
	off := int(pe.Pos.Offset())
	if off < 0 || off >= len(script) || script[off] != '#' {
		return script, false
	}
	return script[:off] + `\` + script[off:], true
}
