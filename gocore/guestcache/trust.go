package guestcache

// Compiled artifacts are native code: wasmtime maps a .cwasm file and
// runs it. Before loading one, the host checks that it is ours.
//
// Threat model (docs/security.md): someone who can write to the cache
// directory but is not this user (a shared or world-writable directory,
// a careless XDG_CACHE_HOME), another program that names its artifacts
// the same way (the reference amla-sandbox does), and corruption (a
// truncated copy, a failing disk) must not get native code loaded into
// this process. Someone who runs as this user can already run code as
// this user and is out of scope.
//
//   - The directory and the artifact must belong to this user (or root)
//     and be writable by nobody else, as ssh checks its files; one of this
//     user's own that others could write is made private first
//     (perm_unix.go). A directory of another user is not used at
//     all: guests compile in memory.
//   - Every artifact this package writes gets a keyed digest beside it
//     (<artifact>.mac, HMAC-SHA-256 under a random key kept in the cache
//     directory, readable by this user only). An artifact whose digest is
//     missing or wrong is removed and compiled again, never loaded.
//   - An artifact without a digest that is byte for byte the one the
//     package ships beside the guest (precompiled/<name>, installed with
//     the package's own code) is adopted: its digest is written then.
//   - Reading a 40 MB artifact to digest it takes 50-150 ms, on the first
//     run of every process. So the digest file also records the artifact's
//     stamp (stamp_linux.go: device, inode, size, change time) when its
//     bytes were last digested; a load that finds the same stamp, on a file
//     only this user can change, skips the reading. Any change to the file
//     moves its change time, which only the kernel sets.
//
// What remains: the file is verified, then wasmtime opens it again by
// name to map it; swapping it in between needs write access to the
// directory, which only this user has.

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	macSuffix    = ".mac"
	cacheKeyName = ".amla-cache-key"
	cacheKeySize = 32
)

// ErrUnverified: the artifact is not one this package wrote (or adopted).
var ErrUnverified = errors.New("compiled artifact not verified as this package's")

var (
	cacheKeysMu sync.Mutex
	cacheKeys   = map[string][]byte{}
)

// cacheKey returns the digest key of cache directory dir, making it on
// first use. The key file must be this user's and private.
func cacheKey(dir string) ([]byte, error) {
	cacheKeysMu.Lock()
	defer cacheKeysMu.Unlock()
	if k, ok := cacheKeys[dir]; ok {
		return k, nil
	}
	path := filepath.Join(dir, cacheKeyName)
	for attempt := 0; attempt < 3; attempt++ {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			key := make([]byte, cacheKeySize)
			if _, err := rand.Read(key); err != nil {
				f.Close()
				os.Remove(path)
				return nil, fmt.Errorf("module cache key: %w", err)
			}
			_, werr := f.Write(key)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("module cache key %s: %w", path, werr)
			}
			cacheKeys[dir] = key
			return key, nil
		} else if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("module cache key %s: %w", path, err)
		}
		info, err := os.Lstat(path)
		if err != nil {
			continue // removed meanwhile: make it again
		}
		if err := checkPrivate(path, info); err != nil {
			return nil, err
		}
		key, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("module cache key %s: %w", path, err)
		}
		if len(key) != cacheKeySize {
			// Another process is still writing it, or it is damaged.
			if attempt < 2 {
				continue
			}
			return nil, fmt.Errorf("module cache key %s: %d bytes, want %d", path, len(key), cacheKeySize)
		}
		cacheKeys[dir] = key
		return key, nil
	}
	return nil, fmt.Errorf("module cache key %s: could not be made", path)
}

