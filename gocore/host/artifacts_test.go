package host

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/guestcache"
)

// The engine's side of the compiled-guest cache: the version in every key,
// compiling into the cache, loading only verified artifacts. The cache's
// own rules (keys, trust, locks, pruning) are tested in gocore/guestcache.

func TestLinkedWasmtimeVersionComesFromTheBuild(t *testing.T) {
	v, err := LinkedWasmtimeVersion()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+(\.\d+\.\d+)?$`).MatchString(v) {
		t.Fatalf("version %q does not look like a release", v)
	}
}

func TestEngineRecordNamesTheVersion(t *testing.T) {
	v, err := engineVersion(wasmtime.NewEngine())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+(\.\d+)*$`).MatchString(v) {
		t.Fatalf("version %q", v)
	}
}

func writeWat(t *testing.T, dir, wat string) string {
	t.Helper()
	wasm, err := wasmtime.Wat2Wasm(wat)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "guest.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEnsureCachedCompilesOnceAcrossConcurrentCallers: with the engine as
// the compiler, concurrent callers get one artifact, compiled once, that
// this engine loads.
func TestEnsureCachedCompilesOnceAcrossConcurrentCallers(t *testing.T) {
	dir := t.TempDir()
	wasm := writeWat(t, dir, `(module (func (export "run")))`)
	cache := filepath.Join(dir, "cache")
	const n = 4
	var wg sync.WaitGroup
	entries := make([]guestcache.Entry, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			entries[i], errs[i] = ensureCached(cache, wasm, nil)
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
	}
	if compiled != 1 {
		t.Fatalf("%d callers compiled, want 1", compiled)
	}
	if _, err := loadCached(sharedEngine(), wasm, entries[0].Path); err != nil {
		t.Fatalf("artifact does not load: %v", err)
	}
}

func TestEnsureCachedReportsABadGuest(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.wasm")
	if err := os.WriteFile(bad, []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ensureCached(filepath.Join(dir, "cache"), bad, nil); err == nil || !strings.Contains(err.Error(), "bad.wasm") {
		t.Fatalf("err = %v, want one naming bad.wasm", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "cache", "*.lock")); len(left) != 0 {
		t.Fatalf("locks left behind: %v", left)
	}
}

func TestPrecompilePortableLoadsInTheRuntimeEngine(t *testing.T) {
	dir := t.TempDir()
	wasm := writeWat(t, dir, `(module (func (export "run") (result i32) i32.const 7))`)
	out := filepath.Join(dir, "shipped", "g.cwasm")
	if _, err := PrecompilePortable(wasm, out); err != nil {
		t.Fatal(err)
	}
	m, err := wasmtime.NewModuleDeserializeFile(sharedEngine(), out)
	if err != nil {
		t.Fatalf("shipped artifact does not load: %v", err)
	}
	if len(m.Exports()) != 1 {
		t.Fatalf("exports: %d", len(m.Exports()))
	}
	if _, err := PrecompilePortable(filepath.Join(dir, "missing.wasm"), out); err == nil || !strings.Contains(err.Error(), "missing.wasm") {
		t.Fatalf("missing guest: err = %v", err)
	}
}

// TestTamperedArtifactIsRecompiled: LoadGuest compiles the guest again
// rather than load a swapped artifact, and leaves a verified one.
func TestTamperedArtifactIsRecompiled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	cache := filepath.Join(dir, "g.cwasm")
	if err := guestcache.WriteArtifact(cache, serialized(t, testGuest)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cache, serialized(t, testSnapGuest), 0o600)
	g, err := LoadGuest(testGuest.WasmPath, cache)
	if err != nil {
		t.Fatal(err)
	}
	if g.FromCache || g.reactor {
		t.Fatalf("the tampered artifact was loaded (fromCache=%v reactor=%v)", g.FromCache, g.reactor)
	}
	if err := guestcache.VerifyArtifact(testGuest.WasmPath, cache); err != nil {
		t.Fatalf("no verified artifact after recompiling: %v", err)
	}
}

func serialized(t *testing.T, g *GuestModule) []byte {
	t.Helper()
	b, err := g.module.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShippedArtifactIsAdopted: the artifact the package ships beside the
// guest (precompiled/<name>), put into the cache by a hard link or a copy,
// is loaded without compiling, and gets its digest.
func TestShippedArtifactIsAdopted(t *testing.T) {
	for _, link := range []bool{true, false} {
		pkg := t.TempDir()
		wasm := filepath.Join(pkg, "guest.wasm")
		b, _ := os.ReadFile(testGuest.WasmPath)
		os.WriteFile(wasm, b, 0o644)
		os.MkdirAll(filepath.Join(pkg, "precompiled"), 0o755)
		shipped := filepath.Join(pkg, "precompiled", "g.cwasm")
		if err := os.WriteFile(shipped, serialized(t, testGuest), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "cache")
		os.MkdirAll(dir, 0o755)
		cache := filepath.Join(dir, "g.cwasm")
		if link {
			os.Link(shipped, cache)
		} else {
			art, _ := os.ReadFile(shipped)
			os.WriteFile(cache, art, 0o600)
		}
		g, err := LoadGuest(wasm, cache)
		if err != nil || !g.FromCache {
			t.Fatalf("link=%v: shipped artifact not loaded: %v", link, err)
		}
		if _, err := os.Stat(cache + ".mac"); err != nil {
			t.Fatalf("link=%v: no digest written: %v", link, err)
		}
	}
}

// TestLoadGuestLocksPerModule: while one module loads (here: its slot is
// held, as during a long compile), another loads without waiting.
func TestLoadGuestLocksPerModule(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "busy.cwasm")
	other := filepath.Join(t.TempDir(), "other.cwasm")
	// Both verified artifacts: loading them takes no compile.
	if err := guestcache.WriteArtifact(cache, serialized(t, testSnapGuest)); err != nil {
		t.Fatal(err)
	}
	if err := guestcache.WriteArtifact(other, serialized(t, testGuest)); err != nil {
		t.Fatal(err)
	}
	key := testSnapGuest.WasmPath + "\x00" + cache
	modulesMu.Lock()
	slot := &guestSlot{}
	modules[key] = slot
	modulesMu.Unlock()
	slot.mu.Lock()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // waits for the busy module
		defer wg.Done()
		LoadGuest(testSnapGuest.WasmPath, cache)
	}()
	start := time.Now()
	if _, err := LoadGuest(testGuest.WasmPath, other); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("another module waited %s", d)
	}
	select {
	case <-waitGroupDone(&wg):
		t.Fatal("the busy module's caller did not wait for it")
	default:
	}
	slot.mu.Unlock()
	wg.Wait()
}

func waitGroupDone(wg *sync.WaitGroup) <-chan struct{} {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	time.Sleep(10 * time.Millisecond)
	return ch
}

// TestEpochTicksOnlyDuringRuns: no timer runs in an idle process (the
// ticker lingers epochLinger after the last run, then stops).
func TestEpochTicksOnlyDuringRuns(t *testing.T) {
	sb := newTestSandbox(t, Limits{Timeout: 200 * time.Millisecond}, nil)
	if res := run(t, sb, "spin", nil); res.ErrorKind != "timeout" {
		t.Fatalf("spin: %+v", res)
	}
	time.Sleep(epochLinger + 10*epochTick)
	before := epochTicks.Load()
	time.Sleep(20 * epochTick)
	if n := epochTicks.Load() - before; n != 0 {
		t.Fatalf("the epoch ticked %d times with no run active", n)
	}
	epochMu.Lock()
	stopped := !epochTicking && epochRuns == 0
	epochMu.Unlock()
	if !stopped {
		t.Fatal("the epoch ticker is still running")
	}
	// And it starts again for the next run.
	if res := run(t, sb, "spin", nil); res.ErrorKind != "timeout" {
		t.Fatalf("spin after the ticker stopped: %+v", res)
	}
}
