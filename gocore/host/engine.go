package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/guestcache"
	"amlasandbox/gocore/wasmsnap"
	"amlasandbox/gocore/wire"
)

// maxWasmStack is the wasm stack of every guest: wasmtime's own stack, on
// the thread the guest runs on (workerpool.ThreadStack). QuickJS's own
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
	// Guests run on threads with room for this (gocore/workerpool); on a thread
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
// interruption on. Its epoch advances only while runs are active
// (epochRunStarted).
func sharedEngine() *wasmtime.Engine {
	engineOnce.Do(func() {
		engine = wasmtime.NewEngineWithConfig(engineConfig())
	})
	return engine
}

// The epoch ticker runs while runs are active, and stops by itself once
// none has been for epochLinger, so an idle process (sandboxes made,
// nothing running) has no timer waking it every epochTick. A guest only
// runs inside a run, and only a running guest needs the epoch to advance.
// The linger keeps back-to-back runs from starting a ticker each.
const epochLinger = 20 * epochTick

var (
	epochMu      sync.Mutex
	epochRuns    int  // runs active now
	epochTicking bool // the ticker goroutine is running
	epochTicks   atomic.Int64
)

// epochRunStarted notes that a run is about to execute wasm, starting the
// ticker if it is not running; epochRunEnded must follow.
func epochRunStarted() {
	eng := sharedEngine()
	epochMu.Lock()
	defer epochMu.Unlock()
	epochRuns++
	if epochTicking {
		return
	}
	epochTicking = true
	go func() {
		t := time.NewTicker(epochTick)
		defer t.Stop()
		idle := 0
		for range t.C {
			eng.IncrementEpoch()
			epochTicks.Add(1)
			epochMu.Lock()
			if epochRuns > 0 {
				idle = 0
			} else if idle++; idle*int(epochTick) >= int(epochLinger) {
				epochTicking = false
				epochMu.Unlock()
				return
			}
			epochMu.Unlock()
		}
	}()
}

// epochRunEnded notes that a run no longer executes wasm.
func epochRunEnded() {
	epochMu.Lock()
	epochRuns--
	epochMu.Unlock()
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

	memOnce sync.Once
	memMin  int64
}

// initialMemory is the size in bytes of the memory an instance of g starts
// with (its exported memory's minimum; 0 when it exports none). An
// instance cannot be made under a smaller memory limit.
func (g *GuestModule) initialMemory() int64 {
	g.memOnce.Do(func() {
		for _, e := range g.module.Exports() {
			if mt := e.Type().MemoryType(); mt != nil {
				g.memMin = int64(mt.Minimum()) * 65536
				return
			}
		}
	})
	return g.memMin
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

// guestSlot holds the module of one (wasm, cache) pair; its mutex is held
// while that module loads, which may mean compiling it for tens of
// seconds, so only callers of the same module wait for it.
type guestSlot struct {
	mu sync.Mutex
	g  *GuestModule
}

var (
	modulesMu sync.Mutex // guards modules, never held while loading
	modules   = map[string]*guestSlot{}
)

// LoadGuest returns the guest module for wasmPath, loading the compiled
// artifact at cachePath when it is usable and otherwise compiling the wasm
// and writing cachePath atomically. A corrupt, incompatible or unverified
// cache file is replaced, never an error and never loaded (gocore/guestcache).
// cachePath may be empty (no disk cache). Loading one module does not hold
// up loading another.
func LoadGuest(wasmPath, cachePath string) (*GuestModule, error) {
	key := wasmPath + "\x00" + cachePath
	modulesMu.Lock()
	slot := modules[key]
	if slot == nil {
		slot = &guestSlot{}
		modules[key] = slot
	}
	modulesMu.Unlock()
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.g != nil {
		return slot.g, nil
	}
	g, err := loadGuest(wasmPath, cachePath)
	if err != nil {
		return nil, err
	}
	slot.g = g
	return g, nil
}

// loadGuest loads the module for LoadGuest.
func loadGuest(wasmPath, cachePath string) (*GuestModule, error) {
	if _, err := os.Stat(wasmPath); err != nil {
		return nil, fmt.Errorf("WASM file not found: %s", wasmPath)
	}
	eng := sharedEngine()
	if cachePath != "" {
		if err := guestcache.TrustedDir(filepath.Dir(cachePath)); err != nil {
			// Native code from a directory others can write to is never
			// loaded: compile in memory instead, every time.
			warnUntrustedCache(err)
			cachePath = ""
		}
	}
	g := &GuestModule{WasmPath: wasmPath, CachePath: cachePath}
	if cachePath != "" {
		if m, err := loadCached(eng, wasmPath, cachePath); err == nil {
			g.module, g.FromCache = m, true
		} else if !errors.Is(err, os.ErrNotExist) {
			guestcache.RemoveArtifact(cachePath) // stale, corrupt or not ours: rebuilt below
		}
	}
	if g.module == nil && cachePath != "" {
		// Compile into the cache, once across processes (a lock file), with
		// a one-line note on stderr: this takes seconds.
		dir := filepath.Dir(cachePath)
		if entry, err := ensureCached(dir, wasmPath, guestcache.AnnounceCompile(dir, wasmPath)); err == nil && entry.Path == cachePath {
			if m, err := loadCached(eng, wasmPath, cachePath); err == nil {
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
	return g, nil
}

var untrustedCacheOnce sync.Once

// warnUntrustedCache says once per process why the cache is not used.
func warnUntrustedCache(err error) {
	untrustedCacheOnce.Do(func() {
		fmt.Fprintf(os.Stderr, "amla-sandbox: not using the module cache (%v); guests compile in memory\n", err)
	})
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
	_ = guestcache.WriteArtifact(cachePath, data)
	return m, nil
}

// loadCached loads the artifact at path for the guest at wasmPath once it
// is verified as this package's. An error wrapping os.ErrNotExist means
// there is none; any other error means it must not be loaded.
func loadCached(eng *wasmtime.Engine, wasmPath, path string) (*wasmtime.Module, error) {
	if err := guestcache.VerifyArtifact(wasmPath, path); err != nil {
		return nil, err
	}
	return wasmtime.NewModuleDeserializeFile(eng, path)
}
