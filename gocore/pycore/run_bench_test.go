package pycore

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

// Benchmarks of one whole run through the API Python uses, without
// Python: go test ./gocore/pycore -run '^$' -bench Run
// They need the built guests (python setup.py build_go --inplace), or
// AMLA_WASM_PATH / AMLA_JS_WASM_PATH naming others.

// builtGuest is the guest module the package holds, or the one the
// environment variable env names (as for the Python package).
func builtGuest(b *testing.B, name, env string) string {
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "amla_sandbox", name)
	if v := os.Getenv(env); v != "" {
		p = v
	}
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s not built: %v", p, err)
	}
	return p
}

// benchCache is a compiled-module cache path for wasm, one per module
// content, kept between benchmark runs.
func benchCache(b *testing.B, wasm string) string {
	data, err := os.ReadFile(wasm)
	if err != nil {
		b.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return filepath.Join(os.TempDir(), fmt.Sprintf("amla-pycore-bench-%x.cwasm", sum[:8]))
}

func benchSandboxRun(b *testing.B, language, code, want string) {
	shell := builtGuest(b, "amla_sandbox.wasm", "AMLA_WASM_PATH")
	js := builtGuest(b, "amla_js.wasm", "AMLA_JS_WASM_PATH")
	cfg, _ := json.Marshal(sandboxConfig{
		WasmPath:    shell,
		JSWasmPath:  js,
		CachePath:   benchCache(b, shell),
		JSCachePath: benchCache(b, js),
		TimeoutS:    30,
		MemoryLimit: 256 << 20,
	})
	h, err := SandboxNew(string(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer SandboxClose(h)
	run := func() {
		if err := SandboxStart(h, language, code, "", false, false); err != nil {
			b.Fatal(err)
		}
		for {
			out, err := SandboxStep(h, 100, true)
			if err != nil {
				b.Fatal(err)
			}
			var ev wire.Event
			if err := json.Unmarshal([]byte(out), &ev); err != nil {
				b.Fatal(err)
			}
			if ev.Kind == wire.EventDone {
				if !strings.Contains(ev.Result.Stdout, want) {
					b.Fatalf("stdout %q stderr %q", ev.Result.Stdout, ev.Result.Stderr)
				}
				return
			}
		}
	}
	run()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

func BenchmarkRunShellEcho(b *testing.B) { benchSandboxRun(b, "shell", "echo 1", "1") }

func BenchmarkRunJSConsoleLog(b *testing.B) {
	benchSandboxRun(b, "javascript", "console.log(1)", "1")
}
