package snapshot_test

import (
	"bytes"
	"encoding/hex"
	"os"
	"reflect"
	"strings"
	"testing"

	"amlasandbox/gocore/snapshot"
)

// golden reads testdata/golden.txt: snapshots of one sandbox's files
// (goldenFiles) made by the host before the format was a package of its
// own, stored and compressed, and their files digest. This build must
// write the same bytes and read them back.
func golden(t *testing.T) map[string][]byte {
	t.Helper()
	text, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		name, h, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("golden line %q", line)
		}
		if out[name], err = hex.DecodeString(h); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

var goldenKey = []byte("golden durable key")

type goldenFile struct {
	e    snapshot.Entry
	data string
}

// goldenFiles are the files the golden snapshots hold, in walk order.
func goldenFiles() []goldenFile {
	mtime := func(n int64) int64 { return (1_700_000_000+n)*1_000_000_000 + n*1000 + 7 }
	return []goldenFile{
		{snapshot.Entry{Path: "tmp", Dir: true, Mode: 0o755, MTime: mtime(6)}, ""},
		{snapshot.Entry{Path: "tmp/x", Mode: 0o640, MTime: mtime(3)}, ""},
		{snapshot.Entry{Path: "workspace", Dir: true, Mode: 0o700, MTime: mtime(5)}, ""},
		{snapshot.Entry{Path: "workspace/a.txt", Mode: 0o644, MTime: mtime(2), Size: 5}, "hello"},
		{snapshot.Entry{Path: "workspace/dir", Dir: true, Mode: 0o750, MTime: mtime(4)}, ""},
		{snapshot.Entry{Path: "workspace/dir/big.txt", Mode: 0o600, MTime: mtime(1), Size: 3600}, strings.Repeat("compressible text ", 200)},
	}
}

var goldenBudgets = map[string]int64{"cap:b": 7, "cap:a": -2}

func writeGolden(compress bool) []byte {
	files := goldenFiles()
	est := 0
	for i := range files {
		est += snapshot.Estimate(&files[i].e)
	}
	w := snapshot.NewWriter(goldenKey, compress, est)
	for i := range files {
		f := &files[i]
		if f.e.Dir {
			w.Dir(&f.e)
			continue
		}
		if err := w.File(&f.e, func(dst []byte) error { copy(dst, f.data); return nil }); err != nil {
			panic(err)
		}
	}
	w.Budgets(goldenBudgets)
	return w.Finish()
}

func TestGoldenBytes(t *testing.T) {
	g := golden(t)
	for _, c := range []struct {
		name     string
		compress bool
	}{{"compress=false", false}, {"compress=true", true}} {
		if got := writeGolden(c.compress); !bytes.Equal(got, g[c.name]) {
			t.Errorf("%s: this build writes\n%x\nand the format is\n%x", c.name, got, g[c.name])
		}
	}
	d := snapshot.NewDigest()
	for _, f := range goldenFiles() {
		d.Header(&f.e)
		d.Write([]byte(f.data))
	}
	if sum := d.Sum(); !bytes.Equal(sum[:], g["digest"]) {
		t.Errorf("files digest %x, the format's %x", sum, g["digest"])
	}
}

func TestGoldenRead(t *testing.T) {
	g := golden(t)
	for _, name := range []string{"compress=false", "compress=true"} {
		ps, err := snapshot.Parse(g[name], goldenKey)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := goldenFiles()
		if len(ps.Entries) != len(files) {
			t.Fatalf("%s: %d entries, want %d", name, len(ps.Entries), len(files))
		}
		d := snapshot.NewDigest()
		for i := range ps.Entries {
			e, want := &ps.Entries[i], files[i]
			got := *e
			if got.Path != want.e.Path || got.Dir != want.e.Dir || got.Mode != want.e.Mode || got.MTime != want.e.MTime || got.Size != want.e.Size {
				t.Fatalf("%s: entry %d is %+v, want %+v", name, i, got, want.e)
			}
			d.Header(e)
			if e.Dir {
				continue
			}
			var b bytes.Buffer
			if _, err := b.ReadFrom(e.Open()); err != nil || b.String() != want.data {
				t.Fatalf("%s: %s reads %q (%v)", name, e.Path, b.String(), err)
			}
			d.Write(b.Bytes())
		}
		if err := ps.CheckDigest(d.Sum()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]int64{"cap:a": 0, "cap:b": 7}; !reflect.DeepEqual(ps.Budgets, want) {
			t.Fatalf("%s: budgets %v, want %v", name, ps.Budgets, want)
		}
		if _, err := snapshot.Parse(g[name], []byte("another key")); err == nil || !strings.Contains(err.Error(), "authentication failed") {
			t.Fatalf("%s under another key: %v", name, err)
		}
	}
}
