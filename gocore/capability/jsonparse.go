package capability

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxIntDigits is the longest integer literal ParseJSON accepts. It is
// CPython's default int_max_str_digits: Python's json.loads refuses longer
// ints too, and the limit keeps decimal-to-binary conversion cheap.
const MaxIntDigits = 4300

// SyntaxError is a JSON text ParseJSON could not decode.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

// ParseJSON decodes one JSON value the way Python's json.loads does: ints
// of any size stay ints (*big.Int), numbers with a fraction or exponent are
// floats, NaN/Infinity/-Infinity are accepted, objects keep key order and a
// repeated key keeps its first position with its last value. A lone UTF-16
// surrogate escape is kept as its 3-byte WTF-8 form, like the lone
// surrogate Python would keep in the str. Raw bytes that are not UTF-8
// (Python never sends them) are replaced by U+FFFD.
//
// The parser never recurses: nesting depth is limited only by memory.
func ParseJSON(data []byte) (any, error) {
	p := parser{data: data}
	v, err := p.parse()
	if err != nil {
		return nil, err
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
}

// frame is one open container on the parser's stack.
type frame struct {
	list   List
	obj    *Object
	key    string
	isObj  bool
	hasKey bool
}

func (p *parser) fail(msg string) error {
	return &SyntaxError{Offset: p.pos, Msg: msg}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) parse() (any, error) {
	var stack []*frame
	var result any
	haveResult := false

	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input")
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		// Inside an object, a key must come first.
		if top != nil && top.isObj && !top.hasKey {
			if p.data[p.pos] == '}' && top.obj.Len() == 0 {
				p.pos++
				v := any(top.obj)
				stack = stack[:len(stack)-1]
				if done, err := p.attach(&stack, v, &result, &haveResult); err != nil || done {
					return result, err
				}
				continue
			}
			if p.data[p.pos] != '"' {
				return nil, p.fail("expected string key")
			}
			k, err := p.parseString()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			if p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return nil, p.fail("expected ':'")
			}
			p.pos++
			top.key, top.hasKey = k, true
			continue
		}
		// A value.
		c := p.data[p.pos]
		var v any
		switch {
		case c == '{':
			p.pos++
			stack = append(stack, &frame{obj: NewObject(), isObj: true})
			continue
		case c == '[':
			p.pos++
			p.skipSpace()
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				p.pos++
				v = List{}
				break
			}
			stack = append(stack, &frame{list: List{}})
			continue
		case c == '"':
			s, err := p.parseString()
			if err != nil {
				return nil, err
			}
			v = s
		case c == '-' || (c >= '0' && c <= '9'):
			n, err := p.parseNumber()
			if err != nil {
				return nil, err
			}
			v = n
		default:
			lit, ok := p.parseLiteral()
			if !ok {
				return nil, p.fail(fmt.Sprintf("unexpected character %q", c))
			}
			v = lit
		}
		if done, err := p.attach(&stack, v, &result, &haveResult); err != nil || done {
			return result, err
		}
	}
}

// attach stores a finished value in the container on top of the stack (or
// as the result), then consumes separators and closing brackets. done is
// true when the whole document has been parsed.
func (p *parser) attach(stack *[]*frame, v any, result *any, haveResult *bool) (done bool, err error) {
	for {
		if len(*stack) == 0 {
			*result, *haveResult = v, true
			p.skipSpace()
			if p.pos != len(p.data) {
				return true, p.fail("extra data after JSON value")
			}
			return true, nil
		}
		top := (*stack)[len(*stack)-1]
		if top.isObj {
			top.obj.Set(top.key, v)
			top.hasKey = false
		} else {
			top.list = append(top.list, v)
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return true, p.fail("unexpected end of input")
		}
		c := p.data[p.pos]
		if c == ',' {
			p.pos++
			return false, nil
		}
		if top.isObj && c == '}' {
			p.pos++
			v = top.obj
		} else if !top.isObj && c == ']' {
			p.pos++
			v = top.list
		} else {
			return true, p.fail("expected ',' or closing bracket")
		}
		*stack = (*stack)[:len(*stack)-1]
	}
}