// artifactMAC is the keyed digest of an artifact's bytes.
func artifactMAC(key []byte, r io.Reader) (string, error) {
	h := hmac.New(sha256.New, key)
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// TrustedDir reports whether dir may hold artifacts this process loads:
// it must exist (or be made) as this user's, writable by nobody else.
func TrustedDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("module cache %s: %w", dir, err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("module cache %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("module cache %s: not a directory", dir)
	}
	return checkOwned(dir, info)
}

// WriteArtifact writes a compiled artifact and its keyed digest, each
// atomically (the artifact first: a reader that sees it without its digest
// compiles again rather than load it).
func WriteArtifact(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := TrustedDir(dir); err != nil {
		return err
	}
	key, err := cacheKey(dir)
	if err != nil {
		return err
	}
	mac, err := artifactMAC(key, bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := WriteAtomic(path, data); err != nil {
		return err
	}
	// No stamp yet: the first load digests the file in place once more and
	// records it.
	return writeMAC(path, mac, nil)
}

// RemoveArtifact removes an artifact and its digest.
func RemoveArtifact(path string) {
	_ = os.Remove(path)
	_ = os.Remove(path + macSuffix)
}

// VerifyArtifact checks that the artifact at path, compiled from the guest
// at wasmPath, is this package's and unchanged (see the top of this file).
// An error wrapping os.ErrNotExist means there is none; an error wrapping
// ErrUnverified, or any other, means it must not be loaded.
func VerifyArtifact(wasmPath, path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: not a regular file", path, ErrUnverified)
	}
	dir := filepath.Dir(path)
	if err := TrustedDir(dir); err != nil {
		return fmt.Errorf("%w: %v", ErrUnverified, err)
	}
	if err := checkOwned(path, info); err != nil {
		return fmt.Errorf("%w: %v", ErrUnverified, err)
	}
	key, err := cacheKey(dir)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnverified, err)
	}
	stamp, _, stamped := fileStamp(info)
	want, wantStamp, macErr := readMAC(path)
	if macErr == nil && stamped && wantStamp == stamp {
		return nil // digested before, unchanged since
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	got, err := artifactMAC(key, f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if macErr == nil {
		if !hmac.Equal([]byte(want), []byte(got)) {
			return fmt.Errorf("%s: %w: its digest does not match", path, ErrUnverified)
		}
	} else if !errors.Is(macErr, os.ErrNotExist) {
		return fmt.Errorf("%s: %w: %v", path, ErrUnverified, macErr)
	} else if !shippedCopy(wasmPath, path) {
		return fmt.Errorf("%s: %w: it has no digest", path, ErrUnverified)
	}
	// Record the stamp the bytes were digested at (best effort: without
	// it the next load digests again).
	if stampable(info) {
		_ = writeMAC(path, got, info)
	} else if macErr != nil {
		_ = writeMAC(path, got, nil)
	}
	return nil
}

// stampGrain is more than the grain of the clock file change times come
// from (the kernel's coarse clock: a few milliseconds).
const stampGrain = time.Second

// stampable: a stamp of info may be recorded. A file changed within
// stampGrain could be changed again without its change time moving (same
// tick), so its stamp would not prove it unchanged; the next load digests
// it again instead.
func stampable(info fs.FileInfo) bool {
	_, changed, ok := fileStamp(info)
	return ok && time.Since(changed) > stampGrain
}

// readMAC reads an artifact's digest file: the digest, and the stamp of the
// artifact when it was digested ("" if none). The digest file must be this
// user's (or root's), writable by nobody else.
func readMAC(path string) (mac, stamp string, err error) {
	info, err := os.Lstat(path + macSuffix)
	if err != nil {
		return "", "", err
	}
	if !info.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s%s: not a regular file", path, macSuffix)
	}
	if err := checkOwned(path+macSuffix, info); err != nil {
		return "", "", err
	}
	b, err := os.ReadFile(path + macSuffix)
	if err != nil {
		return "", "", err
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return "", "", fmt.Errorf("%s%s: empty", path, macSuffix)
	}
	if len(fields) > 1 {
		stamp = fields[1]
	}
	return fields[0], stamp, nil
}

// writeMAC writes the digest file of the artifact at path: its digest and,
// where the platform has one, the stamp of the file described by info.
func writeMAC(path, mac string, info fs.FileInfo) error {
	line := mac
	if info != nil {
		if stamp, _, ok := fileStamp(info); ok {
			line += " " + stamp
		}
	}
	return WriteAtomic(path+macSuffix, []byte(line+"\n"))
}

// shippedCopy reports whether the artifact at path is the one the package
// ships beside the guest at wasmPath (precompiled/<same name>).
func shippedCopy(wasmPath, path string) bool {
	shipped := filepath.Join(filepath.Dir(wasmPath), "precompiled", filepath.Base(path))
	a, err := os.Stat(shipped)
	if err != nil || !a.Mode().IsRegular() {
		return false
	}
	b, err := os.Stat(path)
	if err != nil {
		return false
	}
	if os.SameFile(a, b) {
		return true // the cache holds a hard link to it
	}
	if a.Size() != b.Size() {
		return false
	}
	return sameContent(shipped, path)
}

func sameContent(p, q string) bool {
	hash := func(path string) []byte {
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return nil
		}
		return h.Sum(nil)
	}
	a, b := hash(p), hash(q)
	return a != nil && bytes.Equal(a, b)
}

// WriteAtomic writes data to a temporary file beside path and renames it
// into place, so a reader never sees a half-written artifact. Temporary
// files a crash leaves behind are Prune's to remove.
func WriteAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*"+cacheSuffix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
