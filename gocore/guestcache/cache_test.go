package guestcache

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testVersion stands for the linked wasmtime's version: keys and pruning
// only compare it.
const testVersion = "39.0.1"

func TestWasmtimeVersionFrom(t *testing.T) {
	tests := []struct {
		name    string
		deps    []*debug.Module
		want    string
		wantErr string
	}{
		{"plain", []*debug.Module{{Path: "x/y", Version: "v1.0.0"}, {Path: "github.com/bytecodealliance/wasmtime-go/v39", Version: "v39.0.1"}}, "39.0.1", ""},
		{"replaced", []*debug.Module{{Path: "github.com/bytecodealliance/wasmtime-go/v40", Version: "v40.0.0", Replace: &debug.Module{Path: "../wt", Version: "v40.0.2"}}}, "40.0.2", ""},
		{"replaced by a directory", []*debug.Module{{Path: "github.com/bytecodealliance/wasmtime-go/v40", Version: "v40.0.0", Replace: &debug.Module{Path: "../wt"}}}, "", "has no version"},
		{"absent", []*debug.Module{{Path: "x/y", Version: "v1.0.0"}}, "", "not among"},
		{"a lookalike module", []*debug.Module{{Path: "github.com/bytecodealliance/wasmtime-goodies", Version: "v1.0.0"}}, "", "not among"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := VersionFromBuildInfo(&debug.BuildInfo{Deps: tt.deps})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPythonPlatformNames(t *testing.T) {
	tests := []struct{ goos, goarch, platform, machine string }{
		{"linux", "amd64", "linux", "x86_64"},
		{"linux", "arm64", "linux", "aarch64"},
		{"darwin", "arm64", "darwin", "arm64"},
		{"darwin", "amd64", "darwin", "x86_64"},
		{"windows", "amd64", "win32", "AMD64"},
	}
	for _, tt := range tests {
		if p, m := pythonPlatform(tt.goos), pythonMachine(tt.goos, tt.goarch); p != tt.platform || m != tt.machine {
			t.Errorf("%s/%s: got %s-%s, want %s-%s", tt.goos, tt.goarch, p, m, tt.platform, tt.machine)
		}
	}
}

func TestParseEngineSectionRejectsOtherInput(t *testing.T) {
	tests := []struct {
		name, input, wantErr string
	}{
		{"empty", "", "not ELF"},
		{"wasm, not an artifact", "\x00asm\x01\x00\x00\x00", "not ELF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEngineSection([]byte(tt.input))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// writeGuest writes a stand-in guest: the cache keys a guest by its
// bytes and never parses them.
func writeGuest(t *testing.T, dir, text string) string {
	t.Helper()
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), text...)
	path := filepath.Join(dir, "guest.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFileNameFollowsTheBytes(t *testing.T) {
	dir := t.TempDir()
	wasm := writeGuest(t, dir, `(module (func (export "a")))`)
	a, err := FileName(wasm, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}-wt\d+[.\d]*-\w+-\w+\.cwasm$`).MatchString(a) {
		t.Fatalf("unexpected name %q", a)
	}
	// Same bytes, other file: same key. Other bytes: other key.
	if err := os.WriteFile(filepath.Join(dir, "copy.wasm"), mustRead(t, wasm), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := FileName(filepath.Join(dir, "copy.wasm"), testVersion); b != a {
		t.Fatalf("copy: %q != %q", b, a)
	}
	time.Sleep(10 * time.Millisecond) // a new mtime, so the remembered digest is not reused
	writeGuest(t, dir, `(module (func (export "b")))`)
	if c, _ := FileName(wasm, testVersion); c == a {
		t.Fatalf("changed guest kept key %q", a)
	}
	if _, err := FileName(filepath.Join(dir, "missing.wasm"), testVersion); err == nil || !strings.Contains(err.Error(), "missing.wasm") {
		t.Fatalf("missing file: err = %v", err)
	}
	if _, err := FileName(wasm, ""); err == nil {
		t.Fatal("a key without a wasmtime version")
	}
}

// fakeCompile stands for the host's compiler: it writes a verified
// artifact after a moment (so that concurrent callers overlap) and counts
// its calls.
func fakeCompile(calls *atomic.Int32) CompileFunc {
	return func(wasmPath, outPath string) (time.Duration, error) {
		calls.Add(1)
		wasm, err := os.ReadFile(wasmPath)
		if err != nil {
			return 0, err
		}
		time.Sleep(20 * time.Millisecond)
		return 20 * time.Millisecond, WriteArtifact(outPath, append([]byte("compiled:"), wasm...))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEnsureCompilesOnceAcrossConcurrentCallers(t *testing.T) {
	dir := t.TempDir()
	wasm := writeGuest(t, dir, `(module (func (export "run")))`)
	cache := filepath.Join(dir, "cache")
	const n = 8
	var wg sync.WaitGroup
	var calls atomic.Int32
	entries := make([]Entry, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			entries[i], errs[i] = Ensure(cache, wasm, testVersion, fakeCompile(&calls), nil)
		}(i)
	}
	wg.Wait()
	compiled := 0
	for i := range entries {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if entries[i].Compiled {
			compiled++
		}
		if entries[i].Path != entries[0].Path {
			t.Fatalf("different paths %q, %q", entries[i].Path, entries[0].Path)
		}
	}
	if compiled != 1 || calls.Load() != 1 {
		t.Fatalf("%d callers compiled (%d compiles), want 1", compiled, calls.Load())
	}
	if err := VerifyArtifact(wasm, entries[0].Path); err != nil {
		t.Fatalf("artifact does not verify: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "*.lock"))
	if len(left) != 0 {
		t.Fatalf("locks left behind: %v", left)
	}
	again, err := Ensure(cache, wasm, testVersion, fakeCompile(&calls), func(bool) { t.Fatal("compiled a cached module") })
	if err != nil || again.Compiled || again.Waited {
		t.Fatalf("second call: %+v, %v", again, err)
	}
}

func TestEnsureTakesOverAStaleLock(t *testing.T) {
	dir := t.TempDir()
	wasm := writeGuest(t, dir, `(module)`)
	path, _, err := Path(dir, wasm, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	lock := path + lockSuffix
	if err := os.WriteFile(lock, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * lockStale)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	var waited bool
	var calls atomic.Int32
	e, err := Ensure(dir, wasm, testVersion, fakeCompile(&calls), func(w bool) { waited = waited || w })
	if err != nil || !e.Compiled || !waited {
		t.Fatalf("entry %+v, waited %v, err %v", e, waited, err)
	}
}

func TestEnsureReportsACompileError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.wasm")
	if err := os.WriteFile(bad, []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := func(wasmPath, _ string) (time.Duration, error) {
		return 0, fmt.Errorf("compiling guest module %s: not wasm", wasmPath)
	}
	if _, err := Ensure(filepath.Join(dir, "cache"), bad, testVersion, failing, nil); err == nil || !strings.Contains(err.Error(), "bad.wasm") {
		t.Fatalf("err = %v, want one naming bad.wasm", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "cache", "*.lock")); len(left) != 0 {
		t.Fatalf("locks left behind: %v", left)
	}
}

func TestPrune(t *testing.T) {
	now := time.Now()
	type file struct {
		name string
		size int
		age  time.Duration
	}
	tests := []struct {
		name     string
		files    []file
		keep     []string
		maxBytes int64
		removed  []string
	}{
		{
			name:     "unused past the grace period goes, used and kept stay",
			files:    []file{{"guest-a.cwasm", 10, 2 * time.Hour}, {"guest-b.cwasm", 10, time.Minute}, {"guest-c.cwasm", 10, 48 * time.Hour}},
			keep:     []string{"guest-c.cwasm"},
			maxBytes: 1 << 20,
			removed:  []string{"guest-a.cwasm"},
		},
		{
			name:     "over the cap the least recently used unkept go first",
			files:    []file{{"guest-a.cwasm", 100, 3 * time.Minute}, {"guest-b.cwasm", 100, 2 * time.Minute}, {"guest-c.cwasm", 100, time.Minute}, {"guest-k.cwasm", 100, 5 * time.Minute}},
			keep:     []string{"guest-k.cwasm"},
			maxBytes: 250,
			removed:  []string{"guest-a.cwasm", "guest-b.cwasm"},
		},
		{
			name:     "the kept artifact stays even over the cap",
			files:    []file{{"guest-k.cwasm", 500, time.Hour * 100}},
			keep:     []string{"guest-k.cwasm"},
			maxBytes: 10,
			removed:  []string{},
		},
		{
			name:     "another program's artifacts (another wasmtime) stay, however old",
			files:    []file{{"0123456789abcdef-wt50.0.1-linux-x86_64.cwasm", 100, 1000 * time.Hour}, {"guest-a.cwasm", 10, 2 * time.Hour}},
			maxBytes: 10,
			removed:  []string{"guest-a.cwasm"},
		},
		{
			name:     "orphaned temporaries and stale locks go, fresh ones and other files stay",
			files:    []file{{".tmp-1.cwasm", 5, 2 * tmpStale}, {".tmp-2.cwasm", 5, time.Second}, {"guest-x.cwasm.lock", 1, 2 * lockStale}, {"guest-y.cwasm.lock", 1, time.Second}, {"notes.txt", 1, 1000 * time.Hour}},
			maxBytes: 1 << 20,
			removed:  []string{".tmp-1.cwasm", "guest-x.cwasm.lock"},
		},
	}
	// Our artifacts carry the linked wasmtime version in their names.
	v := testVersion
	own := regexp.MustCompile(`^guest-[a-z]\.cwasm$`)
	rename := func(names []string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = n
			if own.MatchString(n) {
				out[i] = strings.TrimSuffix(n, ".cwasm") + "-wt" + v + "-linux-x86_64.cwasm"
			}
		}
		return out
	}
	for _, tt := range tests {
		for i := range tt.files {
			tt.files[i].name = rename([]string{tt.files[i].name})[0]
		}
		tt.keep, tt.removed = rename(tt.keep), rename(tt.removed)
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
					t.Fatal(err)
				}
				m := now.Add(-f.age)
				if err := os.Chtimes(p, m, m); err != nil {
					t.Fatal(err)
				}
			}
			var keep []string
			for _, k := range tt.keep {
				keep = append(keep, filepath.Join(dir, k))
			}
			rep, err := Prune(dir, keep, tt.maxBytes, time.Hour, testVersion)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(rep.Removed, ",") != strings.Join(tt.removed, ",") {
				t.Fatalf("removed %v, want %v", rep.Removed, tt.removed)
			}
			for _, r := range tt.removed {
				if _, err := os.Stat(filepath.Join(dir, r)); err == nil {
					t.Fatalf("%s still there", r)
				}
			}
		})
	}
	if rep, err := Prune(filepath.Join(t.TempDir(), "none"), nil, 0, 0, testVersion); err != nil || len(rep.Removed) != 0 {
		t.Fatalf("missing dir: %+v, %v", rep, err)
	}
}

func TestPortableTarget(t *testing.T) {
	tests := []struct {
		goos, goarch, triple string
		wantErr              bool
	}{
		{"linux", "amd64", "x86_64-unknown-linux-gnu", false},
		{"linux", "arm64", "aarch64-unknown-linux-gnu", false},
		{"darwin", "arm64", "aarch64-apple-darwin", false},
		{"darwin", "amd64", "x86_64-apple-darwin", false},
		{"windows", "386", "", true},
	}
	for _, tt := range tests {
		triple, _, err := PortableTarget(tt.goos, tt.goarch)
		if (err != nil) != tt.wantErr || triple != tt.triple {
			t.Errorf("%s/%s: got %q, %v", tt.goos, tt.goarch, triple, err)
		}
	}
}

func TestCompileNote(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "amla_js.wasm")
	if err := os.WriteFile(wasm, make([]byte, 10_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		waiting bool
		want    string
	}{
		{false, "amla-sandbox: compiling the amla_js.wasm guest for this machine, once per install (usually 7-18 s; cached in /c)"},
		{true, "amla-sandbox: waiting for another process compiling the amla_js.wasm guest for this machine, once per install (usually 7-18 s; cached in /c)"},
	}
	for _, tt := range tests {
		if got := compileNote("/c", wasm, tt.waiting); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

// TestAutoPruneDue: the automatic prune is due once per interval per
// directory; a stamp from the future does not block it for ever; the stamp
// is no artifact, so Prune leaves it.
func TestAutoPruneDue(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	steps := []struct {
		at   time.Time
		want bool
	}{
		{now, true},                        // never pruned
		{now.Add(time.Minute), false},      // within the hour
		{now.Add(59 * time.Minute), false}, // still within it
		{now.Add(61 * time.Minute), true},  // an hour after the first
		{now.Add(62 * time.Minute), false}, // within the new hour
		{now.Add(-24 * time.Hour), true},   // the stamp is in this call's future
		{now.Add(-24*time.Hour + time.Second), false},
	}
	for i, st := range steps {
		if got := AutoPruneDue(dir, time.Hour, st.at); got != st.want {
			t.Fatalf("step %d (%v): due %v, want %v", i, st.at.Sub(now), got, st.want)
		}
	}
	if _, err := Prune(dir, nil, 1, 0, "39.0.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, autoPruneStamp)); err != nil {
		t.Fatalf("Prune removed the stamp: %v", err)
	}
}
