package pca

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// A tiny deterministic CBOR (RFC 8949) codec for exactly the values a PCA
// holds: unsigned and negative ints, text strings, byte strings, arrays,
// maps with text keys in insertion order, true, false and null. Lengths
// are definite and every length and int uses its shortest form, so equal
// values always have equal bytes (signatures depend on it).

// Entry is one key/value pair of a Map.
type Entry struct {
	Key   string
	Value any
}

// Map is a CBOR map whose keys keep their insertion order.
type Map []Entry

// Get returns the value for key.
func (m Map) Get(key string) (any, bool) {
	for _, e := range m {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// Value types: int, int64, uint64 (ints), string (text), []byte (bytes),
// []any (array), Map, bool, nil.

// EncodeError is a value the encoder has no CBOR form for.
type EncodeError struct{ Value any }

func (e *EncodeError) Error() string { return fmt.Sprintf("Cannot encode %T to CBOR", e.Value) }

// Encode returns the CBOR bytes of v.
func Encode(v any) ([]byte, error) {
	return appendValue(nil, v, 0)
}

const maxDepth = 32

func appendHead(b []byte, major byte, n uint64) []byte {
	m := major << 5
	switch {
	case n < 24:
		return append(b, m|byte(n))
	case n <= math.MaxUint8:
		return append(b, m|24, byte(n))
	case n <= math.MaxUint16:
		return append(b, m|25, byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		return append(b, m|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, m|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errors.New("CBOR value nested too deeply")
	}
	switch x := v.(type) {
	case nil:
		return append(b, 0xf6), nil
	case bool:
		if x {
			return append(b, 0xf5), nil
		}
		return append(b, 0xf4), nil
	case int:
		return appendInt(b, int64(x)), nil
	case int64:
		return appendInt(b, x), nil
	case uint64:
		return appendHead(b, 0, x), nil
	case string:
		return append(appendHead(b, 3, uint64(len(x))), x...), nil
	case []byte:
		return append(appendHead(b, 2, uint64(len(x))), x...), nil
	case []any:
		b = appendHead(b, 4, uint64(len(x)))
		var err error
		for _, e := range x {
			if b, err = appendValue(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case Map:
		b = appendHead(b, 5, uint64(len(x)))
		var err error
		for _, e := range x {
			b = append(appendHead(b, 3, uint64(len(e.Key))), e.Key...)
			if b, err = appendValue(b, e.Value, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, &EncodeError{Value: v}
}

func appendInt(b []byte, n int64) []byte {
	if n >= 0 {
		return appendHead(b, 0, uint64(n))
	}
	return appendHead(b, 1, uint64(-(n + 1)))
}

// DecodeError describes bytes that are not a canonical encoding of the
// values above.
type DecodeError struct {
	Offset int
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("invalid CBOR at byte %d: %s", e.Offset, e.Msg)
}

// Decode reads exactly one value from data. Ints decode as int64 (or
// uint64 above MaxInt64), text as string, bytes as []byte, arrays as
// []any, maps as Map. Indefinite lengths, tags, floats, non-shortest
// heads, non-text or repeated map keys, invalid UTF-8 and trailing bytes
// are refused.
func Decode(data []byte) (any, error) {
	d := decoder{data: data}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.pos != len(data) {
		return nil, d.fail("trailing bytes after the value")
	}
	return v, nil
}

type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) fail(msg string) error { return &DecodeError{Offset: d.pos, Msg: msg} }

func (d *decoder) head() (major byte, n uint64, err error) {
	if d.pos >= len(d.data) {
		return 0, 0, d.fail("unexpected end of data")
	}
	ib := d.data[d.pos]
	major, info := ib>>5, ib&0x1f
	d.pos++
	if major == 7 {
		return major, uint64(info), nil
	}
	var size int
	switch {
	case info < 24:
		return major, uint64(info), nil
	case info == 24:
		size = 1
	case info == 25:
		size = 2
	case info == 26:
		size = 4
	case info == 27:
		size = 8
	default:
		return 0, 0, d.fail("indefinite or reserved length")
	}
	if len(d.data)-d.pos < size {
		return 0, 0, d.fail("unexpected end of data")
	}
	for i := 0; i < size; i++ {
		n = n<<8 | uint64(d.data[d.pos+i])
	}
	d.pos += size
	// Shortest form only.
	if (size == 1 && n < 24) || (size == 2 && n <= math.MaxUint8) ||
		(size == 4 && n <= math.MaxUint16) || (size == 8 && n <= math.MaxUint32) {
		return 0, 0, d.fail("non-shortest length or integer")
	}
	return major, n, nil
}

func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(d.data)-d.pos) {
		return nil, d.fail("length beyond the end of data")
	}
	b := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

func (d *decoder) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.fail("nested too deeply")
	}
	start := d.pos
	major, n, err := d.head()
	if err != nil {
		return nil, err
	}
	switch major {
	case 0:
		if n > math.MaxInt64 {
			return n, nil
		}
		return int64(n), nil
	case 1:
		if n > math.MaxInt64 {
			return nil, &DecodeError{Offset: start, Msg: "negative integer out of range"}
		}
		return -1 - int64(n), nil
	case 2:
		b, err := d.bytes(n)
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	case 3:
		b, err := d.bytes(n)
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(b) {
			return nil, &DecodeError{Offset: start, Msg: "text string is not UTF-8"}
		}
		return string(b), nil
	case 4:
		// Each element takes at least one byte: a length beyond the data
		// left is refused before allocating.
		if n > uint64(len(d.data)-d.pos) {
			return nil, d.fail("array length beyond the end of data")
		}
		out := make([]any, 0, n)
		for i := uint64(0); i < n; i++ {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case 5:
		if n > uint64(len(d.data)-d.pos)/2 {
			return nil, d.fail("map length beyond the end of data")
		}
		out := make(Map, 0, n)
		seen := make(map[string]bool, n)
		for i := uint64(0); i < n; i++ {
			kpos := d.pos
			k, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, &DecodeError{Offset: kpos, Msg: "map key is not a text string"}
			}
			if seen[ks] {
				return nil, &DecodeError{Offset: kpos, Msg: fmt.Sprintf("repeated map key %q", ks)}
			}
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			seen[ks] = true
			out = append(out, Entry{ks, v})
		}
		return out, nil
	case 7:
		switch n {
		case 20:
			return false, nil
		case 21:
			return true, nil
		case 22:
			return nil, nil
		}
		return nil, &DecodeError{Offset: start, Msg: "unsupported simple value or float"}
	}
	return nil, &DecodeError{Offset: start, Msg: "tags are not supported"}
}
