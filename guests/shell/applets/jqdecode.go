package applets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jqDecoder reads a stream of JSON values into the values gojq works on:
// map[string]any, []any, string, bool, nil, int for integers that fit
// (gojq would otherwise re-parse a json.Number at every comparison), and
// json.Number for other numbers, so that they print as written.
//
// It parses from a byte buffer rather than through encoding/json's
// reflection: for jq over megabytes of JSON that decoding was a quarter of
// the run. Input is read in growing chunks; a value cut by the end of the
// buffer is parsed again once more has been read, so a stream of values
// (yes '{}' | jq .) is handled as it arrives.
type jqDecoder struct {
	r    io.Reader
	buf  []byte
	pos  int
	eof  bool
	rerr error
	// intern is a direct-mapped cache of short strings (object keys
	// repeat in every object): found by a cheap hash of the bytes and
	// checked by comparing them, which is cheaper in WebAssembly than a
	// map lookup (no hardware string hash there).
	intern [512]string
}

// jqMaxDepth bounds nesting as encoding/json does.
const jqMaxDepth = 10000

// smallInts holds the integers 0..4095 already boxed: JSON data is full of
// small numbers (status codes, counts), and boxing each costs an
// allocation.
var smallInts = func() (a [4096]any) {
	for i := range a {
		a[i] = i
	}
	return a
}()

// errJSONShort marks a value cut by the end of the buffer.
var errJSONShort = errors.New("unexpected end of JSON input")

func newJQDecoder(r io.Reader) *jqDecoder {
	d := &jqDecoder{r: r}
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 && st.Size() < 1<<30 {
			// A file is read whole, so a large value is parsed once.
			d.buf = make([]byte, 0, st.Size()+1)
		}
	}
	return d
}

// fill reads more input, keeping the bytes from pos on.
func (d *jqDecoder) fill() {
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:])
		d.buf = d.buf[:n]
		d.pos = 0
	}
	if cap(d.buf)-len(d.buf) < 32<<10 {
		grown := make([]byte, len(d.buf), max(2*cap(d.buf), 64<<10))
		copy(grown, d.buf)
		d.buf = grown
	}
	for {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err != nil {
			d.eof = true
			if err != io.EOF {
				d.rerr = err
			}
			return
		}
		if n > 0 && (len(d.buf) == cap(d.buf) || n < 32<<10) {
			return
		}
	}
}

