package pycore

import (
	"encoding/json"
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

// benchCacheDir keeps the compiled guests between benchmark runs.
var benchCacheDir = filepath.Join(os.TempDir(), "amla-pycore-bench-cache")

func benchSandboxRun(b *testing.B, language, code, want string) {
	benchRun(b, language, code, want, false)
}

// benchRun is benchSandboxRun in a sandbox that keeps state (keep) or not.
func benchRun(b *testing.B, language, code, want string, keep bool) {
	cfg := testConfig(b, nil, "")
	cfg.WasmPath = builtGuest(b, "amla_sandbox.wasm", "AMLA_WASM_PATH")
	cfg.JSWasmPath = builtGuest(b, "amla_js.wasm", "AMLA_JS_WASM_PATH")
	if language == wire.LangPython {
		cfg.PyWasmPath = builtGuest(b, "amla_python.wasm", "AMLA_PY_WASM_PATH")
	}
	cfg.KeepState = keep
	cfg.CacheDir = benchCacheDir
	cfg.MemoryLimit = 256 << 20
	h := newTestSandbox(b, cfg)
	run := func() {
		id, err := SandboxStart(h, language, code, "", false, false)
		if err != nil {
			b.Fatal(err)
		}
		for {
			out, err := SandboxStep(h, id, 100, true)
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

func BenchmarkRunPythonPrint(b *testing.B) { benchSandboxRun(b, "python", "print(1)", "1") }

// The same runs in sandboxes that keep state (docs/sessions.md): the
// instance is kept rather than reset.
func BenchmarkRunKeptShellEcho(b *testing.B) { benchRun(b, "shell", "echo 1", "1", true) }
func BenchmarkRunKeptJSConsoleLog(b *testing.B) {
	benchRun(b, "javascript", "console.log(1)", "1", true)
}
func BenchmarkRunKeptPythonPrint(b *testing.B) { benchRun(b, "python", "print(1)", "1", true) }
func BenchmarkRunKeptPythonPass(b *testing.B)  { benchRun(b, "python", "pass", "", true) }
