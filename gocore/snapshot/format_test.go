package snapshot_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"

	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/snapshot/snapshottest"
	"amlasandbox/gocore/wire"
)

var testKey = []byte("snapshot test key")

func newSnap() *snapshottest.Builder { return snapshottest.New(testKey) }

type file struct {
	path, data string
	mode       uint32
}

// write makes a snapshot of entries (in walk order; a path ending in "/"
// is a directory) under testKey.
func write(t *testing.T, compress bool, budgets map[string]int64, entries []file) []byte {
	t.Helper()
	w := snapshot.NewWriter(testKey, compress, 0)
	for _, f := range entries {
		if d, ok := strings.CutSuffix(f.path, "/"); ok {
			w.Dir(&snapshot.Entry{Path: d, Dir: true, Mode: 0o700 | f.mode, MTime: int64(len(d))})
			continue
		}
		addFile(t, w, f)
	}
	w.Budgets(budgets)
	return w.Finish()
}

func addFile(t *testing.T, w *snapshot.Writer, f file) {
	e := &snapshot.Entry{Path: f.path, Mode: f.mode, MTime: -int64(len(f.data)), Size: int64(len(f.data))}
	if err := w.File(e, func(dst []byte) error { copy(dst, f.data); return nil }); err != nil {
		t.Fatal(err)
	}
}

// restore does what a restore does with a snapshot's bytes, but into
// memory: parse, read every file through its bounded reader while
// computing the files digest, and check the digest.
func restore(data []byte) (map[string]string, *snapshot.Parsed, error) {
	ps, err := snapshot.Parse(data, testKey)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]string{}
	d := snapshot.NewDigest()
	for i := range ps.Entries {
		e := &ps.Entries[i]
		d.Header(e)
		if e.Dir {
			out[e.Path+"/"] = ""
			continue
		}
		var b bytes.Buffer
		if _, err := io.Copy(io.MultiWriter(&b, d), e.Open()); err != nil {
			return nil, nil, err
		}
		out[e.Path] = b.String()
	}
	return out, ps, ps.CheckDigest(d.Sum())
}

func TestRoundTrip(t *testing.T) {
	random := make([]byte, 100<<10)
	rand.Read(random)
	entries := []file{
		{"tmp/", "", 0o55},
		{"tmp/scratch", "t", 0o644},
		{"workspace/", "", 0},
		{"workspace/a/", "", 0o55},
		{"workspace/a/b/", "", 0},
		{"workspace/a/b/c.json", `{"x": 1}`, 0o644},
		{"workspace/a.dir/", "", 0},
		{"workspace/a.dir/inner.txt", "order", 0o644},
		{"workspace/a.txt", "hello", 0o600},
		{"workspace/big.txt", strings.Repeat("compressible line\n", 20000), 0o644},
		{"workspace/empty", "", 0o644},
		{"workspace/random.bin", string(random), 0o644},
		{"workspace/ünïcode 🎉.txt", "snow ☃", 0o644},
	}
	budgets := map[string]int64{"cap:tool-call:mcp:a": 3, "cap:tool-call:mcp:b": -1}
	var digests [][32]byte
	var sizes []int
	for _, compress := range []bool{false, true} {
		data := write(t, compress, budgets, entries)
		got, ps, err := restore(data)
		if err != nil {
			t.Fatalf("compress=%v: %v", compress, err)
		}
		for _, f := range entries {
			if got[f.path] != f.data {
				t.Fatalf("compress=%v: %s reads back %d bytes, want %d", compress, f.path, len(got[f.path]), len(f.data))
			}
		}
		if len(got) != len(entries) {
			t.Fatalf("compress=%v: %d entries, want %d", compress, len(got), len(entries))
		}
		if ps.Budgets["cap:tool-call:mcp:a"] != 3 || ps.Budgets["cap:tool-call:mcp:b"] != 0 || len(ps.Budgets) != 2 {
			t.Fatalf("compress=%v: budgets %v", compress, ps.Budgets)
		}
		// The quota's cost: the root, each entry, each file's blocks.
		cost := int64(wire.DiskEntryCost) * int64(1+len(entries))
		for _, f := range entries {
			cost += snapshot.RoundBlock(int64(len(f.data)))
		}
		if ps.Cost != cost {
			t.Fatalf("compress=%v: cost %d, want %d", compress, ps.Cost, cost)
		}
		// The second reading of the format agrees on what the trailer covers.
		if resealed := snapshottest.Reseal(data, testKey); !bytes.Equal(resealed, data) {
			t.Fatalf("compress=%v: snapshottest frames the snapshot differently", compress)
		}
		digests = append(digests, ps.Digest)
		sizes = append(sizes, len(data))
	}
	if digests[0] != digests[1] {
		t.Fatal("compressing changed the files digest")
	}
	if sizes[1] >= sizes[0]-300000 {
		t.Fatalf("compressed snapshot of %d bytes, stored %d", sizes[1], sizes[0])
	}
	// The random file is stored as it is even when compressing.
	if data := write(t, true, nil, entries); !bytes.Contains(data, random) {
		t.Fatal("incompressible data was compressed")
	}
}