// Decode returns the next value, or io.EOF after the last.
func (d *jqDecoder) Decode() (any, error) {
	for {
		for d.pos < len(d.buf) && isJSONSpace(d.buf[d.pos]) {
			d.pos++
		}
		if d.pos == len(d.buf) {
			if d.eof {
				if d.rerr != nil {
					return nil, d.rerr
				}
				return nil, io.EOF
			}
			d.fill()
			continue
		}
		start := d.pos
		v, end, err := d.value(start, 0)
		if err == errJSONShort && !d.eof {
			d.pos = start
			d.fill()
			continue
		}
		if err == nil && end == len(d.buf) && !d.eof && isNumberStart(d.buf[start]) {
			// A number at the end of the buffer may go on.
			d.pos = start
			d.fill()
			continue
		}
		if err != nil {
			return nil, err
		}
		d.pos = end
		return v, nil
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// value parses the value at i and returns it with the index after it.
func (d *jqDecoder) value(i, depth int) (any, int, error) {
	b := d.buf
	if i >= len(b) {
		return nil, i, errJSONShort
	}
	switch c := b[i]; {
	case c == '{':
		return d.object(i, depth+1)
	case c == '[':
		return d.array(i, depth+1)
	case c == '"':
		return d.str(i)
	case c == 't':
		return d.literal(i, "true", true)
	case c == 'f':
		return d.literal(i, "false", false)
	case c == 'n':
		return d.literal(i, "null", nil)
	case isNumberStart(c):
		return d.number(i)
	default:
		return nil, i, fmt.Errorf("invalid character %s looking for beginning of value", quoteChar(c))
	}
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func (d *jqDecoder) literal(i int, word string, v any) (any, int, error) {
	b := d.buf
	for k := 0; k < len(word); k++ {
		if i+k >= len(b) {
			return nil, i, errJSONShort
		}
		if b[i+k] != word[k] {
			return nil, i, fmt.Errorf("invalid character %s in literal %s (expecting %s)", quoteChar(b[i+k]), word, quoteChar(word[k]))
		}
	}
	return v, i + len(word), nil
}

func (d *jqDecoder) skipSpace(i int) int {
	b := d.buf
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

func (d *jqDecoder) object(i, depth int) (any, int, error) {
	if depth > jqMaxDepth {
		return nil, i, fmt.Errorf("exceeded max depth")
	}
	b := d.buf
	m := map[string]any{}
	i = d.skipSpace(i + 1)
	if i >= len(b) {
		return nil, i, errJSONShort
	}
	if b[i] == '}' {
		return m, i + 1, nil
	}
	for {
		if i >= len(b) {
			return nil, i, errJSONShort
		}
		if b[i] != '"' {
			return nil, i, fmt.Errorf("invalid character %s looking for beginning of object key string", quoteChar(b[i]))
		}
		k, next, err := d.str(i)
		if err != nil {
			return nil, next, err
		}
		i = d.skipSpace(next)
		if i >= len(b) {
			return nil, i, errJSONShort
		}
		if b[i] != ':' {
			return nil, i, fmt.Errorf("invalid character %s after object key", quoteChar(b[i]))
		}
		i = d.skipSpace(i + 1)
		v, next, err := d.value(i, depth)
		if err != nil {
			return nil, next, err
		}
		m[k.(string)] = v
		i = d.skipSpace(next)
		if i >= len(b) {
			return nil, i, errJSONShort
		}
		switch b[i] {
		case ',':
			i = d.skipSpace(i + 1)
		case '}':
			return m, i + 1, nil
		default:
			return nil, i, fmt.Errorf("invalid character %s after object key:value pair", quoteChar(b[i]))
		}
	}
}

func (d *jqDecoder) array(i, depth int) (any, int, error) {
	if depth > jqMaxDepth {
		return nil, i, fmt.Errorf("exceeded max depth")
	}
	b := d.buf
	a := []any{}
	i = d.skipSpace(i + 1)
	if i >= len(b) {
		return nil, i, errJSONShort
	}
	if b[i] == ']' {
		return a, i + 1, nil
	}
	for {
		v, next, err := d.value(i, depth)
		if err != nil {
			return nil, next, err
		}
		a = append(a, v)
		i = d.skipSpace(next)
		if i >= len(b) {
			return nil, i, errJSONShort
		}
		switch b[i] {
		case ',':
			i = d.skipSpace(i + 1)
		case ']':
			return a, i + 1, nil
		default:
			return nil, i, fmt.Errorf("invalid character %s after array element", quoteChar(b[i]))
		}
	}
}

// str parses a string; short plain ones are interned (keys repeat).
func (d *jqDecoder) str(i int) (any, int, error) {
	b := d.buf
	start := i + 1
	plain := true
	j := start
	for ; j < len(b); j++ {
		c := b[j]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		if j >= len(b) {
			return nil, j, errJSONShort
		}
		raw := b[start:j]
		if len(raw) == 0 {
			return "", j + 1, nil
		}
		if len(raw) <= 32 {
			h := uint(len(raw))*31 + uint(raw[0])*7 + uint(raw[len(raw)-1])*131 + uint(raw[len(raw)/2])*17
			slot := &d.intern[h%uint(len(d.intern))]
			if *slot == string(raw) {
				return *slot, j + 1, nil
			}
			s := string(raw)
			*slot = s
			return s, j + 1, nil
		}
		return string(raw), j + 1, nil
	}
	return d.strSlow(i)
}

// strSlow parses a string with escapes, control characters or non-ASCII
// text; invalid UTF-8 becomes U+FFFD, as encoding/json does.
func (d *jqDecoder) strSlow(i int) (any, int, error) {
	b := d.buf
	out := make([]byte, 0, 32)
	j := i + 1
	for {
		if j >= len(b) {
			return nil, j, errJSONShort
		}
		c := b[j]
		switch {
		case c == '"':
			return string(out), j + 1, nil
		case c < 0x20:
			return nil, j, fmt.Errorf("invalid character %s in string literal", quoteChar(c))
		case c == '\\':
			if j+1 >= len(b) {
				return nil, j, errJSONShort
			}
			e := b[j+1]
			j += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, next, err := d.hex4(j)
				if err != nil {
					return nil, next, err
				}
				j = next
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
						if v, next2, err := d.hex4(j + 2); err == nil {
							r2 = v
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								out = utf8.AppendRune(out, dec)
								j = next2
								continue
							}
						} else if err == errJSONShort {
							return nil, j, err
						}
					} else if j >= len(b) || (b[j] == '\\' && j+1 >= len(b)) {
						return nil, j, errJSONShort
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, j, fmt.Errorf("invalid character %s in string escape code", quoteChar(e))
			}
		case c < 0x80:
			out = append(out, c)
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(b[j:]) && !d.eof {
					return nil, j, errJSONShort
				}
				out = utf8.AppendRune(out, utf8.RuneError)
				j++
				continue
			}
			out = append(out, b[j:j+size]...)
			j += size
		}
	}
}

func (d *jqDecoder) hex4(j int) (rune, int, error) {
	b := d.buf
	if j+4 > len(b) {
		return 0, j, errJSONShort
	}
	var r rune
	for k := 0; k < 4; k++ {
		c := b[j+k]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, j + k, fmt.Errorf("invalid character %s in \\u hexadecimal character escape", quoteChar(c))
		}
		r = r<<4 | rune(v)
	}
	return r, j + 4, nil
}

// number parses a JSON number: an int when it is an integer that fits
// (and not -0), else a json.Number with its text.
func (d *jqDecoder) number(i int) (any, int, error) {
	b := d.buf
	j := i
	if b[j] == '-' {
		j++
	}
	digits := j
	if j >= len(b) {
		return nil, j, errJSONShort
	}
	switch {
	case b[j] == '0':
		j++
	case b[j] >= '1' && b[j] <= '9':
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	default:
		return nil, j, fmt.Errorf("invalid character %s in numeric literal", quoteChar(b[j]))
	}
	integer := true
	if j < len(b) && b[j] == '.' {
		integer = false
		j++
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			if j >= len(b) {
				return nil, j, errJSONShort
			}
			return nil, j, fmt.Errorf("invalid character %s after decimal point in numeric literal", quoteChar(b[j]))
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		integer = false
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			if j >= len(b) {
				return nil, j, errJSONShort
			}
			return nil, j, fmt.Errorf("invalid character %s in exponent of numeric literal", quoteChar(b[j]))
		}
	}
	text := b[i:j]
	if integer && j-digits <= 18 && !(len(text) == 2 && text[0] == '-' && text[1] == '0') {
		n := 0
		for _, c := range b[digits:j] {
			n = n*10 + int(c-'0')
		}
		if b[i] == '-' {
			n = -n
		}
		if n >= 0 && n < len(smallInts) {
			return smallInts[n], j, nil
		}
		return n, j, nil
	}
	return json.Number(string(text)), j, nil
}
