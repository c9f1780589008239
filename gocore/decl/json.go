package decl

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// value is one parsed JSON value that keeps its objects' key order, which
// is the order a schema's author gave the properties in and so the order
// they are declared in.
type value struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' boolean, 'z' null
	str   string
	b     bool
	keys  []string
	vals  []*value
	items []*value
}

// get is the member key of an object (the last one when a key repeats, as
// JavaScript's JSON.parse keeps it); nil when v is no object or lacks it.
func (v *value) get(key string) *value {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == key {
			return v.vals[i]
		}
	}
	return nil
}

func (v *value) isObject() bool { return v != nil && v.kind == 'o' }

// text is the string value of v, or "" when v is no string.
func (v *value) text() string {
	if v == nil || v.kind != 's' {
		return ""
	}
	return v.str
}

// Limits of the parser: a schema nested deeper, or bigger, is refused and
// renders as unknown.
const (
	maxJSONDepth = 128
	maxJSONBytes = 1 << 20
)

var errTooDeep = errors.New("nested deeper than 128 levels")

type parser struct {
	s   string
	pos int
}

// parseJSON parses one JSON text (RFC 8259) into a value.
func parseJSON(s string) (*value, error) {
	if len(s) > maxJSONBytes {
		return nil, fmt.Errorf("%d bytes, more than the %d a schema may have", len(s), maxJSONBytes)
	}
	p := &parser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.s) {
		return nil, fmt.Errorf("unexpected text after the value at byte %d", p.pos)
	}
	return v, nil
}

func (p *parser) space() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) fail(what string) error {
	if p.pos >= len(p.s) {
		return fmt.Errorf("unexpected end of JSON (expected %s)", what)
	}
	return fmt.Errorf("unexpected %q at byte %d (expected %s)", p.s[p.pos], p.pos, what)
}

func (p *parser) value(depth int) (*value, error) {
	if depth > maxJSONDepth {
		return nil, errTooDeep
	}
	p.space()
	if p.pos >= len(p.s) {
		return nil, p.fail("a value")
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		p.pos++
		v := &value{kind: 'o'}
		p.space()
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			return v, nil
		}
		for {
			p.space()
			if p.pos >= len(p.s) || p.s[p.pos] != '"' {
				return nil, p.fail("a member name")
			}
			k, err := p.string()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.pos >= len(p.s) || p.s[p.pos] != ':' {
				return nil, p.fail("':'")
			}
			p.pos++
			m, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, m)
			p.space()
			if p.pos < len(p.s) && p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == '}' {
				p.pos++
				return v, nil
			}
			return nil, p.fail("',' or '}'")
		}
	case c == '[':
		p.pos++
		v := &value{kind: 'a'}
		p.space()
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
			return v, nil
		}
		for {
			m, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, m)
			p.space()
			if p.pos < len(p.s) && p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == ']' {
				p.pos++
				return v, nil
			}
			return nil, p.fail("',' or ']'")
		}
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &value{kind: 's', str: s}, nil
	case c == 't' && len(p.s)-p.pos >= 4 && p.s[p.pos:p.pos+4] == "true":
		p.pos += 4
		return &value{kind: 'b', b: true}, nil
	case c == 'f' && len(p.s)-p.pos >= 5 && p.s[p.pos:p.pos+5] == "false":
		p.pos += 5
		return &value{kind: 'b'}, nil
	case c == 'n' && len(p.s)-p.pos >= 4 && p.s[p.pos:p.pos+4] == "null":
		p.pos += 4
		return &value{kind: 'z'}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.fail("a value")
}

func (p *parser) number() (*value, error) {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.s) && p.s[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail("a digit")
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("a digit")
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("a digit")
		}
	}
	return &value{kind: 'n', str: p.s[start:p.pos]}, nil
}

// string reads a JSON string at p.pos (its opening quote). Invalid UTF-8
// and lone surrogates become U+FFFD, so every string is valid UTF-8.
func (p *parser) string() (string, error) {
	p.pos++
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '"' {
			s := p.s[start:p.pos]
			p.pos++
			if utf8.ValidString(s) {
				return s, nil
			}
			return string([]rune(s)), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	buf := []byte(p.s[start:p.pos])
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			s := string(buf)
			if !utf8.ValidString(s) {
				s = string([]rune(s))
			}
			return s, nil
		case c < 0x20:
			return "", p.fail("no control character in a string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.s) {
			return "", p.fail("an escape")
		}
		e := p.s[p.pos]
		p.pos++
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
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("four hex digits")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					if lo, ok := p.hex4(); ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
						r2 = utf16.DecodeRune(r, lo)
					} else {
						p.pos = save
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			p.pos--
			return "", p.fail("a valid escape")
		}
	}
	return "", p.fail("'\"'")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.pos < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}
