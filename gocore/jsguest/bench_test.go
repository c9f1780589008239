package jsguest

import (
	"encoding/json"
	"testing"

	"amlasandbox/gocore/wire"
)

// Benchmarks of the JavaScript guest on this test host (numbers go to
// docs/performance.md): go test ./gocore/jsguest -run '^$' -bench . -benchtime 5x
//
// Compile is Cranelift compiling the module; InstantiateInit is a fresh
// store + instance + _initialize + amla_init (the work a snapshot would
// save); the Run* benchmarks are whole runs including InstantiateInit.

func BenchmarkCompile(b *testing.B) {
	guestModule(b)
	b.ReportMetric(float64(len(moduleWasm)), "module-bytes")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Compile(moduleWasm); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInstantiateInit(b *testing.B) {
	m := guestModule(b)
	for i := 0; i < b.N; i++ {
		g, err := Instantiate(m, js(""))
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}

func benchRun(b *testing.B, opts Options, want string) {
	m := guestModule(b)
	for i := 0; i < b.N; i++ {
		r, err := Run(m, opts)
		if err != nil {
			b.Fatal(err)
		}
		if r.Stdout != want || r.ExitCode != 0 {
			b.Fatalf("stdout %.200q stderr %.200q", r.Stdout, r.Stderr)
		}
	}
}

func BenchmarkRunConsoleLog1(b *testing.B) { benchRun(b, js(`console.log(1)`), "1\n") }

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
	opts := js(code)
	benchRun(b, opts, "[true,true]\n")
}

func BenchmarkRunPromiseAll10(b *testing.B) {
	opts := js(`const r = await Promise.all(Array.from({length: 10}, (_, i) => echo({i}))); return r.length`)
	opts.Tools = echoTools()
	opts.Input.Tools = []wire.ToolInfo{{Name: "echo"}}
	benchRun(b, opts, "10\n")
}

func BenchmarkRunToolResult10MB(b *testing.B) {
	rows := make([]map[string]any, 0, 100000)
	for i := 0; i < 100000; i++ {
		rows = append(rows, map[string]any{"id": i, "name": "some row name here", "value": float64(i) * 1.5, "tags": []string{"x", "y"}})
	}
	big, _ := json.Marshal(map[string]any{"rows": rows})
	opts := js(`const r = await data(); return r.rows.filter(x => x.id % 2).length`)
	opts.Tools = map[string]Tool{"data": func(json.RawMessage) Answer { return Answer{Result: big} }}
	opts.Input.Tools = []wire.ToolInfo{{Name: "data"}}
	b.ReportMetric(float64(len(big)), "result-bytes")
	benchRun(b, opts, "50000\n")
}
