package capability

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr is Python's repr() of a model value: 5000, 5000.0, 1e+16, 'GBP',
// "it's", True, None, ['a', 1], {'k': 1}. Nested values are written with an
// explicit stack, so any depth is safe.
func Repr(v any) string {
	var b strings.Builder
	writeValue(&b, v, reprStyle)
	return b.String()
}

// ReprFloat is Python's repr() of a float.
func ReprFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// Shortest round-trip digits, then Python's layout: scientific when
	// the decimal exponent is < -4 or >= 16, else positional with ".0"
	// for integral values.
	s := strconv.FormatFloat(f, 'e', -1, 64) // "-d.ddde±XX"
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	ePos := strings.IndexByte(s, 'e')
	mant, expText := s[:ePos], s[ePos+1:]
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		out = m + "e" + sign + es
	} else if exp >= 0 {
		if len(digits) <= exp+1 {
			out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		} else {
			out = digits[:exp+1] + "." + digits[exp+1:]
		}
	} else {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	}
	if neg {
		out = "-" + out
	}
	return out
}

// ReprString is Python's repr() of a str.
func ReprString(s string) string {
	var b strings.Builder
	writeReprString(&b, s)
	return b.String()
}

func writeReprString(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := decodeWTF8(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// Not UTF-8 at all (cannot come from Python); show the byte.
			writeEscape(b, 'x', rune(s[i]), 2)
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			writeEscape(b, 'x', r, 2)
		case r < 0x7f:
			b.WriteByte(byte(r))
		case isPyPrintable(r):
			b.WriteString(s[i : i+size])
		case r < 0x100:
			writeEscape(b, 'x', r, 2)
		case r < 0x10000:
			writeEscape(b, 'u', r, 4)
		default:
			writeEscape(b, 'U', r, 8)
		}
		i += size
	}
	b.WriteByte(quote)
}

// isPyPrintable approximates str.isprintable for one character: letters,
// marks, numbers, punctuation and symbols (Go's unicode.IsPrint minus the
// ASCII space, which callers handle). Surrogates are never printable.
func isPyPrintable(r rune) bool {
	if r >= 0xD800 && r <= 0xDFFF {
		return false
	}
	return unicode.IsPrint(r)
}

func writeEscape(b *strings.Builder, kind byte, r rune, width int) {
	h := strconv.FormatInt(int64(r), 16)
	b.WriteByte('\\')
	b.WriteByte(kind)
	b.WriteString(strings.Repeat("0", width-len(h)))
	b.WriteString(h)
}

// decodeWTF8 decodes one character, accepting the 3-byte encoded
// surrogates the parser produces for lone \uD800-style escapes.
func decodeWTF8(s string) (rune, int) {
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2]&0xC0 == 0x80 {
		return rune(0xD000) | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s)
}

// style selects between Python repr and JSON output for writeValue.
type style int

const (
	reprStyle style = iota
	jsonStyle
)

// writeValue writes v in the given style without recursion.
func writeValue(b *strings.Builder, v any, st style) {
	// Each stack item is either a value still to write or a literal piece
	// of punctuation.
	type item struct {
		v     any
		lit   string
		isLit bool
	}
	stack := []item{{v: v}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.isLit {
			b.WriteString(it.lit)
			continue
		}
		const sep = ", " // Python's repr and json.dumps agree
		switch x := mustNormalize(it.v).(type) {
		case nil:
			if st == jsonStyle {
				b.WriteString("null")
			} else {
				b.WriteString("None")
			}
		case bool:
			switch {
			case st == jsonStyle && x:
				b.WriteString("true")
			case st == jsonStyle:
				b.WriteString("false")
			case x:
				b.WriteString("True")
			default:
				b.WriteString("False")
			}
		case *big.Int:
			b.WriteString(x.String())
		case float64:
			b.WriteString(jsonOrReprFloat(x, st))
		case string:
			if st == jsonStyle {
				writeJSONString(b, x)
			} else {
				writeReprString(b, x)
			}
		case List:
			b.WriteByte('[')
			stack = append(stack, item{lit: "]", isLit: true})
			for i := len(x) - 1; i >= 0; i-- {
				stack = append(stack, item{v: x[i]})
				if i > 0 {
					stack = append(stack, item{lit: sep, isLit: true})
				}
			}
		case *Object:
			b.WriteByte('{')
			stack = append(stack, item{lit: "}", isLit: true})
			for i := x.Len() - 1; i >= 0; i-- {
				stack = append(stack, item{v: x.vals[i]})
				var kb strings.Builder
				if st == jsonStyle {
					writeJSONString(&kb, x.keys[i])
				} else {
					writeReprString(&kb, x.keys[i])
				}
				kb.WriteString(": ")
				if i > 0 {
					stack = append(stack, item{lit: sep + kb.String(), isLit: true})
				} else {
					stack = append(stack, item{lit: kb.String(), isLit: true})
				}
			}
		default:
			// Not a model value (a Go value Normalize refused).
			b.WriteString("<" + TypeName(x) + ">")
		}
	}
}

func jsonOrReprFloat(f float64, st style) string {
	if st == jsonStyle {
		// Python's json.dumps: repr for finite floats, and the
		// JavaScript names for the others.
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
	}
	return ReprFloat(f)
}

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := decodeWTF8(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r < 0x20 || (r >= 0xD800 && r <= 0xDFFF):
			writeEscape(b, 'u', r, 4)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// MarshalValue encodes a model value as JSON text the way Python's
// json.dumps would (floats keep their ".0", NaN and Infinity are written
// as such), so Python reads back exactly the value it sent.
func MarshalValue(v any) []byte {
	var b strings.Builder
	writeValue(&b, v, jsonStyle)
	return []byte(b.String())
}
