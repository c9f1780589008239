package pycore

import (
	"encoding/json"
	"fmt"
	"time"

	"amlasandbox/gocore/host"
)

// The compiled-module cache, as Python sees it (amla_sandbox/runtime/cache.py).
// Python picks the directory and prints what is happening; the key, the
// digest, compiling once across processes and pruning are decided here.

// CacheFileName is the artifact name (cache key) for the guest at wasmPath.
func CacheFileName(wasmPath string) (name string, err error) {
	defer recoverTo(&err)
	return host.CacheFileName(wasmPath)
}

// CacheLookup returns JSON {"path": string, "present": bool}: where the
// artifact for wasmPath lives in dir and whether it is there (a present
// artifact counts as used and is kept by CachePrune's grace period).
func CacheLookup(dir, wasmPath string) (out string, err error) {
	defer recoverTo(&err)
	path, present, err := host.CachePath(dir, wasmPath)
	if err != nil {
		return "", err
	}
	return cacheJSON(map[string]any{"path": path, "present": present})
}

// CacheEnsure compiles the artifact for wasmPath into dir unless it is
// there, or waits while another process compiles it. It returns JSON
// {"path", "compiled", "waited", "compile_seconds"}.
func CacheEnsure(dir, wasmPath string) (out string, err error) {
	defer recoverTo(&err)
	entry, err := host.EnsureCached(dir, wasmPath, nil)
	if err != nil {
		return "", err
	}
	return cacheJSON(entry)
}

// CachePrune removes stale artifacts from dir (see host.PruneCache).
// keepJSON is a JSON array of artifact paths to keep; maxBytes <= 0 and
// graceSeconds < 0 select the defaults. Returns JSON {"removed", "bytes"}.
func CachePrune(dir, keepJSON string, maxBytes int64, graceSeconds float64) (out string, err error) {
	defer recoverTo(&err)
	var keep []string
	if err := json.Unmarshal([]byte(keepJSON), &keep); err != nil {
		return "", fmt.Errorf("cache prune: keep list is not a JSON array of paths: %w", err)
	}
	if maxBytes <= 0 {
		maxBytes = host.DefaultCacheMaxBytes
	}
	grace := host.DefaultCacheGrace
	if graceSeconds >= 0 {
		grace = time.Duration(graceSeconds * float64(time.Second))
	}
	report, err := host.PruneCache(dir, keep, maxBytes, grace)
	if err != nil {
		return "", err
	}
	return cacheJSON(report)
}

// PrecompilePortable compiles wasmPath for this platform's baseline CPU
// into outPath (an artifact the build ships; see host.PrecompilePortable)
// and returns the seconds it took.
func PrecompilePortable(wasmPath, outPath string) (s float64, err error) {
	defer recoverTo(&err)
	d, err := host.PrecompilePortable(wasmPath, outPath)
	return d.Seconds(), err
}

// WasmtimeLibraryVersion is the version of the linked wasmtime, read from
// the build (see host.LinkedWasmtimeVersion), never written by hand.
func WasmtimeLibraryVersion() (v string, err error) {
	defer recoverTo(&err)
	return host.LinkedWasmtimeVersion()
}

func cacheJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encoding result: %w", err)
	}
	return string(b), nil
}
