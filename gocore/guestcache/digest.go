package guestcache

// A guest's artifact is named by the SHA-256 of its wasm file (FileName).
// Reading and digesting the 31 MB Python guest takes 15-20 ms, and the
// 15 MB shell guest half that, in every process that loads them: most of
// what a fresh process's first Python run cost beyond its JavaScript one.
//
// So a digest is also remembered in the cache directory, under digestsDir,
// with the stamp of the wasm file it was made from (stamp_linux.go:
// device, inode, size, change time) and a keyed digest of both under the
// cache's key (trust.go). A process that finds the same stamp, and a
// record this user wrote, uses the digest without reading the file. The
// change time moves with any change to the file and only the kernel sets
// it; a file changed within stampGrain is digested again. Where there is
// no stamp (not Linux) every process reads the file, as before.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// digestsDir is the cache directory's subdirectory of remembered digests.
const digestsDir = ".digests"

// DigestIn is FileDigest, remembered across processes in the cache
// directory dir. dir "" (or a directory this process may not use) only
// remembers it in memory.
func DigestIn(dir, path string) (string, error) {
	if dir == "" {
		return FileDigest(path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("digest of %s: %w", path, err)
	}
	memo := digestKey{path, info.Size(), info.ModTime().UnixNano()}
	if d, ok := rememberedDigest(memo); ok {
		return d, nil // this process read the file, or its record, before
	}
	stamp, _, ok := fileStamp(info)
	if !ok {
		return FileDigest(path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return FileDigest(path)
	}
	record := filepath.Join(dir, digestsDir, recordName(abs))
	key, keyErr := cacheKey(dir)
	if keyErr == nil {
		if d, ok := readDigestRecord(record, key, abs, stamp); ok && stampable(info) {
			now := time.Now()
			_ = os.Chtimes(record, now, now) // used: Prune keeps it
			rememberDigest(memo, d)
			return d, nil
		}
	}
	d, err := FileDigest(path)
	if err != nil || keyErr != nil || !stampable(info) {
		return d, err
	}
	if TrustedDir(filepath.Join(dir, digestsDir)) == nil {
		// Best effort: without the record, the next process reads the file.
		_ = WriteAtomic(record, []byte(d+" "+stamp+" "+recordMAC(key, abs, d, stamp)+"\n"))
	}
	return d, nil
}

// recordName is the file name of the digest record of the file at abs.
func recordName(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(sum[:16])
}

// recordMAC binds a record's digest to the file's path and stamp under
// the cache's key.
func recordMAC(key []byte, abs, digest, stamp string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(abs + "\x00" + digest + "\x00" + stamp))
	return hex.EncodeToString(h.Sum(nil))
}

// readDigestRecord returns the digest the record at path holds for the
// file at abs, when the record is this user's (or root's), writable by
// nobody else, names stamp, and carries the right keyed digest.
func readDigestRecord(path string, key []byte, abs, stamp string) (string, bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || checkOwned(path, info) != nil {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	fields := strings.Fields(string(b))
	if len(fields) != 3 || fields[1] != stamp || len(fields[0]) != 2*sha256.Size {
		return "", false
	}
	if !hmac.Equal([]byte(fields[2]), []byte(recordMAC(key, abs, fields[0], stamp))) {
		return "", false
	}
	return fields[0], true
}

// pruneDigestRecords removes the records in dir older than grace (one
// still used is written again by the next process that needs it), and
// temporary files a crash left there.
func pruneDigestRecords(dir string, now time.Time, grace time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		age := now.Sub(info.ModTime())
		if age > grace || (strings.HasPrefix(e.Name(), ".tmp-") && age > tmpStale) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
