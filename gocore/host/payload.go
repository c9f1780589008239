package host

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Bounds on what a guest may hand to Python. Python's json module cannot
// decode deeper nesting (it recurses) or longer integers (int() refuses
// more than 4300 digits), and a lone surrogate decodes to a str that
// cannot be encoded back to UTF-8; any of these, let through, would fail
// inside the driver instead of in the script.
const (
	maxPayloadDepth  = 500
	maxNumberLength  = 4000
	paramsPreviewMax = 1024 // bytes of params kept in a run's record
)

// requestCharge is what a tool request waiting for its answer costs the
// run against memory_limit: the host memory its params take. The host
// holds them three times over: Go's copy (until Python takes the request),
// the request event's JSON text handed to Python, and the value Python's
// json module decodes from it, which the handler holds until it returns.
// The decoded value can be far bigger than its JSON (a 3-byte "{}" is a
// 64-byte dict, a 2-byte list element an 8-byte slot and a 28-byte int), so
// it is estimated from the JSON's shape (pythonSize), not taken as its
// length. params is valid JSON (checkPayload accepted it).
func requestCharge(params json.RawMessage) int64 {
	return 2*int64(len(params)) + pythonSize(params)
}

// What CPython (3.11 to 3.13, 64-bit) spends on a decoded JSON value,
// rounded up: object headers with their GC header, a dict's entry (with
// the slack of its table), a list's slot (with over-allocation), a str's
// header. Empty strings and small ints are shared objects and cost only
// their slot.
const (
	pyDictSize   = 144 // a dict with its first small table (an empty one is 64)
	pyDictEntry  = 40  // per key: entry, index and table slack
	pyListSize   = 72  // a list object
	pyListSlot   = 16  // per element: pointer and over-allocation
	pyStrSize    = 56  // a str object before its characters
	pyNumberSize = 32  // an int or float; big ints add 4 bytes per 9 digits
)

// pythonSize estimates, from above, the bytes of the value Python decodes
// from raw, a valid JSON text. Keys are charged like values, though json
// shares repeated ones.
func pythonSize(raw []byte) int64 {
	var size int64
	var inObject []bool // per open container: an object (true) or an array
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if len(inObject) > 0 && !inObject[len(inObject)-1] && (c == '{' || c == '[' || c == '"' || c == '-' ||
			(c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
			size += pyListSlot
		}
		switch {
		case c == '{':
			size += pyDictSize
			inObject = append(inObject, true)
		case c == '[':
			size += pyListSize
			inObject = append(inObject, false)
		case c == '}' || c == ']':
			inObject = inObject[:len(inObject)-1]
		case c == ':':
			size += pyDictEntry
		case c == '"':
			end, chars, width := decodedString(raw, i)
			if chars > 0 {
				size += pyStrSize + chars*width
			}
			i = end
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			if j-i > 2 { // 0..99 and -9..-1 are cached ints
				size += pyNumberSize + int64(j-i)/9*4
			}
			i = j - 1
		case c == 't' || c == 'f' || c == 'n':
			i += 3 // true, false and null are shared objects
		}
	}
	return size
}

// decodedString reads the JSON string starting at raw[start] (valid JSON)
// and returns the index of its closing quote, an upper bound on its
// characters and the bytes per character CPython stores it with: 1 up to
// U+00FF, 2 up to U+FFFF, 4 beyond (every character of a str takes the
// width of its widest).
func decodedString(raw []byte, start int) (end int, chars, width int64) {
	width = 1
	for i := start + 1; i < len(raw); i++ {
		b := raw[i]
		switch {
		case b == '"':
			return i, chars, width
		case b == '\\':
			if raw[i+1] == 'u' {
				switch r := hex4(raw[i+2 : i+6]); {
				case r >= 0xD800 && r <= 0xDBFF:
					width = 4
				case r >= 0x100:
					width = max(width, 2)
				}
				i += 4
			}
			i++
		case b >= 0xF0:
			width = 4
		case b >= 0xC4:
			width = max(width, 2)
		}
		if b < 0x80 || b >= 0xC0 { // not a continuation byte: one character
			chars++
		}
	}
	return len(raw) - 1, chars, width
}

// payloadError is a refusal of a guest payload; its text is what the
// script sees, after the reference's "Invalid payload JSON" prefix.
type payloadError struct {
	what   string
	offset int
}

func (e *payloadError) Error() string {
	return fmt.Sprintf("Invalid payload JSON: %s (at byte %d)", e.what, e.offset)
}

// checkPayload accepts raw only if it is one JSON value Python can decode
// and encode back unchanged: valid UTF-8, no lone surrogate escapes,
// nesting at most maxPayloadDepth, numbers at most maxNumberLength long.
func checkPayload(raw []byte) error {
	if !utf8.Valid(raw) {
		return &payloadError{what: "not valid UTF-8", offset: firstInvalidUTF8(raw)}
	}
	if !json.Valid(raw) {
		return &payloadError{what: "not a single valid JSON value", offset: 0}
	}
	depth := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '[' || c == '{':
			depth++
			if depth > maxPayloadDepth {
				return &payloadError{what: fmt.Sprintf("nested more than %d levels deep", maxPayloadDepth), offset: i}
			}
		case c == ']' || c == '}':
			depth--
		case c == '"':
			end, err := scanString(raw, i)
			if err != nil {
				return err
			}
			i = end
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			if j-i > maxNumberLength {
				return &payloadError{what: fmt.Sprintf("a number of %d characters (at most %d)", j-i, maxNumberLength), offset: i}
			}
			i = j - 1
		}
	}
	return nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// scanString checks the escapes of the string starting at raw[start] (a
// quote) and returns the index of its closing quote. raw is valid JSON.
func scanString(raw []byte, start int) (int, error) {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			return i, nil
		case '\\':
			if raw[i+1] != 'u' {
				i++
				continue
			}
			r := hex4(raw[i+2 : i+6])
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if lo := hex4(raw[i+8 : i+12]); lo >= 0xDC00 && lo <= 0xDFFF {
						i += 11
						continue
					}
				}
				return 0, &payloadError{what: fmt.Sprintf("a lone surrogate \\u%04x", r), offset: i}
			case r >= 0xDC00 && r <= 0xDFFF:
				return 0, &payloadError{what: fmt.Sprintf("a lone surrogate \\u%04x", r), offset: i}
			}
			i += 5
		}
	}
	return len(raw), nil
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		}
	}
	return r
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// preview keeps small params as they are and replaces big ones by a JSON
// string showing their start, so a run's record stays small whatever the
// script sends.
func preview(params json.RawMessage) (json.RawMessage, bool) {
	if len(params) <= paramsPreviewMax {
		return params, false
	}
	cut := 200
	for cut > 0 && !utf8.RuneStart(params[cut]) {
		cut--
	}
	s, _ := json.Marshal(fmt.Sprintf("%s... (%d bytes)", params[:cut], len(params)))
	return s, true
}
