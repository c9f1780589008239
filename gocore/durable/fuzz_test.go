package durable

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// FuzzEnvelopeAndReader feeds arbitrary bytes to the envelope check and
// to a reader walking them as fields: neither may panic, read past the
// bytes, accept a trailer that is not the MAC of the body, or fail without
// an error of the caller's format.
func FuzzEnvelopeAndReader(f *testing.F) {
	key := []byte("fuzz key")
	seal := func(body []byte) []byte {
		m := NewMAC(key)
		m.Write(body)
		return m.Sum(append([]byte(nil), body...))
	}
	fields := AppendString(binary.AppendUvarint([]byte("TESTMAGC\x03"), 300), "a field")
	f.Add(seal(fields))
	f.Add(seal([]byte("TESTMAGC\x03")))
	f.Add([]byte("TESTMAGC\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Add([]byte(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		body, err := CheckTrailer(data, "TESTMAGC", 3, "test", testErr, key)
		if err != nil {
			if !errors.Is(err, errTest) {
				t.Fatalf("an error not of the caller's format: %v", err)
			}
		} else if !bytes.Equal(seal(body), data) {
			t.Fatal("accepted a trailer that is not the MAC of the bytes before it")
		}
		r := NewReader(data, 0, "test", testErr)
		for r.Left() > 0 {
			before := r.Off()
			var err error
			switch data[before] % 4 {
			case 0:
				_, err = r.Byte("byte")
			case 1:
				_, err = r.Uvarint("uvarint")
			case 2:
				_, err = r.Varint("varint")
			case 3:
				_, err = r.String(64, "string")
			}
			if err != nil {
				if !errors.Is(err, errTest) {
					t.Fatalf("an error not of the caller's format: %v", err)
				}
				return
			}
			if r.Off() <= before || r.Off() > len(data) {
				t.Fatalf("offset %d after %d, of %d bytes", r.Off(), before, len(data))
			}
		}
	})
}

// FuzzExactReader inflates arbitrary bytes against a declared size: it
// never produces more than the size, and reaches a clean end only with
// exactly that many bytes.
func FuzzExactReader(f *testing.F) {
	compress := func(b []byte) []byte {
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, flate.BestSpeed)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	f.Add(compress([]byte("hello")), int64(5))
	f.Add(compress([]byte("hello")), int64(4))
	f.Add(compress(bytes.Repeat([]byte{0}, 1<<16)), int64(10))
	f.Add([]byte("not deflate"), int64(3))
	f.Fuzz(func(t *testing.T, stream []byte, size int64) {
		if size < 0 || size > 1<<20 {
			return
		}
		x := NewExactReader(flate.NewReader(bytes.NewReader(stream)), size, "test data", testErr)
		got, err := io.ReadAll(io.LimitReader(x, size+1<<10))
		if int64(len(got)) > size {
			t.Fatalf("produced %d bytes of %d declared", len(got), size)
		}
		if err == nil && int64(len(got)) != size {
			t.Fatalf("a clean end after %d bytes of %d declared", len(got), size)
		}
		if err != nil && !errors.Is(err, errTest) {
			t.Fatalf("an error not of the caller's format: %v", err)
		}
	})
}
