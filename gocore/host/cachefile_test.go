package host

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCachedArtifactsAreVerified: an artifact is loaded only when it is
// verified as this package's.
func TestCachedArtifactsAreVerified(t *testing.T) {
	command := testGuest.WasmPath
	own, other := serialized(t, testGuest), serialized(t, testSnapGuest)
	cases := []struct {
		name    string
		prepare func(t *testing.T, dir, cache string)
		ok      bool
	}{
		{"own artifact", func(t *testing.T, dir, cache string) {}, true},
		{"swapped for another valid module", func(t *testing.T, dir, cache string) {
			os.WriteFile(cache, other, 0o600) // the digest beside it stays the guest's
		}, false},
		{"no digest", func(t *testing.T, dir, cache string) { os.Remove(cache + macSuffix) }, false},
		{"digest of something else", func(t *testing.T, dir, cache string) {
			os.WriteFile(cache+macSuffix, []byte(strings.Repeat("0", 64)+"\n"), 0o600)
		}, false},
		{"one byte changed", func(t *testing.T, dir, cache string) {
			b := append([]byte(nil), own...)
			b[len(b)/2] ^= 1
			os.WriteFile(cache, b, 0o600)
		}, false},
		// This user's own, made writable by others (a umask of 002): made
		// private again first, then verified.
		{"a directory others could write", func(t *testing.T, dir, cache string) { os.Chmod(dir, 0o777) }, true},
		{"an artifact others could write", func(t *testing.T, dir, cache string) { os.Chmod(cache, 0o666) }, true},
		{"an artifact of another user", func(t *testing.T, dir, cache string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the artifact away")
			}
			os.Chown(cache, 65534, 65534)
		}, false},
		{"a directory of another user", func(t *testing.T, dir, cache string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the directory away")
			}
			os.Chown(dir, 65534, 65534)
		}, false},
		{"a symlink to the artifact", func(t *testing.T, dir, cache string) {
			os.Rename(cache, cache+".real")
			os.Symlink(cache+".real", cache)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cacheKeysMu.Lock()
			clear(cacheKeys) // a directory given away keeps no key here
			cacheKeysMu.Unlock()
			dir := filepath.Join(t.TempDir(), "cache")
			cache := filepath.Join(dir, "g.cwasm")
			if err := writeArtifact(cache, own); err != nil {
				t.Fatal(err)
			}
			c.prepare(t, dir, cache)
			err := verifyArtifact(command, cache)
			if (err == nil) != c.ok {
				t.Fatalf("verify: %v, want ok=%v", err, c.ok)
			}
			for _, p := range []string{dir, cache} {
				if info, err := os.Lstat(p); c.ok && err == nil && info.Mode().Perm()&0o022 != 0 {
					t.Fatalf("%s is still writable by others (mode %v)", p, info.Mode().Perm())
				}
			}
		})
	}
}

// TestTamperedArtifactIsRecompiled: LoadGuest compiles the guest again
// rather than load a swapped artifact, and leaves a verified one.
func TestTamperedArtifactIsRecompiled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	cache := filepath.Join(dir, "g.cwasm")
	if err := writeArtifact(cache, serialized(t, testGuest)); err != nil {
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
	if err := verifyArtifact(testGuest.WasmPath, cache); err != nil {
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
		if _, err := os.Stat(cache + macSuffix); err != nil {
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
	if err := writeArtifact(cache, serialized(t, testSnapGuest)); err != nil {
		t.Fatal(err)
	}
	if err := writeArtifact(other, serialized(t, testGuest)); err != nil {
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

// TestArtifactStamp: once an artifact's bytes are digested and it has not
// changed for a while, its stamp is recorded and later loads skip reading
// it; any change to the file makes the next load digest it again.
func TestArtifactStamp(t *testing.T) {
	if _, _, ok := fileStamp(mustLstat(t, t.TempDir())); !ok {
		t.Skip("no file stamps on this platform")
	}
	own := serialized(t, testGuest)
	dir := filepath.Join(t.TempDir(), "cache")
	cache := filepath.Join(dir, "g.cwasm")
	if err := writeArtifact(cache, own); err != nil {
		t.Fatal(err)
	}
	// A file changed just now gets no stamp (its change time could stay
	// put through another change within the same clock tick).
	if err := verifyArtifact(testGuest.WasmPath, cache); err != nil {
		t.Fatal(err)
	}
	if _, stamp, _ := readMAC(cache); stamp != "" {
		t.Fatal("a stamp was recorded for a file changed within stampGrain")
	}
	time.Sleep(stampGrain + 100*time.Millisecond) // the file settles
	if err := verifyArtifact(testGuest.WasmPath, cache); err != nil {
		t.Fatal(err)
	}
	if _, stamp, _ := readMAC(cache); stamp == "" {
		t.Fatal("no stamp recorded for a settled, verified artifact")
	}
	// Same size, one byte changed in place: the stamp no longer matches,
	// the bytes are digested, and the file is refused.
	f, err := os.OpenFile(cache, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{own[len(own)/2] ^ 1}, int64(len(own)/2))
	f.Close()
	if err := verifyArtifact(testGuest.WasmPath, cache); err == nil {
		t.Fatal("a changed artifact passed on its old stamp")
	}
}

func mustLstat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
