package durable

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

var errTest = errors.New("invalid test artifact")

func testErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errTest, fmt.Sprintf(format, a...))
}

func TestProcessKey(t *testing.T) {
	a, b := ProcessKey(), ProcessKey()
	if len(a) != 32 || !bytes.Equal(a, b) {
		t.Fatalf("process key %x then %x", a, b)
	}
	if bytes.Equal(a, make([]byte, 32)) {
		t.Fatal("the process key is zeros")
	}
}

func TestEnvelope(t *testing.T) {
	key := []byte("key")
	seal := func(body []byte, key []byte) []byte {
		m := NewMAC(key)
		m.Write(body)
		return m.Sum(append([]byte(nil), body...))
	}
	good := seal([]byte("TESTMAGC\x03 body"), key)
	flipped := bytes.Clone(good)
	flipped[10] ^= 1
	for _, tt := range []struct {
		name, want string
		data       []byte
	}{
		{"too short", "too few for an amla-sandbox test", good[:20]},
		{"other magic", `does not start with "TESTMAGC"`, seal([]byte("OTHERMAG\x03 body"), key)},
		{"older version", "version 2 is not supported (this build reads version 3; older versions carry no authentication", seal([]byte("TESTMAGC\x02 body"), key)},
		{"newer version", "version 4 is not supported (this build reads version 3)", seal([]byte("TESTMAGC\x04 body"), key)},
		{"another key", "authentication failed", seal([]byte("TESTMAGC\x03 body"), []byte("other"))},
		{"changed byte", "authentication failed", flipped},
		{"good", "", good},
	} {
		body, err := CheckTrailer(tt.data, "TESTMAGC", 3, "test", testErr, key)
		if tt.want == "" {
			if err != nil || string(body) != "TESTMAGC\x03 body" {
				t.Fatalf("%s: %q, %v", tt.name, body, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errTest) {
			t.Fatalf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestReader(t *testing.T) {
	b := AppendString(nil, "name")
	b = binary.AppendVarint(b, -5)
	b = AppendBytes(b, []byte{1, 2})
	b = append(b, 7)
	r := NewReader(b, 0, "test", testErr)
	if s, err := r.String(4, "name"); s != "name" || err != nil {
		t.Fatalf("String: %q, %v", s, err)
	}
	if v, err := r.Varint("v"); v != -5 || err != nil {
		t.Fatalf("Varint: %d, %v", v, err)
	}
	if n, err := r.Uvarint("n"); n != 2 || err != nil {
		t.Fatalf("Uvarint: %d, %v", n, err)
	}
	if v, err := r.Bytes(2, "bytes"); !bytes.Equal(v, []byte{1, 2}) || err != nil {
		t.Fatalf("Bytes: %v, %v", v, err)
	}
	if c, err := r.Byte("c"); c != 7 || err != nil || r.Left() != 0 {
		t.Fatalf("Byte: %d, %v, %d left", c, err, r.Left())
	}
	for _, tt := range []struct {
		name, want string
		read       func(r *Reader) error
	}{
		{"byte past the end", "test damaged or truncated at byte 10 (reading c)", func(r *Reader) error { _, err := r.Byte("c"); return err }},
		{"varint past the end", "truncated at byte 10 (reading v)", func(r *Reader) error { _, err := r.Varint("v"); return err }},
		{"bytes past the end", "bytes needs 1 bytes, 0 are left", func(r *Reader) error { _, err := r.Bytes(1, "bytes"); return err }},
		{"string too long", "at byte 1: name is 4 bytes, more than 3", func(r *Reader) error {
			r.off = 0
			_, err := r.String(3, "name")
			return err
		}},
	} {
		r := NewReader(b, len(b), "test", testErr)
		if err := tt.read(r); err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errTest) {
			t.Fatalf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestExactReader(t *testing.T) {
	deflate := func(data []byte) []byte {
		var b bytes.Buffer
		zw, _ := flate.NewWriter(&b, flate.BestSpeed)
		zw.Write(data)
		zw.Close()
		return b.Bytes()
	}
	data := bytes.Repeat([]byte("abc"), 1000)
	for _, tt := range []struct {
		name, want string
		stream     []byte
		size       int64
	}{
		{"exact", "", deflate(data), 3000},
		{"more than declared", "inflates to more bytes than it declares", deflate(data), 2999},
		{"fewer than declared", "inflates to fewer bytes than it declares", deflate(data), 3001},
		{"garbage", "compressed data", []byte{0xff, 0xff, 0xff}, 10},
	} {
		x := NewExactReader(flate.NewReader(bytes.NewReader(tt.stream)), tt.size, "the stream", testErr)
		got, err := io.ReadAll(x)
		if int64(len(got)) > tt.size {
			t.Fatalf("%s: %d bytes read, more than the %d declared", tt.name, len(got), tt.size)
		}
		if tt.want == "" {
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: %d bytes, %v", tt.name, len(got), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errTest) {
			t.Fatalf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}
