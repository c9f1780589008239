package durable

import (
	"encoding/binary"
	"io"
)

// Reader reads the fields of an artifact's bytes, refusing to read past
// their end. Every error names the artifact and the byte offset at fault.
type Reader struct {
	b   []byte
	off int
	// what is named in errors: "snapshot", "journal", "journal meta"...
	what string
	mk   ErrorFunc
}

// NewReader reads b from byte off; what names b in errors, which mkErr
// makes.
func NewReader(b []byte, off int, what string, mkErr ErrorFunc) *Reader {
	return &Reader{b: b, off: off, what: what, mk: mkErr}
}

// Off is the offset of the next byte to read.
func (r *Reader) Off() int { return r.off }

// Left is the number of bytes not yet read.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Errorf makes an error of r's format.
func (r *Reader) Errorf(format string, a ...any) error { return r.mk(format, a...) }

func (r *Reader) fail(field string) error {
	return r.mk("%s damaged or truncated at byte %d (reading %s)", r.what, r.off, field)
}

// Byte reads one byte; field names it in errors.
func (r *Reader) Byte(field string) (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.fail(field)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint(field string) (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		return 0, r.fail(field)
	}
	r.off += n
	return v, nil
}

// Varint reads a signed varint.
func (r *Reader) Varint(field string) (int64, error) {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		return 0, r.fail(field)
	}
	r.off += n
	return v, nil
}

// Bytes returns the next n bytes (a view, not a copy).
func (r *Reader) Bytes(n uint64, field string) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) {
		return nil, r.mk("%s damaged or truncated at byte %d: %s needs %d bytes, %d are left", r.what, r.off, field, n, len(r.b)-r.off)
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, nil
}

// String reads a string (a uvarint length and its bytes) of at most max
// bytes.
func (r *Reader) String(max uint64, field string) (string, error) {
	n, err := r.Uvarint(field)
	if err != nil {
		return "", err
	}
	if n > max {
		return "", r.mk("%s at byte %d: %s is %d bytes, more than %d", r.what, r.off, field, n, max)
	}
	b, err := r.Bytes(n, field)
	return string(b), err
}

// ExactReader reads an inflating stream that must produce exactly a
// declared number of bytes: a stream that ends early or goes on (a
// decompression bomb) is an error, and no more than the declared bytes
// are ever produced.
type ExactReader struct {
	r    io.Reader
	left int64
	name string
	mk   ErrorFunc
}

// NewExactReader reads exactly size bytes from r; name says what is
// inflated in errors, which mkErr makes.
func NewExactReader(r io.Reader, size int64, name string, mkErr ErrorFunc) *ExactReader {
	return &ExactReader{r: r, left: size, name: name, mk: mkErr}
}

func (x *ExactReader) Read(p []byte) (int, error) {
	if x.left == 0 {
		// The stream must end here.
		var one [1]byte
		n, err := x.r.Read(one[:])
		for tries := 0; n == 0 && err == nil && tries < 16; tries++ {
			n, err = x.r.Read(one[:])
		}
		if n > 0 {
			return 0, x.mk("%s inflates to more bytes than it declares", x.name)
		}
		if err == io.EOF {
			return 0, io.EOF
		}
		if err == nil {
			return 0, x.mk("%s: its compressed data does not end", x.name)
		}
		return 0, x.mk("%s: compressed data: %v", x.name, err)
	}
	if int64(len(p)) > x.left {
		p = p[:x.left]
	}
	n, err := x.r.Read(p)
	x.left -= int64(n)
	if err == io.EOF {
		if x.left > 0 {
			return n, x.mk("%s inflates to fewer bytes than it declares", x.name)
		}
		err = nil
	} else if err != nil {
		return n, x.mk("%s: compressed data: %v", x.name, err)
	}
	return n, err
}
