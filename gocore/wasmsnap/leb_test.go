package wasmsnap

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestReadULEB(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		bits uint
		want uint64
		n    int
		err  error
	}{
		{"zero", []byte{0x00}, 32, 0, 1, nil},
		{"one byte max", []byte{0x7f}, 32, 127, 1, nil},
		{"two bytes", []byte{0xe5, 0x8e, 0x26}, 32, 624485, 3, nil},
		{"padded zero", []byte{0x80, 0x80, 0x00}, 32, 0, 3, nil},
		{"u32 max", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 32, math.MaxUint32, 5, nil},
		{"u32 overflow bits", []byte{0xff, 0xff, 0xff, 0xff, 0x1f}, 32, 0, 0, errLEBRange},
		{"u32 six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 32, 0, 0, errLEBTooLong},
		{"truncated", []byte{0x80, 0x80}, 32, 0, 0, errLEBTruncated},
		{"empty", nil, 32, 0, 0, errLEBTruncated},
		{"u64 max", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 64, math.MaxUint64, 10, nil},
		{"u64 overflow", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 64, 0, 0, errLEBRange},
		{"trailing bytes ignored", []byte{0x05, 0xff}, 32, 5, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := readULEB(tt.in, tt.bits)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err == nil && (got != tt.want || n != tt.n) {
				t.Fatalf("got (%d, %d), want (%d, %d)", got, n, tt.want, tt.n)
			}
		})
	}
}

func TestReadSLEB(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		bits uint
		want int64
		n    int
		err  error
	}{
		{"zero", []byte{0x00}, 32, 0, 1, nil},
		{"minus one", []byte{0x7f}, 32, -1, 1, nil},
		{"63", []byte{0x3f}, 32, 63, 1, nil},
		{"64 needs two bytes", []byte{0xc0, 0x00}, 32, 64, 2, nil},
		{"-64", []byte{0x40}, 32, -64, 1, nil},
		{"-123456", []byte{0xc0, 0xbb, 0x78}, 32, -123456, 3, nil},
		{"i32 max", []byte{0xff, 0xff, 0xff, 0xff, 0x07}, 32, math.MaxInt32, 5, nil},
		{"i32 min", []byte{0x80, 0x80, 0x80, 0x80, 0x78}, 32, math.MinInt32, 5, nil},
		{"i32 too big", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 32, 0, 0, errLEBRange},
		{"i32 bad sign bits", []byte{0x80, 0x80, 0x80, 0x80, 0x70}, 32, 0, 0, errLEBRange},
		{"i32 too long", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 32, 0, 0, errLEBTooLong},
		{"i64 min", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 64, math.MinInt64, 10, nil},
		{"i64 max", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 64, math.MaxInt64, 10, nil},
		{"i64 bad last byte", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 64, 0, 0, errLEBRange},
		{"s33 heap type -16", []byte{0x70}, 33, -16, 1, nil},
		{"truncated", []byte{0xff}, 64, 0, 0, errLEBTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := readSLEB(tt.in, tt.bits)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err == nil && (got != tt.want || n != tt.n) {
				t.Fatalf("got (%d, %d), want (%d, %d)", got, n, tt.want, tt.n)
			}
		})
	}
}

func TestAppendLEB(t *testing.T) {
	uns := []struct {
		v    uint64
		want []byte
	}{
		{0, []byte{0x00}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 0x01}},
		{624485, []byte{0xe5, 0x8e, 0x26}},
		{math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, tt := range uns {
		if got := appendULEB(nil, tt.v); !bytes.Equal(got, tt.want) {
			t.Errorf("appendULEB(%d) = % x, want % x", tt.v, got, tt.want)
		}
	}
	sig := []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0x00}},
		{-1, []byte{0x7f}},
		{63, []byte{0x3f}},
		{64, []byte{0xc0, 0x00}},
		{-64, []byte{0x40}},
		{-65, []byte{0xbf, 0x7f}},
		{-123456, []byte{0xc0, 0xbb, 0x78}},
		{math.MinInt32, []byte{0x80, 0x80, 0x80, 0x80, 0x78}},
	}
	for _, tt := range sig {
		if got := appendSLEB(nil, tt.v); !bytes.Equal(got, tt.want) {
			t.Errorf("appendSLEB(%d) = % x, want % x", tt.v, got, tt.want)
		}
	}
	// Round trips at the edges of each width.
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40)} {
		enc := appendSLEB(nil, v)
		got, n, err := readSLEB(enc, 64)
		if err != nil || got != v || n != len(enc) {
			t.Errorf("sleb64 round trip of %d: got %d, %d bytes, err %v", v, got, n, err)
		}
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			if got, _, err := readSLEB(enc, 32); err != nil || got != v {
				t.Errorf("sleb32 round trip of %d: got %d, err %v", v, got, err)
			}
		} else if _, _, err := readSLEB(enc, 32); err == nil {
			t.Errorf("readSLEB(%d, 32) accepted a value outside i32", v)
		}
	}
	for _, v := range []uint64{0, 1, 127, 128, math.MaxUint32, math.MaxUint64} {
		enc := appendULEB(nil, v)
		if got, n, err := readULEB(enc, 64); err != nil || got != v || n != len(enc) {
			t.Errorf("uleb64 round trip of %d: got %d, %d bytes, err %v", v, got, n, err)
		}
	}
}
