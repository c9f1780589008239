package jsrt

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// Byte and text conversions that would be slow in JavaScript: TextEncoder,
// TextDecoder, atob/btoa, and the encodings Buffer and fs accept.

// newUint8Array wraps b (not copied) in a Uint8Array.
func (rt *runtime) newUint8Array(b []byte) goja.Value {
	if b == nil {
		b = []byte{}
	}
	o, err := rt.vm.New(rt.uint8ArrayCtor, rt.vm.ToValue(rt.vm.NewArrayBuffer(b)))
	if err != nil {
		panic(err)
	}
	return o
}

// bytesOf is the bytes viewed by an ArrayBuffer, typed array or DataView
// (shared, not copied).
func (rt *runtime) bytesOf(v goja.Value) ([]byte, bool) {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil, false
	}
	if ab, ok := o.Export().(goja.ArrayBuffer); ok {
		return ab.Bytes(), true
	}
	if isView, err := rt.isView(goja.Undefined(), o); err != nil || !isView.ToBoolean() {
		return nil, false
	}
	ab, ok := o.Get("buffer").Export().(goja.ArrayBuffer)
	if !ok {
		return nil, false
	}
	off, n := o.Get("byteOffset").ToInteger(), o.Get("byteLength").ToInteger()
	b := ab.Bytes()
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		return nil, false
	}
	return b[off : off+n], true
}

// utf8String decodes UTF-8 as TextDecoder does: each byte that does not
// start a valid sequence becomes U+FFFD.
func utf8String(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

// latin1String is the string whose code units are the bytes of b.
func latin1String(b []byte) goja.Value {
	units := make([]uint16, len(b))
	for i, c := range b {
		units[i] = uint16(c)
	}
	return goja.StringFromUTF16(units)
}

// latin1Bytes is the bytes of a string whose code units are all below
// 256; ok is false when one is not.
func latin1Bytes(v goja.Value) ([]byte, bool) {
	s, isString := v.ToString().(goja.String)
	if !isString {
		return []byte(v.String()), true
	}
	n := s.Length()
	out := make([]byte, n)
	ok := true
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		if c > 0xff {
			ok = false
		}
		out[i] = byte(c)
	}
	return out, ok
}

// decodeBase64Loose decodes standard or URL-safe base64, with or without
// padding, ignoring ASCII whitespace (the forgiving decoding of atob and
// Buffer.from(s, "base64")).
func decodeBase64Loose(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\f', '\r':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	s = strings.TrimRight(s, "=")
	return base64.RawStdEncoding.DecodeString(s)
}

// encodingNatives are the conversion functions the prelude builds on.
func (rt *runtime) encodingNatives() map[string]func(goja.FunctionCall) goja.Value {
	return map[string]func(goja.FunctionCall) goja.Value{
		// utf8Encode(string) -> Uint8Array; lone surrogates become U+FFFD.
		"utf8Encode": func(c goja.FunctionCall) goja.Value {
			return rt.newUint8Array([]byte(c.Argument(0).String()))
		},
		// utf8Decode(bytes, fatal, ignoreBOM) -> string.
		"utf8Decode": func(c goja.FunctionCall) goja.Value {
			b, ok := rt.bytesOf(c.Argument(0))
			if !ok {
				if goja.IsUndefined(c.Argument(0)) {
					return rt.vm.ToValue("")
				}
				rt.throw(rt.typeErrorCtor, `The "input" argument must be an instance of ArrayBuffer or ArrayBufferView`)
			}
			if !c.Argument(2).ToBoolean() && len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
				b = b[3:]
			}
			if c.Argument(1).ToBoolean() && !utf8.Valid(b) {
				rt.throw(rt.typeErrorCtor, "The encoded data was not valid for encoding utf-8")
			}
			return rt.vm.ToValue(utf8String(b))
		},
		// encode(bytes, encoding) -> string, for Buffer.toString.
		"encode": func(c goja.FunctionCall) goja.Value {
			b, _ := rt.bytesOf(c.Argument(0))
			return rt.decodeBytes(b, encodingArg(c.Argument(1)))
		},
		// decode(string, encoding) -> Uint8Array, for Buffer.from.
		"decode": func(c goja.FunctionCall) goja.Value {
			b := rt.dataArg(c.Argument(0), encodingArg(c.Argument(1)))
			return rt.newUint8Array(append([]byte(nil), b...))
		},
		"btoa": func(c goja.FunctionCall) goja.Value {
			if len(c.Arguments) == 0 {
				rt.throw(rt.typeErrorCtor, "btoa requires 1 argument")
			}
			b, ok := latin1Bytes(c.Argument(0))
			if !ok {
				rt.throwDOM("InvalidCharacterError", "Invalid character: btoa() only accepts characters in the Latin1 range; "+
					"for other text use btoa(String.fromCharCode(...new TextEncoder().encode(s))) or Buffer.from(s).toString('base64')")
			}
			return rt.vm.ToValue(base64.StdEncoding.EncodeToString(b))
		},
		"atob": func(c goja.FunctionCall) goja.Value {
			if len(c.Arguments) == 0 {
				rt.throw(rt.typeErrorCtor, "atob requires 1 argument")
			}
			s := c.Argument(0).String()
			if strings.ContainsAny(s, "-_") {
				rt.throwDOM("InvalidCharacterError", "The string to be decoded is not correctly encoded.")
			}
			b, err := decodeBase64Loose(s)
			if err != nil {
				rt.throwDOM("InvalidCharacterError", "The string to be decoded is not correctly encoded.")
			}
			return latin1String(b)
		},
		"hex": func(c goja.FunctionCall) goja.Value {
			b, _ := rt.bytesOf(c.Argument(0))
			return rt.vm.ToValue(hex.EncodeToString(b))
		},
		// randomFill(typedArray) fills the array's bytes in place.
		"randomFill": func(c goja.FunctionCall) goja.Value {
			b, ok := rt.bytesOf(c.Argument(0))
			if !ok {
				rt.throw(rt.typeErrorCtor, "The data argument must be an integer-type TypedArray")
			}
			if len(b) > 65536 {
				rt.throwDOM("QuotaExceededError", "The ArrayBufferView's byte length exceeds the number of bytes of entropy available via this API (65536)")
			}
			_, _ = rand.Read(b)
			return c.Argument(0)
		},
	}
}

// throwDOM raises an Error named like a DOMException.
func (rt *runtime) throwDOM(name, msg string) {
	e := rt.newError(msg)
	_ = e.Set("name", name)
	panic(e)
}
