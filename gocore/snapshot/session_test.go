package snapshot_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/snapshot/snapshottest"
)

// memOf applies a parsed session's ranges to a zeroed memory.
func memOf(t *testing.T, s *snapshot.Session) []byte {
	t.Helper()
	mem := make([]byte, s.MemorySize)
	if err := s.Ranges(func(off uint64, data []byte) error {
		copy(mem[off:], data)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return mem
}

func TestSessionRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("interpreter heap "), 40000) // 680 KB, compressible
	sessions := []snapshot.Session{
		{Language: "python", Guest: [32]byte{1}, MemorySize: 2 << 20, Globals: []snapshot.Global{{Kind: snapshot.GlobalI32, Bits: 0xfffffff0}, {Kind: snapshot.GlobalF64, Bits: 1 << 62}}},
		{Language: "javascript", Guest: [32]byte{2}, MemorySize: 64 << 10},
	}
	ranges := [][]snapshot.Range{
		{{Off: 4096, Data: []byte("abc")}, {Off: 8192, Data: big}, {Off: 2<<20 - 1, Data: []byte{7}}},
		{{Off: 0, Data: []byte("x")}},
	}
	for _, compress := range []bool{false, true} {
		w := snapshot.NewWriter(testKey, compress, 0)
		w.Dir(&snapshot.Entry{Path: "tmp", Dir: true, Mode: 0o700})
		w.Dir(&snapshot.Entry{Path: "workspace", Dir: true, Mode: 0o700})
		w.Budgets(map[string]int64{"k": 3})
		w.Sessions(sessions, ranges)
		data := w.Finish()
		if compress && len(data) > len(big)/4 {
			t.Errorf("compressed snapshot is %d bytes for %d of state", len(data), len(big))
		}
		_, ps, err := restore(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps.Sessions) != 2 || ps.Sessions[0].Language != "javascript" || ps.Sessions[1].Language != "python" {
			t.Fatalf("sessions %+v, want javascript then python", ps.Sessions)
		}
		py := &ps.Sessions[1]
		if py.Guest != [32]byte{1} || py.MemorySize != 2<<20 || len(py.Globals) != 2 || py.Globals[0].Bits != 0xfffffff0 || py.Globals[1].Kind != snapshot.GlobalF64 {
			t.Fatalf("python session %+v", py)
		}
		mem := memOf(t, py)
		if string(mem[4096:4099]) != "abc" || !bytes.Equal(mem[8192:8192+len(big)], big) || mem[2<<20-1] != 7 || mem[4099] != 0 {
			t.Fatal("python memory differs from what was written")
		}
		if m := memOf(t, &ps.Sessions[0]); m[0] != 'x' {
			t.Fatal("javascript memory differs")
		}
		if ps.Budgets["k"] != 3 {
			t.Fatalf("budgets %v", ps.Budgets)
		}
	}
}

// raw encodes ranges as (gap, length, bytes).
func raw(parts ...any) []byte {
	var b []byte
	for i := 0; i < len(parts); i += 3 {
		b = binary.AppendUvarint(b, uint64(parts[i].(int)))
		b = binary.AppendUvarint(b, uint64(parts[i+1].(int)))
		b = append(b, parts[i+2].([]byte)...)
	}
	return b
}

// bomb is a session record declaring the raw state ok but whose DEFLATE
// data inflates to ok and a megabyte more.
func bomb(ok []byte) []byte {
	rec := append([]byte{snapshottest.RecSession, 6}, "python"...)
	rec = append(rec, make([]byte, 32)...)
	rec = binary.AppendUvarint(rec, 64<<10)
	rec = append(rec, 0) // no globals
	rec = binary.AppendUvarint(rec, uint64(len(ok)))
	rec = append(rec, snapshottest.MethodDeflate)
	packed := snapshottest.Deflate(append(append([]byte(nil), ok...), make([]byte, 1<<20)...))
	rec = binary.AppendUvarint(rec, uint64(len(packed)))
	return append(rec, packed...)
}

func TestSessionHostile(t *testing.T) {
	base := func() *snapshottest.Builder { return newSnap().Dir("tmp", 0o755).Dir("workspace", 0o755) }
	page := uint64(64 << 10)
	ok := raw(0, 1, []byte("a"))
	cases := []struct {
		name string
		data []byte
		want string // at Parse, or at Ranges when ranges is true
		at   string
	}{
		{"memory size not in pages", base().Session("python", [32]byte{}, 1000, nil, 0, ok).Done(nil), "whole 64 KiB pages", "parse"},
		{"memory past 4 GiB", base().Session("python", [32]byte{}, 1<<33, nil, 0, ok).Done(nil), "at most 4 GiB", "parse"},
		{"bad global kind", base().Session("python", [32]byte{}, page, [][2]uint64{{7, 0}}, 0, ok).Done(nil), "global 0 has kind 7", "parse"},
		{"i32 global too wide", base().Session("python", [32]byte{}, page, [][2]uint64{{0, 1 << 40}}, 0, ok).Done(nil), "global 0", "parse"},
		{"state larger than memory", base().Session("python", [32]byte{}, page, nil, 0, make([]byte, 2*page)).Done(nil), "state of", "parse"},
		{"languages out of order", base().Session("python", [32]byte{}, page, nil, 0, ok).Session("javascript", [32]byte{}, page, nil, 0, ok).Done(nil), "unique and sorted", "parse"},
		{"duplicate language", base().Session("python", [32]byte{}, page, nil, 0, ok).Session("python", [32]byte{}, page, nil, 0, ok).Done(nil), "unique and sorted", "parse"},
		{"budget after a session", base().Session("python", [32]byte{}, page, nil, 0, ok).Raw(3, 1, 'k', 1).Done(nil), "after the sessions", "parse"},
		{"range past the memory", base().Session("python", [32]byte{}, page, nil, 0, raw(int(page)-1, 2, []byte("ab"))).Done(nil), "range of 2 bytes", "ranges"},
		{"empty range", base().Session("python", [32]byte{}, page, nil, 0, raw(0, 0, []byte{})).Done(nil), "range of 0 bytes", "ranges"},
		{"range longer than the state", base().Session("python", [32]byte{}, page, nil, 0, raw(0, 10, []byte("ab"))).Done(nil), "range of 10 bytes", "ranges"},
		{"deflated state past its length", base().Raw(bomb(ok)...).Done(nil), "more bytes than it declares", "ranges"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps, err := snapshot.Parse(c.data, testKey)
			if c.at == "ranges" && err == nil {
				for i := range ps.Sessions {
					if err = ps.Sessions[i].Ranges(func(uint64, []byte) error { return nil }); err != nil {
						break
					}
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if !errors.Is(err, snapshot.ErrInvalid) {
				t.Fatalf("%v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestSessionAuthenticated: a session's bytes are covered by the
// trailer, so changing one is refused before anything is used.
func TestSessionAuthenticated(t *testing.T) {
	w := snapshot.NewWriter(testKey, false, 0)
	w.Dir(&snapshot.Entry{Path: "tmp", Dir: true, Mode: 0o700})
	w.Dir(&snapshot.Entry{Path: "workspace", Dir: true, Mode: 0o700})
	w.Sessions([]snapshot.Session{{Language: "python", MemorySize: 64 << 10}}, [][]snapshot.Range{{{Off: 100, Data: []byte("secret=1")}}})
	data := w.Finish()
	i := bytes.Index(data, []byte("secret=1"))
	if i < 0 {
		t.Fatal("state not stored as it is")
	}
	data[i+7] = '2'
	if _, err := snapshot.Parse(data, testKey); err == nil || !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("an edited session was accepted: %v", err)
	}
}
