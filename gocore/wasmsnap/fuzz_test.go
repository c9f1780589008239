package wasmsnap

import (
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// FuzzInstrumentRewrite feeds arbitrary bytes to the parser and rewriters:
// they must return an error or a module, never panic; what Instrument
// accepts Rewrite must accept with a matching capture; and when wasmtime
// validates the input, it validates both outputs.
func FuzzInstrumentRewrite(f *testing.F) {
	engine := wasmtime.NewEngine()
	f.Add([]byte(nil))
	f.Add(append([]byte(nil), wasmHeader...))
	f.Add(append(append([]byte(nil), wasmHeader...), 0x05, 0x03, 0x01, 0x00, 0x01))                   // one memory
	f.Add(append(append([]byte(nil), wasmHeader...), 0x05, 0x04, 0x01, 0x01, 0x01, 0x02))             // memory with max
	f.Add(append(append([]byte(nil), wasmHeader...), 0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x05, 0x0b)) // global
	for _, src := range []string{stateWAT, `(module (memory 1 3) (global (mut f64) (f64.const 1)) (data (i32.const 8) "x"))`} {
		b, err := wasmtime.Wat2Wasm(src)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		instr, err := Instrument(wasm)
		if err != nil {
			return
		}
		valid := wasmtime.ModuleValidate(engine, wasm) == nil
		if valid {
			if err := wasmtime.ModuleValidate(engine, instr); err != nil {
				t.Fatalf("the instrumented module of a valid one does not validate: %v", err)
			}
		}
		m, err := parseModule(wasm)
		if err != nil {
			t.Fatalf("Instrument accepted what parseModule refuses: %v", err)
		}
		l := m.memories[0]
		if l.min > 4 {
			return // keep the fuzzer's memory small
		}
		c := Capture{Memory: make([]byte, int(l.min)*pageSize), Globals: make([]Value, len(m.globals))}
		if len(c.Memory) > 0 {
			c.Memory[len(c.Memory)/2] = 1
		}
		for i, g := range m.globals {
			if g.mutable {
				c.Globals[i] = Value{Type: ValType(g.typ)}
			}
		}
		snap, err := Rewrite(wasm, c)
		if err != nil {
			t.Fatalf("Rewrite refused what Instrument accepted: %v", err)
		}
		if _, err := parseModule(snap); err != nil {
			t.Fatalf("Rewrite produced a module it cannot parse: %v", err)
		}
		if valid {
			if err := wasmtime.ModuleValidate(engine, snap); err != nil {
				t.Fatalf("the snapshot of a valid module does not validate: %v", err)
			}
		}
	})
}
