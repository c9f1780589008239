package guestcache

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// forgetDigests empties the in-memory digests, as a new process starts.
func forgetDigests() {
	digestMu.Lock()
	digests = map[digestKey]string{}
	digestMu.Unlock()
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// oldFile writes a file whose change time is more than stampGrain ago by
// the time it is digested (a stamp proves nothing about a newer one).
func oldFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(stampGrain + 100*time.Millisecond)
}

func TestDigestInRemembersAcrossProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files have no stamp here: every process reads the file")
	}
	dir, wasm := t.TempDir(), filepath.Join(t.TempDir(), "guest.wasm")
	oldFile(t, wasm, []byte("guest v1"))
	abs, _ := filepath.Abs(wasm)
	record := filepath.Join(dir, digestsDir, recordName(abs))

	got, err := DigestIn(dir, wasm)
	if err != nil || got != sha256Hex([]byte("guest v1")) {
		t.Fatalf("DigestIn = %q, %v", got, err)
	}
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("no record written: %v", err)
	}

	// A record that names the file's stamp and carries the right keyed
	// digest is believed without reading the file: one saying another
	// digest shows it.
	key, err := cacheKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(wasm)
	stamp, _, _ := fileStamp(info)
	fake := strings.Repeat("ab", sha256.Size)
	write := func(line string) {
		t.Helper()
		if err := os.WriteFile(record, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		forgetDigests()
	}
	write(fake + " " + stamp + " " + recordMAC(key, abs, fake, stamp))
	if got, _ := DigestIn(dir, wasm); got != fake {
		t.Fatalf("a valid record was not used: got %q", got)
	}

	for _, tc := range []struct{ name, line string }{
		{"wrong keyed digest", fake + " " + stamp + " " + strings.Repeat("0", 64)},
		{"keyed for another file", fake + " " + stamp + " " + recordMAC(key, abs+"x", fake, stamp)},
		{"another stamp", fake + " 1:2:3:4 " + recordMAC(key, abs, fake, "1:2:3:4")},
		{"truncated", fake + " " + stamp},
		{"not a digest", "xyz " + stamp + " " + recordMAC(key, abs, "xyz", stamp)},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.line)
			if got, err := DigestIn(dir, wasm); err != nil || got != sha256Hex([]byte("guest v1")) {
				t.Fatalf("DigestIn = %q, %v; want the file's own digest", got, err)
			}
		})
	}

	// The file changes: its stamp moves, and the record is made again.
	oldFile(t, wasm, []byte("guest v2, longer"))
	forgetDigests()
	if got, err := DigestIn(dir, wasm); err != nil || got != sha256Hex([]byte("guest v2, longer")) {
		t.Fatalf("after a change DigestIn = %q, %v", got, err)
	}
	b, _ := os.ReadFile(record)
	if !strings.HasPrefix(string(b), sha256Hex([]byte("guest v2, longer"))+" ") {
		t.Fatalf("record not renewed: %q", b)
	}
}

func TestDigestInOfAFreshFileWritesNoRecord(t *testing.T) {
	dir, wasm := t.TempDir(), filepath.Join(t.TempDir(), "guest.wasm")
	if err := os.WriteFile(wasm, []byte("just written"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := DigestIn(dir, wasm); err != nil || got != sha256Hex([]byte("just written")) {
		t.Fatalf("DigestIn = %q, %v", got, err)
	}
	// Its change time could still move within the clock's grain without
	// the stamp changing.
	entries, _ := os.ReadDir(filepath.Join(dir, digestsDir))
	if len(entries) != 0 {
		t.Fatalf("records of a file changed within stampGrain: %v", entries)
	}
}

func TestDigestInWithoutADirectoryOrAFile(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "guest.wasm")
	if err := os.WriteFile(wasm, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := DigestIn("", wasm); err != nil || got != sha256Hex([]byte("x")) {
		t.Fatalf("DigestIn(\"\") = %q, %v", got, err)
	}
	if _, err := DigestIn(t.TempDir(), filepath.Join(t.TempDir(), "missing.wasm")); err == nil || !strings.Contains(err.Error(), "missing.wasm") {
		t.Fatalf("a missing file: %v", err)
	}
}

func TestPruneRemovesOldDigestRecords(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(dir, digestsDir)
	if err := os.MkdirAll(records, 0o700); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(records, "old"), filepath.Join(records, "fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("r\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	if _, err := Prune(dir, nil, DefaultMaxBytes, time.Hour, "39.0.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("a record unused for two hours is still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("a fresh record was removed: %v", err)
	}
}

// A process that finds its artifact marks it used without moving the
// artifact's change time, so the stamp its digest file records still
// proves it unchanged and the next process does not read it again.
func TestUsingAnArtifactKeepsItsVerifiedStamp(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files have no stamp here")
	}
	dir, wasm := t.TempDir(), filepath.Join(t.TempDir(), "guest.wasm")
	if err := os.WriteFile(wasm, []byte("guest"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, present, err := Path(dir, wasm, "39.0.1")
	if err != nil || present {
		t.Fatalf("Path = %q, %v, %v", path, present, err)
	}
	if err := WriteArtifact(path, []byte("compiled code")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(stampGrain + 100*time.Millisecond)
	if err := VerifyArtifact(wasm, path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path + macSuffix)
	time.Sleep(20 * time.Millisecond)
	if _, present, err := Path(dir, wasm, "39.0.1"); err != nil || !present {
		t.Fatalf("Path found no artifact: %v", err)
	}
	info, _ := os.Stat(path)
	stamp, _, _ := fileStamp(info)
	if _, recorded, err := readMAC(path); err != nil || recorded != stamp {
		t.Fatalf("the artifact's stamp %q moved from the recorded %q (%v)", stamp, recorded, err)
	}
	if after, _ := os.Stat(path + macSuffix); !after.ModTime().After(before.ModTime()) {
		t.Fatalf("Path did not mark the artifact used")
	}
	if used := lastUsed(path, info); used.Before(time.Now().Add(-time.Second)) {
		t.Fatalf("lastUsed = %v", used)
	}
}
