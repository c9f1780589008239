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
// They need the built guests (python setup.py build_go --inplace).

func builtGuest(b *testing.B, name string) string {
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "amla_sandbox", name)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s not built: %v", p, err)
	}
	return p
}

func benchSandboxRun(b *testing.B, language, code, want string) {
	cfg, _ := json.Marshal(sandboxConfig{
		WasmPath:    builtGuest(b, "amla_sandbox.wasm"),
		JSWasmPath:  builtGuest(b, "amla_js.wasm"),
		CachePath:   filepath.Join(os.TempDir(), "amla-pycore-bench-shell.cwasm"),
		JSCachePath: filepath.Join(os.TempDir(), "amla-pycore-bench-js.cwasm"),
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
