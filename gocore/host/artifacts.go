package host

// What the compiled-guest cache (gocore/guestcache) needs from the engine:
// the version of the linked wasmtime, which is part of every artifact's
// key, and compiling, for this machine (Precompile, engine.go) or for the
// baseline CPU of this platform (PrecompilePortable: the artifacts the
// wheel ships). Naming, trusting, locking and pruning artifacts are
// guestcache's.

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/guestcache"
)

var (
	versionOnce sync.Once
	versionVal  string
	versionErr  error
)

// LinkedWasmtimeVersion is the version of the wasmtime library linked into
// this binary: the wasmtime-go module's version from the build info
// ("39.0.1"), or, in binaries built without dependency information (go
// test), the version wasmtime itself writes into its compiled artifacts.
func LinkedWasmtimeVersion() (string, error) {
	versionOnce.Do(func() {
		if info, ok := debug.ReadBuildInfo(); ok {
			if versionVal, versionErr = guestcache.VersionFromBuildInfo(info); versionErr == nil {
				return
			}
		}
		versionVal, versionErr = engineVersion(sharedEngine())
	})
	return versionVal, versionErr
}

// engineVersion compiles the smallest valid module with eng and reads the
// version wasmtime records in its artifact.
func engineVersion(eng *wasmtime.Engine) (string, error) {
	m, err := wasmtime.NewModule(eng, []byte("\x00asm\x01\x00\x00\x00"))
	if err != nil {
		return "", fmt.Errorf("engine fingerprint: %w", err)
	}
	art, err := m.Serialize()
	if err != nil {
		return "", fmt.Errorf("engine fingerprint: %w", err)
	}
	return guestcache.EngineVersion(art)
}

// ensureCached is guestcache.Ensure with this binary's wasmtime version
// and Precompile as the compiler.
func ensureCached(dir, wasmPath string, onCompile func(waiting bool)) (guestcache.Entry, error) {
	v, err := LinkedWasmtimeVersion()
	if err != nil {
		return guestcache.Entry{}, err
	}
	return guestcache.Ensure(dir, wasmPath, v, Precompile, onCompile)
}

// portableEngine is sharedEngine's configuration compiled for the baseline
// CPU of this platform (guestcache.PortableTarget) instead of this
// machine's CPU.
func portableEngine() (*wasmtime.Engine, error) {
	triple, features, err := guestcache.PortableTarget(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return nil, err
	}
	cfg := engineConfig()
	if err := cfg.SetTarget(triple); err != nil {
		return nil, fmt.Errorf("portable artifacts: target %s: %w", triple, err)
	}
	for _, f := range features {
		cfg.EnableCraneliftFlag(f)
	}
	return wasmtime.NewEngineWithConfig(cfg), nil
}

// PrecompilePortable compiles wasmPath for this platform's baseline CPU,
// checks that this process's engine loads the result (so the engine
// settings of the two have not drifted apart), and writes it to outPath.
// The build ships these artifacts so that a fresh install does not compile.
func PrecompilePortable(wasmPath, outPath string) (time.Duration, error) {
	start := time.Now()
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return 0, fmt.Errorf("portable artifact: %w", err)
	}
	eng, err := portableEngine()
	if err != nil {
		return 0, err
	}
	m, err := wasmtime.NewModule(eng, wasm)
	if err != nil {
		return 0, fmt.Errorf("portable artifact: compiling %s: %w", wasmPath, err)
	}
	data, err := m.Serialize()
	if err != nil {
		return 0, fmt.Errorf("portable artifact: serializing %s: %w", wasmPath, err)
	}
	if _, err := wasmtime.NewModuleDeserialize(sharedEngine(), data); err != nil {
		return 0, fmt.Errorf("portable artifact for %s does not load in the runtime engine (portableEngine and sharedEngine settings differ?): %w", wasmPath, err)
	}
	if err := guestcache.WriteAtomic(outPath, data); err != nil {
		return 0, fmt.Errorf("portable artifact: writing %s: %w", outPath, err)
	}
	return time.Since(start), nil
}
