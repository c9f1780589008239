package pycore

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"amlasandbox/gocore/guestcache"
	"amlasandbox/gocore/host"
)

// The compiled-module cache, as Python sees it (amla_sandbox/runtime/cache.py).
// Python picks the directory and prints what is happening; the key, the
// digest, compiling once across processes and pruning are gocore/guestcache's,
// compiling is the host's.

// wasmtimeVersion is the linked wasmtime's version, part of every key.
func wasmtimeVersion() (string, error) { return host.LinkedWasmtimeVersion() }

// CacheFileName is the artifact name (cache key) for the guest at wasmPath.
func CacheFileName(wasmPath string) (name string, err error) {
	defer guard(&err)
	if err := checkWasmFile(wasmPath); err != nil {
		return "", err
	}
	v, err := wasmtimeVersion()
	if err != nil {
		return "", err
	}
	return guestcache.FileName(wasmPath, v)
}

// CacheEnsure compiles the artifact for wasmPath into dir unless it is
// there, or waits while another process compiles it. It returns JSON
// {"path", "compiled", "waited", "compile_seconds"}.
func CacheEnsure(dir, wasmPath string) (out string, err error) {
	defer guard(&err)
	v, err := wasmtimeVersion()
	if err != nil {
		return "", err
	}
	entry, err := guestcache.Ensure(dir, wasmPath, v, host.Precompile, nil)
	if err != nil {
		return "", err
	}
	return cacheJSON(entry)
}

// CachePrune removes stale artifacts from dir (see guestcache.Prune).
// keepJSON is a JSON array of artifact paths to keep; maxBytes <= 0 and
// graceSeconds < 0 select the defaults. Returns JSON {"removed", "bytes"}.
func CachePrune(dir, keepJSON string, maxBytes int64, graceSeconds float64) (out string, err error) {
	defer guard(&err)
	var keep []string
	if err := json.Unmarshal([]byte(keepJSON), &keep); err != nil {
		return "", newError(kindInvalid, "cache prune: keep list is not a JSON array of paths: %v", err)
	}
	if maxBytes <= 0 {
		maxBytes = guestcache.DefaultMaxBytes
	}
	grace := guestcache.DefaultGrace
	if graceSeconds >= 0 {
		grace = time.Duration(graceSeconds * float64(time.Second))
	}
	// Without a version no artifact counts as this package's, and Prune
	// removes none of them (temporary files and stale locks still go).
	v, _ := wasmtimeVersion()
	report, err := guestcache.Prune(dir, keep, maxBytes, grace, v)
	if err != nil {
		return "", err
	}
	return cacheJSON(report)
}

// CacheResolve returns JSON {"path": string, "present": bool}: where the
// artifact for wasmPath lives in dir, and whether it is there, from the
// cache or put there now from the artifacts the wheel ships in shippedDir.
// keepJSON is a JSON list of the guests this installation uses, kept by
// the cache's once-per-process prune.
func CacheResolve(dir, shippedDir, wasmPath, keepJSON string) (out string, err error) {
	defer guard(&err)
	var keep []string
	if err := json.Unmarshal([]byte(keepJSON), &keep); err != nil {
		return "", newError(kindInvalid, "cache resolve: keep list is not a JSON array of paths: %v", err)
	}
	path, present, err := cacheArtifact(dir, shippedDir, wasmPath, keep)
	if err != nil {
		return "", err
	}
	return cacheJSON(map[string]any{"path": path, "present": present})
}

// resolveCache is the artifact path for wasmPath as a sandbox uses it
// (see cacheArtifact), or "" when there is no usable cache: the guest is
// then compiled in memory when a run first needs it.
func resolveCache(dir, shippedDir, wasmPath string, keep []string) string {
	if dir == "" {
		return ""
	}
	path, _, err := cacheArtifact(dir, shippedDir, wasmPath, keep)
	if err != nil {
		return ""
	}
	return path
}

// cacheArtifact finds the artifact for wasmPath in dir, seeding it from
// shippedDir when it is missing; the first call in the process also
// prunes dir, keeping the artifacts of the guests in keep.
func cacheArtifact(dir, shippedDir, wasmPath string, keep []string) (path string, present bool, err error) {
	v, err := wasmtimeVersion()
	if err != nil {
		return "", false, err
	}
	path, present, err = guestcache.Path(dir, wasmPath, v)
	if err != nil {
		return "", false, err
	}
	pruneOnce.Do(func() {
		// Housekeeping, at most once an hour per cache directory (naming
		// the installed guests' artifacts may hash guests, on another
		// thread, which slowed the runs the process made meanwhile), and
		// which the sandbox does not wait for: nothing this process needs
		// is removed (its guests' artifacts are kept, others only once
		// unused for a while).
		if !guestcache.AutoPruneDue(dir, guestcache.AutoPruneEvery, time.Now()) {
			return
		}
		go func() {
			var paths []string
			for _, g := range keep {
				if name, err := guestcache.FileNameIn(dir, g, v); err == nil {
					paths = append(paths, filepath.Join(dir, name))
				}
			}
			_, _ = guestcache.Prune(dir, paths, guestcache.DefaultMaxBytes, guestcache.DefaultGrace, v)
		}()
	})
	if !present && shippedDir != "" {
		present = seedFromShipped(filepath.Join(shippedDir, filepath.Base(path)), path)
	}
	return path, present, nil
}

var pruneOnce sync.Once

// seedFromShipped puts the shipped artifact into the cache at target (a
// hard link when possible, else a copy; atomically) and reports whether it
// did. wasmtime checks the artifact when loading it: a CPU without the
// baseline features makes the engine compile for this machine instead.
func seedFromShipped(shipped, target string) bool {
	if st, err := os.Stat(shipped); err != nil || !st.Mode().IsRegular() {
		return false
	}
	tmp := filepath.Join(filepath.Dir(target), fmt.Sprintf(".tmp-%d-%s", os.Getpid(), filepath.Base(target)))
	if err := os.Link(shipped, tmp); err != nil {
		if err := copyFile(shipped, tmp); err != nil {
			_ = os.Remove(tmp)
			return false
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		_ = os.Remove(tmp)
		return false
	}
	return true
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Precompile compiles wasmPath into cachePath (replacing any artifact
// there) and returns the milliseconds it took.
func Precompile(wasmPath, cachePath string) (ms float64, err error) {
	defer guard(&err)
	if err := checkWasmFile(wasmPath); err != nil {
		return 0, err
	}
	d, err := host.Precompile(wasmPath, cachePath)
	return float64(d.Microseconds()) / 1000, err
}

// PrecompilePortable compiles wasmPath for this platform's baseline CPU
// into outPath (an artifact the build ships; see host.PrecompilePortable)
// and returns the seconds it took.
func PrecompilePortable(wasmPath, outPath string) (s float64, err error) {
	defer guard(&err)
	if err := checkWasmFile(wasmPath); err != nil {
		return 0, err
	}
	d, err := host.PrecompilePortable(wasmPath, outPath)
	return d.Seconds(), err
}

// WasmtimeLibraryVersion is the version of the linked wasmtime, read from
// the build (see host.LinkedWasmtimeVersion), never written by hand.
func WasmtimeLibraryVersion() (v string, err error) {
	defer guard(&err)
	return host.LinkedWasmtimeVersion()
}

func cacheJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encoding result: %w", err)
	}
	return string(b), nil
}
