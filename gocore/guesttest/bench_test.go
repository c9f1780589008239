package guesttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// Benchmarks of the guests on the real host (numbers go to
// docs/performance.md):
//
//	go test ./gocore/guesttest -run '^$' -bench . -benchtime 5x
//
// Compile* is Cranelift compiling a guest (what a cache miss costs); the
// Run* benchmarks are whole warm runs of one sandbox, the instance reset
// between runs as in the product, tool requests answered in Go.

func benchCompile(b *testing.B, g *host.GuestModule) {
	info, err := os.Stat(g.WasmPath)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(info.Size()), "module-bytes")
	out := filepath.Join(b.TempDir(), "g.cwasm")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := host.Precompile(g.WasmPath, out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileJS(b *testing.B) {
	js, _ := guests(b)
	benchCompile(b, js)
}

func BenchmarkCompileShell(b *testing.B) {
	_, shell := guests(b)
	benchCompile(b, shell)
}

func benchRun(b *testing.B, opts Options, want string) {
	js, shell := guests(b)
	sb, err := host.NewSandbox(nil, host.Config{
		Tools:  opts.Tools,
		Guests: map[string]*host.GuestModule{wire.LangJavaScript: js, wire.LangShell: shell},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	runOn(b, sb, opts) // the first run makes the instance the others reuse
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := runOn(b, sb, opts)
		if r.Stdout != want || r.ExitCode != 0 {
			b.Fatalf("stdout %.200q stderr %.200q error %.200q", r.Stdout, r.Stderr, r.Error)
		}
	}
}

func BenchmarkRunConsoleLog1(b *testing.B) { benchRun(b, js(`console.log(1)`), "1\n") }

func BenchmarkRunShellEcho1(b *testing.B) { benchRun(b, sh(`echo 1`), "1\n") }

func BenchmarkRunLoop1M(b *testing.B) {
	benchRun(b, js(`let s = 0; for (let i = 0; i < 1000000; i++) { s += i } return s`), "499999500000\n")
}

func BenchmarkRunJSON5MB(b *testing.B) {
	code := `const rows = [];
for (let i = 0; i < 80000; i++) rows.push({id: i, name: "row " + i, tags: ["a", "b"], score: i / 7, ok: i % 2 === 0});
const text = JSON.stringify(rows);
const back = JSON.parse(text);
const again = JSON.stringify(back);
return [text.length > 5e6, again.length === text.length]`
	benchRun(b, js(code), "[true,true]\n")
}

func BenchmarkRunPromiseAll10(b *testing.B) {
	opts := js(`const r = await Promise.all(Array.from({length: 10}, (_, i) => echo({i}))); return r.length`)
	opts.Handlers = echoTools()
	opts.Tools = []wire.ToolInfo{{Name: "echo"}}
	benchRun(b, opts, "10\n")
}

func BenchmarkRunToolResult10MB(b *testing.B) {
	rows := make([]map[string]any, 0, 100000)
	for i := 0; i < 100000; i++ {
		rows = append(rows, map[string]any{"id": i, "name": "some row name here", "value": float64(i) * 1.5, "tags": []string{"x", "y"}})
	}
	big, _ := json.Marshal(map[string]any{"rows": rows})
	opts := js(`const r = await data(); return r.rows.filter(x => x.id % 2).length`)
	opts.Handlers = map[string]Tool{"data": func(json.RawMessage) Answer { return Answer{Result: big} }}
	opts.Tools = []wire.ToolInfo{{Name: "data"}}
	b.ReportMetric(float64(len(big)), "result-bytes")
	benchRun(b, opts, "50000\n")
}
