package wasmsnap

import "errors"

// LEB128 as the WebAssembly binary format uses it: at most ceil(N/7) bytes for
// an N-bit integer, and the unused high bits of the last byte must be zero
// (unsigned) or copies of the sign bit (signed).

var (
	errLEBTruncated = errors.New("LEB128 integer runs past the end of its section")
	errLEBTooLong   = errors.New("LEB128 integer is longer than its type allows")
	errLEBRange     = errors.New("LEB128 integer does not fit its type")
)

// readULEB decodes an unsigned integer of at most bits bits (1..64) from the
// start of b and returns it with the number of bytes read.
func readULEB(b []byte, bits uint) (uint64, int, error) {
	maxBytes := int((bits + 6) / 7)
	var v uint64
	for i := 0; i < maxBytes; i++ {
		if i >= len(b) {
			return 0, 0, errLEBTruncated
		}
		c := b[i]
		payload := uint64(c & 0x7f)
		if i == maxBytes-1 {
			used := bits - 7*uint(i)
			if c&0x80 != 0 {
				return 0, 0, errLEBTooLong
			}
			if payload>>used != 0 {
				return 0, 0, errLEBRange
			}
		}
		v |= payload << (7 * uint(i))
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errLEBTooLong // unreachable: the last byte's continuation bit is checked above
}

// readSLEB decodes a two's-complement integer of at most bits bits (1..64).
func readSLEB(b []byte, bits uint) (int64, int, error) {
	maxBytes := int((bits + 6) / 7)
	var v uint64
	for i := 0; i < maxBytes; i++ {
		if i >= len(b) {
			return 0, 0, errLEBTruncated
		}
		c := b[i]
		payload := uint64(c & 0x7f)
		shift := 7 * uint(i)
		if i == maxBytes-1 {
			if c&0x80 != 0 {
				return 0, 0, errLEBTooLong
			}
			used := bits - shift // meaningful bits in this byte, 1..7
			sign := (payload >> (used - 1)) & 1
			unused := payload >> used
			want := uint64(0)
			if sign == 1 {
				want = (1 << (7 - used)) - 1
			}
			if unused != want {
				return 0, 0, errLEBRange
			}
		}
		v |= payload << shift
		if c&0x80 == 0 {
			end := shift + 7
			if end < 64 && payload&0x40 != 0 {
				v |= ^uint64(0) << end // sign-extend
			}
			return int64(v), i + 1, nil
		}
	}
	return 0, 0, errLEBTooLong
}

// appendULEB appends the shortest encoding of v.
func appendULEB(dst []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}

// appendSLEB appends the shortest two's-complement encoding of v.
func appendSLEB(dst []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7 // arithmetic shift keeps the sign
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}