func TestCheckPath(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"tmp", ""},
		{"workspace/a b/ü", ""},
		{"", "empty path"},
		{"/tmp/a", "absolute path"},
		{"etc/passwd", "outside /tmp and /workspace"},
		{"workspace/../x", `component ".."`},
		{"workspace//x", `component ""`},
		{"workspace/a\x00", "NUL"},
		{"workspace/\xff", "UTF-8"},
		{"workspace/" + strings.Repeat("a", 256), "longer than 255"},
		{"workspace/" + strings.Repeat("a/", 2100), "longer than 4096"},
	} {
		err := snapshot.CheckPath(tt.path)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckPath(%q) = %v, want %q", tt.path, err, tt.want)
		}
	}
}

// TestParseHostile holds the snapshots the host's restore refuses
// (host's TestRestoreHostileSnapshots, which also checks that a refused
// restore changes no file): each is refused here, by Parse or while its
// files are read, with an error naming what is wrong.
func TestParseHostile(t *testing.T) {
	good := write(t, false, nil, []file{{"tmp/", "", 0o55}, {"workspace/", "", 0o55}})
	zeros := make([]byte, 8<<20)
	bomb := snapshottest.Deflate(zeros)
	base := func() *snapshottest.Builder { return newSnap().Dir("tmp", 0o755).Dir("workspace", 0o755) }
	flipped := append([]byte(nil), good...)
	flipped[len(snapshot.Magic)+3] ^= 1
	goodFile := write(t, false, nil, []file{{"tmp/", "", 0o55}, {"workspace/", "", 0o55}, {"workspace/data.txt", "some data that is stored as it is", 0o644}})
	flippedData := append([]byte(nil), goodFile...)
	i := bytes.Index(flippedData, []byte("stored as it is"))
	flippedData[i] ^= 1
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too few"},
		{"not a snapshot", []byte(strings.Repeat("x", 100)), "not an amla-sandbox snapshot"},
		{"future version", append([]byte(snapshot.Magic), append([]byte{9}, make([]byte, 40)...)...), "version 9 is not supported"},
		{"version 1 (unauthenticated)", append([]byte(snapshot.Magic), append([]byte{1}, make([]byte, 40)...)...), "version 1 is not supported (this build reads version 2; older versions carry no authentication"},
		{"another key", snapshottest.Reseal(goodFile, []byte("another application's durable key")), "authentication failed"},
		{"a SHA-256 trailer", snapshottest.SHA256Reseal(goodFile), "authentication failed"},
		{"truncated", good[:len(good)-5], "damaged"},
		{"truncated in a file's data", goodFile[:len(goodFile)-40], "damaged"},
		{"tampered byte", flipped, "damaged"},
		{"tampered budget, resealed with another key", snapshottest.Reseal(flipped, []byte("not the key of this sandbox!")), "authentication failed"},
		{"tampered file data", flippedData, "do not match its files digest"},
		{"path traversal", base().File("workspace/../../../etc/x", 0o644, 1, 0, []byte("x")).Done(nil), `component ".."`},
		{"absolute path", base().File("/etc/passwd", 0o644, 1, 0, []byte("x")).Done(nil), "absolute path"},
		{"outside the sandbox dirs", newSnap().Dir("etc", 0o755).Done(nil), "outside /tmp and /workspace"},
		{"symlink record", base().Raw(9).Done(nil), "unknown record type 9"},
		{"device file bits", base().File("workspace/dev", 0o20644, 0, 0, nil).Done(nil), "has mode"},
		{"setuid", base().File("workspace/s", 0o4755, 0, 0, nil).Done(nil), "has mode"},
		{"NUL in a name", base().File("workspace/a\x00b", 0o644, 0, 0, nil).Done(nil), "NUL"},
		{"dot component", base().File("workspace/./a", 0o644, 0, 0, nil).Done(nil), `component "."`},
		{"file before its directory", base().File("workspace/d/a", 0o644, 0, 0, nil).Done(nil), "before its directory"},
		{"duplicate", base().File("workspace/a", 0o644, 0, 0, nil).File("workspace/a", 0o644, 0, 0, nil).Done(nil), "walk order"},
		{"file under a file", base().File("workspace/a", 0o644, 0, 0, nil).File("workspace/a/b", 0o644, 0, 0, nil).Done(nil), "before its directory"},
		{"missing workspace", newSnap().Dir("tmp", 0o755).Done(nil), "no /workspace directory"},
		{"declared size past the data", base().File("workspace/a", 0o644, 1000, 0, []byte("short")).Done(nil), "damaged or truncated"},
		{"decompression bomb", base().File("workspace/bomb", 0o644, 4096, 1, bomb).Done(nil), "inflates to more bytes than it declares"},
		{"inflates short", base().File("workspace/short", 0o644, 16<<20, 1, bomb).Done(nil), "fewer bytes"},
		{"garbage compressed data", base().File("workspace/g", 0o644, 10, 1, []byte{0xff, 0xff, 0xff}).Done(nil), "compressed data"},
		{"files digest mismatch", base().File("workspace/a", 0o644, 1, 0, []byte("x")).Done(bytes.Repeat([]byte{7}, 32)), "do not match its files digest"},
		{"bytes after the end", base().Raw(snapshottest.RecEnd).Raw(make([]byte, 32)...).Raw(1, 2, 3).Seal(), "3 bytes after its end"},
		{"unknown method", base().File("workspace/a", 0o644, 1, 7, []byte("x")).Done(nil), "unknown method 7"},
		{"budget keys unsorted", base().Raw(snapshottest.RecBudget).Raw(durable.AppendString(nil, "b")...).Raw(1).Raw(snapshottest.RecBudget).Raw(durable.AppendString(nil, "a")...).Raw(1).Done(nil), "sorted"},
		{"a file after the budgets", base().Raw(snapshottest.RecBudget).Raw(durable.AppendString(nil, "a")...).Raw(1).File("workspace/a", 0o644, 0, 0, nil).Done(nil), "after the budgets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := restore(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if !errors.Is(err, snapshot.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestCostBeforeInflating: a file's declared size counts in Cost before a
// byte of it is inflated, so a quota refuses a bomb for what it declares.
func TestCostBeforeInflating(t *testing.T) {
	bomb := snapshottest.Deflate(make([]byte, 1<<20))
	data := newSnap().Dir("tmp", 0o755).Dir("workspace", 0o755).File("workspace/huge", 0o644, 1<<40, 1, bomb[:10]).Done(nil)
	ps, err := snapshot.Parse(data, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Cost < 1<<40 {
		t.Fatalf("cost %d of a file declaring 1 TiB", ps.Cost)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(newSnap().Dir("tmp", 0o755).Dir("workspace", 0o755).File("workspace/a", 0o644, 1, 0, []byte("x")).Done(nil))
	f.Add([]byte(snapshot.Magic))
	f.Add(newSnap().Dir("tmp", 0o755).Dir("workspace", 0o755).Session("python", [32]byte{}, 64<<10, [][2]uint64{{0, 5}}, 1, []byte{0, 2, 'h', 'i', 9, 1, 'x'}).Done(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Fuzzed bytes are resealed under the key, so they reach every
		// check after authentication.
		if len(data) > len(snapshot.Magic) {
			data = append(append([]byte(snapshot.Magic), snapshot.Version), data[len(snapshot.Magic)+1:]...)
		}
		data = snapshottest.Reseal(data, testKey)
		ps, err := snapshot.Parse(data, testKey)
		if err != nil {
			if !errors.Is(err, snapshot.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		for _, e := range ps.Entries {
			if err := snapshot.CheckPath(e.Path); err != nil {
				t.Fatalf("accepted %q: %v", e.Path, err)
			}
		}
		for i := range ps.Sessions {
			s := &ps.Sessions[i]
			err := s.Ranges(func(off uint64, data []byte) error {
				if off+uint64(len(data)) > s.MemorySize {
					t.Fatalf("a range of %d bytes at %d past a memory of %d", len(data), off, s.MemorySize)
				}
				return nil
			})
			if err != nil && !errors.Is(err, snapshot.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		}
	})
}