func (p *parser) parseLiteral() (any, bool) {
	rest := p.data[p.pos:]
	for _, lit := range []struct {
		text string
		v    any
	}{
		{"true", true}, {"false", false}, {"null", nil},
		{"NaN", math.NaN()}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)},
	} {
		if len(rest) >= len(lit.text) && string(rest[:len(lit.text)]) == lit.text {
			p.pos += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseNumber follows Python's json number grammar:
// -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?
func (p *parser) parseNumber() (any, error) {
	start := p.pos
	d := p.data
	if d[p.pos] == '-' {
		if string(d[p.pos:min(len(d), p.pos+9)]) == "-Infinity" {
			p.pos += 9
			return math.Inf(-1), nil
		}
		p.pos++
	}
	if p.pos >= len(d) || !isDigit(d[p.pos]) {
		return nil, p.fail("invalid number")
	}
	if d[p.pos] == '0' {
		p.pos++
	} else {
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	}
	isFloat := false
	if p.pos+1 < len(d) && d[p.pos] == '.' && isDigit(d[p.pos+1]) {
		isFloat = true
		p.pos++
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		q := p.pos + 1
		if q < len(d) && (d[q] == '+' || d[q] == '-') {
			q++
		}
		if q < len(d) && isDigit(d[q]) {
			isFloat = true
			for q < len(d) && isDigit(d[q]) {
				q++
			}
			p.pos = q
		}
	}
	text := string(d[start:p.pos])
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			var ne *strconv.NumError
			// Out of range: Python's float() gives ±inf or 0.0, as does
			// ParseFloat's value.
			if !(errors.As(err, &ne) && ne.Err == strconv.ErrRange) {
				return nil, p.fail("invalid number")
			}
		}
		return f, nil
	}
	digits := len(text)
	if text[0] == '-' {
		digits--
	}
	if digits > MaxIntDigits {
		return nil, &SyntaxError{Offset: start, Msg: fmt.Sprintf("integer literal has %d digits (limit %d)", digits, MaxIntDigits)}
	}
	n, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, p.fail("invalid number")
	}
	return n, nil
}

func hexVal(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

func (p *parser) hex4(at int) (rune, bool) {
	if at+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		h, ok := hexVal(p.data[at+i])
		if !ok {
			return 0, false
		}
		r = r<<4 | h
	}
	return r, true
}

// appendWTF8 appends r; a surrogate (which UTF-8 cannot hold) is written
// as its generalized 3-byte form so it stays distinct and in code-point
// order.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

func (p *parser) parseString() (string, error) {
	p.pos++ // opening quote
	d := p.data
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(d) {
		c := d[p.pos]
		if c == '"' {
			s := string(d[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("invalid control character in string")
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRune(d[p.pos:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			p.pos += size
			continue
		}
		p.pos++
	}
	buf := append([]byte(nil), d[start:p.pos]...)
	for p.pos < len(d) {
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("invalid control character in string")
		case c >= 0x80:
			// Raw bytes that are not UTF-8 become U+FFFD, so every string
			// the parser returns is valid (apart from escaped surrogates).
			r, size := utf8.DecodeRune(d[p.pos:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, d[p.pos:p.pos+size]...)
			}
			p.pos += size
			continue
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(d) {
			return "", p.fail("unterminated string")
		}
		e := d[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4(p.pos)
			if !ok {
				return "", p.fail("invalid \\u escape")
			}
			p.pos += 4
			if utf16.IsSurrogate(r) && r < 0xDC00 && p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
				if r2, ok := p.hex4(p.pos + 2); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
					p.pos += 6
					r = utf16.DecodeRune(r, r2)
				}
			}
			buf = appendWTF8(buf, r)
		default:
			return "", p.fail("invalid escape")
		}
	}
	return "", p.fail("unterminated string")
}
