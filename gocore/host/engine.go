package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wasmsnap"
	"amlasandbox/gocore/wire"
)

// maxWasmStack is the wasm stack of every guest: wasmtime's own stack, on
// the thread the guest runs on (threadStack in bigstack.go). QuickJS's own
// recursion check watches its C stack in linear memory (2 MiB for
// JavaScript), so this must outlast that check: JavaScript calls take
// about 4 MiB here when it fires, but the parser takes ~2 KiB here per
// nesting level against ~200 bytes of C stack, and at 16 MiB 10,000 nested
// brackets ran this out first (an uncatchable trap); at 28 MiB the parser's
// SyntaxError/RangeError comes first. A guest can make the host commit this
// much memory per process, so it is no bigger than that.
const maxWasmStack = 28 << 20

// epochTick is how often the engine's epoch advances; run deadlines are
// counted in ticks.
const epochTick = 5 * time.Millisecond

var (
	engineOnce sync.Once
	engine     *wasmtime.Engine
)

// engineConfig is the configuration of every engine that runs or compiles
// guests (the portable precompiles use it too, plus a target), so their
// artifacts stay loadable by each other.
func engineConfig() *wasmtime.Config {
	cfg := wasmtime.NewConfig()
	cfg.SetEpochInterruption(true)
	// Guests run on threads with room for this (bigstack.go); on a thread
	// the Go runtime made, 8 MiB or more overran the thread's stack.
	cfg.SetMaxWasmStack(maxWasmStack)
	if os.Getenv("AMLA_WASM_PERFMAP") != "" {
		// For profiling with Linux perf (docs/performance.md): wasmtime
		// writes /tmp/perf-<pid>.map naming the compiled guest functions.
		cfg.SetProfiler(profilingPerfMap)
	}
	return cfg
}

// profilingPerfMap is WASMTIME_PROFILING_STRATEGY_PERFMAP of wasmtime's
// C API (config.h), which wasmtime-go v39 does not name.
const profilingPerfMap = wasmtime.ProfilingStrategy(3)

// sharedEngine returns the one Engine of this process, with epoch
// interruption on and a goroutine advancing the epoch.
func sharedEngine() *wasmtime.Engine {
	engineOnce.Do(func() {
		engine = wasmtime.NewEngineWithConfig(engineConfig())
		go func() {
			t := time.NewTicker(epochTick)
			for range t.C {
				engine.IncrementEpoch()
			}
		}()
	})
	return engine
}

// GuestModule is the compiled guest program, shared by every Sandbox that
// uses the same wasm file.
type GuestModule struct {
	WasmPath  string
	CachePath string
	// FromCache tells whether the module was loaded from the on-disk cache.
	FromCache bool

	module *wasmtime.Module
	linker *wasmtime.Linker
	// reactor: the module exports amla_run (and amla_init); otherwise it
	// is a WASI command run through _start.
	reactor bool
	// resetGlobals name the snapshot's exports of its mutable globals, in
	// order; with them an instance can be reset for another run (reset.go).
	resetGlobals []string
	resettable   bool

	pristineOnce sync.Once
	pristine     *pristine
}

// classify notes how the module is entered: a command (it exports
// _start, even if it also exports amla_run, as a Go program built without
// -buildmode=c-shared does) or a reactor.
func (g *GuestModule) classify() {
	hasRun, hasStart := false, false
	for _, e := range g.module.Exports() {
		switch name := e.Name(); {
		case name == wire.ExportRun:
			hasRun = true
		case name == wire.ExportStart:
			hasStart = true
		case strings.HasPrefix(name, wasmsnap.ResetGlobalPrefix):
			g.resetGlobals = append(g.resetGlobals, name)
		}
	}
	g.reactor = hasRun && !hasStart
	// Only a snapshot made by wasmsnap offers its globals; the order of
	// setting them back does not matter.
	g.resettable = g.reactor && len(g.resetGlobals) > 0
}

var (
	modulesMu sync.Mutex
	modules   = map[string]*GuestModule{}
)

// LoadGuest returns the guest module for wasmPath, loading the compiled
// artifact at cachePath when it is usable and otherwise compiling the wasm
// and writing cachePath atomically. A corrupt or incompatible cache file is
// replaced, never an error. cachePath may be empty (no disk cache).
func LoadGuest(wasmPath, cachePath string) (*GuestModule, error) {
	key := wasmPath + "\x00" + cachePath
	modulesMu.Lock()
	defer modulesMu.Unlock()
	if m, ok := modules[key]; ok {
		return m, nil
	}
	if _, err := os.Stat(wasmPath); err != nil {
		return nil, fmt.Errorf("WASM file not found: %s", wasmPath)
	}
	eng := sharedEngine()
	g := &GuestModule{WasmPath: wasmPath, CachePath: cachePath}
	if cachePath != "" {
		if m, err := wasmtime.NewModuleDeserializeFile(eng, cachePath); err == nil {
			g.module, g.FromCache = m, true
		} else if !errors.Is(err, os.ErrNotExist) {
			_ = os.Remove(cachePath) // stale or corrupt: rebuilt below
		}
	}
	if g.module == nil && cachePath != "" {
		// Compile into the cache, once across processes (a lock file), with
		// a one-line note on stderr: this takes seconds.
		dir := filepath.Dir(cachePath)
		if entry, err := EnsureCached(dir, wasmPath, AnnounceCompile(dir, wasmPath)); err == nil && entry.Path == cachePath {
			if m, err := wasmtime.NewModuleDeserializeFile(eng, cachePath); err == nil {
				g.module = m
			}
		}
	}
	if g.module == nil {
		// No usable cache: compile in memory (and try to cache the result).
		m, err := compileAndCache(eng, wasmPath, cachePath)
		if err != nil {
			return nil, err
		}
		g.module = m
	}
	linker, err := newLinker(eng)
	if err != nil {
		return nil, err
	}
	g.linker = linker
	g.classify()
	modules[key] = g
	return g, nil
}

// Precompile compiles wasmPath and writes the artifact to cachePath even if
// one exists, and returns how long compiling took.
func Precompile(wasmPath, cachePath string) (time.Duration, error) {
	start := time.Now()
	if _, err := compileAndCache(sharedEngine(), wasmPath, cachePath); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func compileAndCache(eng *wasmtime.Engine, wasmPath, cachePath string) (*wasmtime.Module, error) {
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return nil, fmt.Errorf("WASM file not found: %s: %w", wasmPath, err)
	}
	m, err := wasmtime.NewModule(eng, wasm)
	if err != nil {
		return nil, fmt.Errorf("compiling guest module %s: %w", wasmPath, err)
	}
	if cachePath == "" {
		return m, nil
	}
	data, err := m.Serialize()
	if err != nil {
		return m, nil // a cache is an optimisation; the module works
	}
	_ = writeAtomic(cachePath, data)
	return m, nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place, so a reader never sees a half-written artifact.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.cwasm")
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
