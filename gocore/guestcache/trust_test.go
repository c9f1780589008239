package guestcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCachedArtifactsAreVerified: an artifact is loaded only when it is
// verified as this package's.
func TestCachedArtifactsAreVerified(t *testing.T) {
	command := writeGuest(t, t.TempDir(), "guest")
	own, other := []byte("the guest's artifact"), []byte("another module's artifact")
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
			if err := WriteArtifact(cache, own); err != nil {
				t.Fatal(err)
			}
			c.prepare(t, dir, cache)
			err := VerifyArtifact(command, cache)
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

// TestShippedCopyIsAdopted: an artifact without a digest that is the one
// shipped beside the guest (precompiled/<name>), put into the cache by a
// hard link or a copy, verifies and gets its digest; any other is refused.
func TestShippedCopyIsAdopted(t *testing.T) {
	for _, tt := range []struct {
		name  string
		place func(shipped, cache string) error
		ok    bool
	}{
		{"hard link", os.Link, true},
		{"copy", func(shipped, cache string) error {
			b, err := os.ReadFile(shipped)
			if err != nil {
				return err
			}
			return os.WriteFile(cache, b, 0o600)
		}, true},
		{"same size, other bytes", func(shipped, cache string) error {
			b, err := os.ReadFile(shipped)
			if err != nil {
				return err
			}
			b[0] ^= 1
			return os.WriteFile(cache, b, 0o600)
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pkg := t.TempDir()
			wasm := writeGuest(t, pkg, "guest")
			if err := os.MkdirAll(filepath.Join(pkg, "precompiled"), 0o755); err != nil {
				t.Fatal(err)
			}
			shipped := filepath.Join(pkg, "precompiled", "g.cwasm")
			if err := os.WriteFile(shipped, []byte("the shipped artifact"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "cache")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			cache := filepath.Join(dir, "g.cwasm")
			if err := tt.place(shipped, cache); err != nil {
				t.Fatal(err)
			}
			err := VerifyArtifact(wasm, cache)
			if (err == nil) != tt.ok {
				t.Fatalf("verify: %v, want ok=%v", err, tt.ok)
			}
			if _, err := os.Stat(cache + macSuffix); (err == nil) != tt.ok {
				t.Fatalf("digest written: %v, want %v", err == nil, tt.ok)
			}
		})
	}
}

// TestArtifactStamp: once an artifact's bytes are digested and it has not
// changed for a while, its stamp is recorded and later loads skip reading
// it; any change to the file makes the next load digest it again.
func TestArtifactStamp(t *testing.T) {
	if _, _, ok := fileStamp(mustLstat(t, t.TempDir())); !ok {
		t.Skip("no file stamps on this platform")
	}
	own := []byte("the guest's artifact")
	wasm := writeGuest(t, t.TempDir(), "guest")
	dir := filepath.Join(t.TempDir(), "cache")
	cache := filepath.Join(dir, "g.cwasm")
	if err := WriteArtifact(cache, own); err != nil {
		t.Fatal(err)
	}
	// A file changed just now gets no stamp (its change time could stay
	// put through another change within the same clock tick).
	if err := VerifyArtifact(wasm, cache); err != nil {
		t.Fatal(err)
	}
	if _, stamp, _ := readMAC(cache); stamp != "" {
		t.Fatal("a stamp was recorded for a file changed within stampGrain")
	}
	time.Sleep(stampGrain + 100*time.Millisecond) // the file settles
	if err := VerifyArtifact(wasm, cache); err != nil {
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
	if err := VerifyArtifact(wasm, cache); err == nil {
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
