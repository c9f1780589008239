package host

import (
	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/snapshot/snapshottest"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// budgetAuth is an Authorizer with budgets, as capability.Policy has.
type budgetAuth struct{ left map[string]int64 }

func (b *budgetAuth) Authorize(string, json.RawMessage) error { return nil }

func (b *budgetAuth) BudgetsLeft() map[string]int64 {
	out := map[string]int64{}
	for k, v := range b.left {
		out[k] = v
	}
	return out
}

func (b *budgetAuth) CapBudgets(left map[string]int64) {
	for k, v := range left {
		if cur, ok := b.left[k]; !ok || v < cur {
			b.left[k] = v
		}
	}
}

// writeTree puts files (path under root -> contents) into a sandbox's
// directory directly.
func writeTree(t *testing.T, sb *Sandbox, files map[string]string) {
	t.Helper()
	for p, data := range files {
		host := filepath.Join(sb.Root(), filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(host, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree returns every file under a sandbox's tmp and workspace, with
// the mode and mtime of every entry.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := walkFiles(root, func(e *snapshot.Entry, host string) error {
		meta := e.Mode | 0
		key := e.Path
		if e.Dir {
			out[key+"/"] = string(rune(meta)) + time.Unix(0, e.MTime).UTC().Format(time.RFC3339Nano)
			return nil
		}
		b, err := os.ReadFile(host)
		out[key] = string(rune(meta)) + time.Unix(0, e.MTime).UTC().Format(time.RFC3339Nano) + "|" + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(map[bool]string{false: "stored", true: "compressed"}[compress], func(t *testing.T) {
			auth := &budgetAuth{left: map[string]int64{"cap:tool-call:mcp:a": 3}}
			sb := newTestSandbox(t, Limits{}, auth)
			random := make([]byte, 100<<10)
			rand.Read(random)
			writeTree(t, sb, map[string]string{
				"workspace/a.txt":           "hello",
				"workspace/a/b/c.json":      `{"x": 1}`,
				"workspace/big.txt":         strings.Repeat("compressible line\n", 20000),
				"workspace/random.bin":      string(random),
				"workspace/empty":           "",
				"workspace/ünïcode 🎉.txt":   "snow ☃",
				"tmp/scratch":               "t",
				"workspace/a.dir/inner.txt": "order",
			})
			if err := os.Chmod(filepath.Join(sb.Root(), "workspace/a.txt"), 0o600); err != nil {
				t.Fatal(err)
			}
			old := time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
			if err := os.Chtimes(filepath.Join(sb.Root(), "workspace/a/b/c.json"), old, old); err != nil {
				t.Fatal(err)
			}
			want := readTree(t, sb.Root())
			data, err := sb.Snapshot(SnapshotOptions{Compress: compress})
			if err != nil {
				t.Fatal(err)
			}
			digest, err := sb.FilesDigest()
			if err != nil {
				t.Fatal(err)
			}
			ps, err := snapshot.Parse(data, testKey())
			if err != nil {
				t.Fatal(err)
			}
			if ps.Digest != digest {
				t.Fatal("the snapshot's files digest differs from the sandbox's")
			}
			auth2 := &budgetAuth{left: map[string]int64{"cap:tool-call:mcp:a": 10, "cap:tool-call:mcp:b": 1}}
			sb2 := newTestSandbox(t, Limits{}, auth2)
			writeTree(t, sb2, map[string]string{"workspace/gone.txt": "replaced by the restore"})
			if err := sb2.Restore(data); err != nil {
				t.Fatal(err)
			}
			if got := readTree(t, sb2.Root()); !equalTrees(got, want) {
				t.Fatalf("restored tree differs:\n got %v\nwant %v", keys(got), keys(want))
			}
			if d2, _ := sb2.FilesDigest(); d2 != digest {
				t.Fatal("restored files digest differs")
			}
			if auth2.left["cap:tool-call:mcp:a"] != 3 || auth2.left["cap:tool-call:mcp:b"] != 1 {
				t.Fatalf("budgets after restore: %v", auth2.left)
			}
			// The restored sandbox runs scripts on the restored files.
			res := run(t, sb2, "read /workspace/a.txt", nil)
			if res.Stdout != "hello\n" {
				t.Fatalf("a run after restore: %+v", res)
			}
		})
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		if len(v) > 40 {
			v = v[:40]
		}
		out = append(out, k+"="+v)
	}
	return out
}

func TestForkIsIndependent(t *testing.T) {
	auth := &budgetAuth{left: map[string]int64{"cap:tool-call:mcp:a": 2}}
	sb := newTestSandbox(t, Limits{}, auth)
	writeTree(t, sb, map[string]string{"workspace/f.txt": "one", "workspace/d/g.txt": "two"})
	auth2 := &budgetAuth{left: map[string]int64{"cap:tool-call:mcp:a": 5}}
	fork := newTestSandbox(t, Limits{}, auth2)
	if err := sb.CopyTo(fork); err != nil {
		t.Fatal(err)
	}
	if !equalTrees(readTree(t, sb.Root()), readTree(t, fork.Root())) {
		t.Fatal("the fork's files differ from the original's")
	}
	if auth2.left["cap:tool-call:mcp:a"] != 2 {
		t.Fatalf("fork budgets: %v", auth2.left)
	}
	writeTree(t, fork, map[string]string{"workspace/f.txt": "changed in the fork", "workspace/new.txt": "x"})
	if b, _ := os.ReadFile(filepath.Join(sb.Root(), "workspace/f.txt")); string(b) != "one" {
		t.Fatalf("the original changed with the fork: %q", b)
	}
	if _, err := os.Stat(filepath.Join(sb.Root(), "workspace/new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a file made in the fork appeared in the original")
	}
	if err := sb.CopyTo(sb); err == nil {
		t.Fatal("copying a sandbox onto itself must fail")
	}
}

func TestSnapshotWhileRunning(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	r, err := sb.Start("shell", "call mcp:block {}", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for ev := r.Step(time.Second, true); ev.Kind != "request"; ev = r.Step(time.Second, true) {
		if ev.Kind == "done" {
			t.Fatalf("run ended: %+v", ev.Result)
		}
	}
	_, err = sb.Snapshot(SnapshotOptions{})
	if err == nil || !strings.Contains(err.Error(), "a run is in progress") {
		t.Fatalf("snapshot during a run: %v", err)
	}
	if err := sb.Restore(nil); err == nil {
		t.Fatal("restore of nothing must fail")
	}
	r.Cancel()
	r.WaitDone()
	if _, err := sb.Snapshot(SnapshotOptions{}); err != nil {
		t.Fatalf("snapshot after the run: %v", err)
	}
}

// newSnap starts snapshot bytes, record by record, sealed under the test
// sandboxes' key (gocore/snapshot/snapshottest), so hostile content
// reaches the checks after authentication.
func newSnap() *snapshottest.Builder { return snapshottest.New(testKey()) }

// testKey is the durable key of test sandboxes (made without one).
func testKey() []byte { return ProcessDurableKey() }

// resealSnapshot gives a snapshot's body a valid trailer under key, so
// checks after authentication are reached.
func resealSnapshot(data, key []byte) []byte { return snapshottest.Reseal(data, key) }

// sha256Resealed gives a snapshot the trailer of format version 1 (the
// SHA-256 of its skeleton), as someone without the key would.
func sha256Resealed(data []byte) []byte { return snapshottest.SHA256Reseal(data) }

func TestRestoreHostileSnapshots(t *testing.T) {
	good, err := newTestSandbox(t, Limits{}, nil).Snapshot(SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 8<<20)
	bomb := snapshottest.Deflate(zeros)
	base := func() *snapshottest.Builder { return newSnap().Dir("tmp", 0o755).Dir("workspace", 0o755) }
	flipped := append([]byte(nil), good...)
	flipped[len(snapshot.Magic)+3] ^= 1
	withFile := newTestSandbox(t, Limits{}, nil)
	writeTree(t, withFile, map[string]string{"workspace/data.txt": "some data that is stored as it is"})
	goodFile, err := withFile.Snapshot(SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flippedData := append([]byte(nil), goodFile...)
	i := bytes.Index(flippedData, []byte("stored as it is"))
	flippedData[i] ^= 1
	tests := []struct {
		name  string
		data  []byte
		quota int64
		want  string
	}{
		{"empty", nil, 0, "too few"},
		{"not a snapshot", []byte(strings.Repeat("x", 100)), 0, "not an amla-sandbox snapshot"},
		{"future version", append([]byte(snapshot.Magic), append([]byte{9}, make([]byte, 40)...)...), 0, "version 9 is not supported"},
		{"version 1 (unauthenticated)", append([]byte(snapshot.Magic), append([]byte{1}, make([]byte, 40)...)...), 0, "version 1 is not supported (this build reads version 2; older versions carry no authentication"},
		{"another key", resealSnapshot(goodFile, []byte("another application's durable key")), 0, "authentication failed"},
		{"a SHA-256 trailer", sha256Resealed(goodFile), 0, "authentication failed"},
		{"truncated", good[:len(good)-5], 0, "damaged"},
		{"truncated in a file's data", goodFile[:len(goodFile)-40], 0, "damaged"},
		{"tampered byte", flipped, 0, "damaged"},
		{"tampered budget, resealed with another key", resealSnapshot(flipped, []byte("not the key of this sandbox!")), 0, "authentication failed"},
		{"tampered file data", flippedData, 0, "do not match its files digest"},
		{"path traversal", base().File("workspace/../../../etc/x", 0o644, 1, 0, []byte("x")).Done(nil), 0, `component ".."`},
		{"absolute path", base().File("/etc/passwd", 0o644, 1, 0, []byte("x")).Done(nil), 0, "absolute path"},
		{"outside the sandbox dirs", newSnap().Dir("etc", 0o755).Done(nil), 0, "outside /tmp and /workspace"},
		{"symlink record", base().Raw(9).Done(nil), 0, "unknown record type 9"},
		{"device file bits", base().File("workspace/dev", 0o20644, 0, 0, nil).Done(nil), 0, "has mode"},
		{"setuid", base().File("workspace/s", 0o4755, 0, 0, nil).Done(nil), 0, "has mode"},
		{"NUL in a name", base().File("workspace/a\x00b", 0o644, 0, 0, nil).Done(nil), 0, "NUL"},
		{"dot component", base().File("workspace/./a", 0o644, 0, 0, nil).Done(nil), 0, `component "."`},
		{"file before its directory", base().File("workspace/d/a", 0o644, 0, 0, nil).Done(nil), 0, "before its directory"},
		{"duplicate", base().File("workspace/a", 0o644, 0, 0, nil).File("workspace/a", 0o644, 0, 0, nil).Done(nil), 0, "walk order"},
		{"file under a file", base().File("workspace/a", 0o644, 0, 0, nil).File("workspace/a/b", 0o644, 0, 0, nil).Done(nil), 0, "before its directory"},
		{"missing workspace", newSnap().Dir("tmp", 0o755).Done(nil), 0, "no /workspace directory"},
		{"declared size past the data", base().File("workspace/a", 0o644, 1000, 0, []byte("short")).Done(nil), 0, "damaged or truncated"},
		{"sizes beyond the quota", base().File("workspace/huge", 0o644, 1<<40, 1, bomb[:10]).Done(nil), 1 << 20, "more than this sandbox's disk_quota"},
		{"decompression bomb", base().File("workspace/bomb", 0o644, 4096, 1, bomb).Done(nil), 0, "inflates to more bytes than it declares"},
		{"inflates short", base().File("workspace/short", 0o644, 16<<20, 1, bomb).Done(nil), 64 << 20, "fewer bytes"},
		{"garbage compressed data", base().File("workspace/g", 0o644, 10, 1, []byte{0xff, 0xff, 0xff}).Done(nil), 0, "compressed data"},
		{"files digest mismatch", base().File("workspace/a", 0o644, 1, 0, []byte("x")).Done(bytes.Repeat([]byte{7}, 32)), 0, "do not match its files digest"},
		{"bytes after the end", base().Raw(snapshottest.RecEnd).Raw(make([]byte, 32)...).Raw(1, 2, 3).Seal(), 0, "3 bytes after its end"},
		{"unknown method", base().File("workspace/a", 0o644, 1, 7, []byte("x")).Done(nil), 0, "unknown method 7"},
		{"budget keys unsorted", base().Raw(snapshottest.RecBudget).Raw(durable.AppendString(nil, "b")...).Raw(1).Raw(snapshottest.RecBudget).Raw(durable.AppendString(nil, "a")...).Raw(1).Done(nil), 0, "sorted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The sandbox's directory goes in a directory of this test's own,
			// so what appears beside it can only come from the restore (the
			// system temp directory also gets other processes' sandboxes).
			t.Setenv("TMPDIR", t.TempDir())
			sb := newTestSandbox(t, Limits{DiskQuota: tt.quota}, nil)
			writeTree(t, sb, map[string]string{"workspace/keep.txt": "kept"})
			before := readTree(t, sb.Root())
			outside := listDir(t, filepath.Dir(sb.base))
			err := sb.Restore(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if !errors.Is(err, ErrSnapshot) {
				t.Fatalf("error %v does not wrap ErrSnapshot", err)
			}
			if !equalTrees(readTree(t, sb.Root()), before) {
				t.Fatal("a failed restore changed the sandbox's files")
			}
			if got := listDir(t, sb.base); strings.Contains(strings.Join(got, " "), "restore-") {
				t.Fatalf("a staging directory was left behind: %v", got)
			}
			if got := listDir(t, filepath.Dir(sb.base)); len(got) > len(outside) && !sameSet(got, outside) {
				t.Fatalf("a failed restore wrote outside the sandbox's directory: %v", diff(got, outside))
			}
		})
	}
}

func listDir(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func sameSet(a, b []string) bool {
	return len(diff(a, b)) == 0
}

func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] && strings.HasPrefix(x, "amla-") {
			out = append(out, x)
		}
	}
	return out
}
