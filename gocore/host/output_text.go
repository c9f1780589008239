package host

import "unicode/utf8"

// A guest's output is bytes; Python receives text. The host makes the
// text: every ill-formed UTF-8 sequence becomes U+FFFD, one for each
// maximal subpart (the Unicode Standard's recommended practice, which
// Python's bytes.decode(errors="replace") follows too), so the same bytes
// give the same text whatever their size and whichever way they cross to
// Python. The output cap counts the guest's bytes, not the text's: a
// replaced byte takes three bytes of text.

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// validText returns b as valid UTF-8: b itself when it is already valid
// (no copy), else a copy with each maximal subpart of an ill-formed
// sequence replaced by U+FFFD.
func validText(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return appendValidText(make([]byte, 0, len(b)+len(b)/2), b)
}

// appendValidText appends src to dst, replacing each maximal subpart of an
// ill-formed UTF-8 sequence with U+FFFD.
func appendValidText(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			// Copy the run of ASCII at once.
			j := i + 1
			for j < len(src) && src[j] < utf8.RuneSelf {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j
			continue
		}
		n, complete := sequenceAt(src[i:])
		if complete {
			dst = append(dst, src[i:i+n]...)
		} else {
			dst = append(dst, replacement...)
		}
		i += n
	}
	return dst
}

// sequenceAt looks at the multi-byte sequence b starts with (b[0] is not
// ASCII). It returns how many bytes of b the sequence takes and whether
// they are a whole, well-formed character; when they are not, n is the
// length of the maximal subpart (at least 1), which stands for one U+FFFD.
func sequenceAt(b []byte) (n int, complete bool) {
	size, lo, hi := leadByte(b[0])
	if size == 0 {
		return 1, false
	}
	n = 1
	for ; n < size; n++ {
		if n >= len(b) {
			return n, false
		}
		l, h := byte(0x80), byte(0xBF)
		if n == 1 {
			l, h = lo, hi
		}
		if b[n] < l || b[n] > h {
			return n, false
		}
	}
	return n, true
}

// leadByte gives the length of the character lead byte c begins, and the
// range its second byte must be in (narrower than 80..BF after E0, ED,
// F0 and F4: no overlong forms, no surrogates, nothing past U+10FFFF).
// size 0: c begins no character.
func leadByte(c byte) (size int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		return 3, 0x80, 0xBF
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}

// cutTail is how many bytes at the end of b are the beginning of a
// character the next bytes may complete (0-3): a character a write split
// between two chunks of a stream.
func cutTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if c >= 0xC0 { // a lead byte, or a byte that begins nothing
			if size, _, _ := leadByte(c); size == 0 {
				return 0
			}
			n, complete := sequenceAt(b[len(b)-k:])
			if !complete && n == k {
				return k
			}
			return 0
		}
	}
	return 0
}

// textStream turns one output stream's chunks into text as they come: a
// character split between two chunks comes out whole with the second.
type textStream struct {
	held []byte // the start of a character cut at the end of the last chunk
}

// next returns chunk as text, holding back a cut character at its end.
func (t *textStream) next(chunk []byte) []byte {
	b := chunk
	if len(t.held) > 0 {
		b = append(t.held, chunk...)
		t.held = nil
	}
	if k := cutTail(b); k > 0 {
		t.held = append([]byte(nil), b[len(b)-k:]...)
		b = b[:len(b)-k]
	}
	return validText(b)
}

// flush returns what is held back at the end of the stream: the start of
// a character that never came whole, as U+FFFD.
func (t *textStream) flush() []byte {
	if len(t.held) == 0 {
		return nil
	}
	t.held = nil
	return []byte(replacement)
}
