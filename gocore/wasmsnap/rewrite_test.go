package wasmsnap

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

func wat(t *testing.T, src string) []byte {
	t.Helper()
	b, err := wasmtime.Wat2Wasm(src)
	if err != nil {
		t.Fatalf("wat2wasm: %v", err)
	}
	return b
}

// instantiate compiles wasm and instantiates it with imports.
func instantiate(t *testing.T, store *wasmtime.Store, wasm []byte, imports ...wasmtime.AsExtern) *wasmtime.Instance {
	t.Helper()
	mod, err := wasmtime.NewModule(store.Engine, wasm)
	if err != nil {
		t.Fatalf("compiling: %v", err)
	}
	inst, err := wasmtime.NewInstance(store, mod, imports)
	if err != nil {
		t.Fatalf("instantiating: %v", err)
	}
	return inst
}

func call(t *testing.T, store *wasmtime.Store, inst *wasmtime.Instance, name string, args ...any) any {
	t.Helper()
	f := inst.GetFunc(store, name)
	if f == nil {
		t.Fatalf("no export %q", name)
	}
	v, err := f.Call(store, args...)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return v
}

const stateWAT = `(module
  (import "env" "g0" (global $imp i32))
  (memory 1 100)
  (global $a (mut i32) (i32.const 0))
  (global $b (mut i64) (i64.const 0))
  (global $c (mut f32) (f32.const 0))
  (global $d (mut f64) (f64.const 0))
  (global $k i32 (i32.const 42))
  (global $r funcref (ref.null func))
  (global $starts (mut i32) (i32.const 0))
  (global $e (mut i32) (global.get $imp))
  (data $p "passive!")
  (data (i32.const 16) "hello")
  (func $start (global.set $starts (i32.add (global.get $starts) (i32.const 1))))
  (start $start)
  (func (export "init")
    (global.set $a (i32.const -123456))
    (global.set $b (i64.const 0x123456789abcdef))
    (global.set $c (f32.const 1.5))
    (global.set $d (f64.const -2.25))
    (global.set $e (i32.add (global.get $e) (i32.const 1)))
    (drop (memory.grow (i32.const 2)))
    (i32.store (i32.const 70000) (i32.const 0x01020304))
    (i32.store8 (i32.const 140000) (i32.const 9)))
  (func (export "a") (result i32) global.get $a)
  (func (export "b") (result i64) global.get $b)
  (func (export "c") (result f32) global.get $c)
  (func (export "d") (result f64) global.get $d)
  (func (export "e") (result i32) global.get $e)
  (func (export "k") (result i32) global.get $k)
  (func (export "starts") (result i32) global.get $starts)
  (func (export "copy_passive") (memory.init $p (i32.const 200) (i32.const 0) (i32.const 8)))
  (func (export "load8") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "size") (result i32) memory.size))`

func TestInstrumentCaptureRewrite(t *testing.T) {
	engine := wasmtime.NewEngine()
	orig := wat(t, stateWAT)
	instr, err := Instrument(orig)
	if err != nil {
		t.Fatal(err)
	}
	imp := func(store *wasmtime.Store) *wasmtime.Global {
		g, err := wasmtime.NewGlobal(store, wasmtime.NewGlobalType(wasmtime.NewValType(wasmtime.KindI32), false), wasmtime.ValI32(1000))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	store := wasmtime.NewStore(engine)
	inst := instantiate(t, store, instr, imp(store))
	call(t, store, inst, "init")
	c, err := CaptureInstance(store, inst, orig)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Memory) != 3*pageSize {
		t.Fatalf("captured %d bytes of memory, want 3 pages", len(c.Memory))
	}
	wantGlobals := []Value{ValueI32(-123456), ValueI64(0x123456789abcdef), ValueF32(1.5), ValueF64(-2.25), ValueI32(42), {}, ValueI32(1), ValueI32(1001)}
	if len(c.Globals) != len(wantGlobals) {
		t.Fatalf("captured %d globals, want %d", len(c.Globals), len(wantGlobals))
	}
	for i, want := range wantGlobals {
		if c.Globals[i] != want {
			t.Errorf("global %d = %v, want %v", i, c.Globals[i], want)
		}
	}

	snap, err := Rewrite(orig, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := wasmtime.ModuleValidate(engine, snap); err != nil {
		t.Fatalf("snapshot does not validate: %v", err)
	}
	m, err := parseModule(snap)
	if err != nil {
		t.Fatal(err)
	}
	resets := map[string]bool{}
	for _, e := range m.exports {
		if strings.HasPrefix(e.name, ResetGlobalPrefix) {
			resets[e.name] = true
		} else if strings.HasPrefix(e.name, "__snap_") {
			t.Errorf("snapshot exports %q", e.name)
		}
	}
	// Every defined mutable global, and only those, for resetting.
	for i, g := range m.globals {
		if g.mutable != resets[ResetGlobalExport(i)] {
			t.Errorf("global %d (mutable %v): reset export present %v", i, g.mutable, resets[ResetGlobalExport(i)])
		}
	}
	if len(resets) == 0 {
		t.Error("the snapshot exports no global for resetting")
	}
	for _, s := range m.sections {
		if s.id == secStart {
			t.Error("snapshot still has a start section")
		}
	}
	if !m.hasDataCount {
		t.Error("snapshot lost its DataCount section")
	}
	// Segment indices keep their meaning: 0 is the passive one, 1 the
	// emptied active one; the captured memory follows.
	if len(m.data) < 3 || !m.data[0].passive || !bytes.Contains(m.data[0].raw, []byte("passive!")) ||
		!bytes.Equal(m.data[1].raw, []byte{0x00, 0x41, 0x00, 0x0b, 0x00}) {
		t.Errorf("snapshot data segments do not keep the original indices: %d segments, first %q", len(m.data), m.data[0].raw)
	}

	for run := 0; run < 2; run++ {
		store2 := wasmtime.NewStore(engine)
		inst2 := instantiate(t, store2, snap, imp(store2))
		checks := []struct {
			fn   string
			args []any
			want any
		}{
			{"a", nil, int32(-123456)},
			{"b", nil, int64(0x123456789abcdef)},
			{"c", nil, float32(1.5)},
			{"d", nil, float64(-2.25)},
			{"e", nil, int32(1001)},
			{"k", nil, int32(42)},
			{"starts", nil, int32(1)}, // the start function ran once, before the snapshot
			{"size", nil, int32(3)},
			{"load8", []any{int32(16)}, int32('h')},
			{"load8", []any{int32(20)}, int32('o')},
			{"load8", []any{int32(70000)}, int32(4)},
			{"load8", []any{int32(70003)}, int32(1)},
			{"load8", []any{int32(140000)}, int32(9)},
			{"load8", []any{int32(200)}, int32(0)},
		}
		for _, ck := range checks {
			if got := call(t, store2, inst2, ck.fn, ck.args...); got != ck.want {
				t.Errorf("run %d: %s%v = %v, want %v", run, ck.fn, ck.args, got, ck.want)
			}
		}
		// The passive segment is still there under its index.
		call(t, store2, inst2, "copy_passive")
		if got := call(t, store2, inst2, "load8", int32(200)); got != int32('p') {
			t.Errorf("after memory.init, load8(200) = %v, want 'p'", got)
		}
	}
}

// A module with no export and no data section: Instrument adds the one,
// Rewrite the other.
func TestRewriteAddsMissingSections(t *testing.T) {
	engine := wasmtime.NewEngine()
	orig := wat(t, `(module
  (memory 1)
  (global $g (mut i64) (i64.const 5))
  (func $start
    (i32.store (i32.const 1024) (i32.const 0x7f7f7f7f))
    (global.set $g (i64.const -9)))
  (start $start))`)
	instr, err := Instrument(orig)
	if err != nil {
		t.Fatal(err)
	}
	store := wasmtime.NewStore(engine)
	c, err := CaptureInstance(store, instantiate(t, store, instr), orig)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Rewrite(orig, c)
	if err != nil {
		t.Fatal(err)
	}
	// Read the snapshot's state through its own instrumentation.
	instr2, err := Instrument(snap)
	if err != nil {
		t.Fatal(err)
	}
	store2 := wasmtime.NewStore(engine)
	c2, err := CaptureInstance(store2, instantiate(t, store2, instr2), snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c2.Memory, c.Memory) {
		t.Error("the snapshot's memory differs from the captured memory")
	}
	if c2.Globals[0] != ValueI64(-9) {
		t.Errorf("global = %v, want i64:-9", c2.Globals[0])
	}
	// A snapshot of the snapshot exports its reset globals once.
	snap2, err := Rewrite(snap, c2)
	if err != nil {
		t.Fatal(err)
	}
	if err := wasmtime.ModuleValidate(engine, snap2); err != nil {
		t.Fatalf("snapshot of a snapshot does not validate: %v", err)
	}
	m2, err := parseModule(snap2)
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.exports) != 1 || m2.exports[0].name != ResetGlobalExport(0) {
		t.Errorf("snapshot of a snapshot exports %+v, want only %s", m2.exports, ResetGlobalExport(0))
	}
}

func TestValueConstExpr(t *testing.T) {
	tests := []struct {
		v    Value
		want []byte
	}{
		{ValueI32(0), []byte{0x41, 0x00, 0x0b}},
		{ValueI32(-1), []byte{0x41, 0x7f, 0x0b}},
		{ValueI32(math.MinInt32), []byte{0x41, 0x80, 0x80, 0x80, 0x80, 0x78, 0x0b}},
		{ValueI32(65536), []byte{0x41, 0x80, 0x80, 0x04, 0x0b}},
		{ValueI64(-2), []byte{0x42, 0x7e, 0x0b}},
		{ValueI64(math.MaxInt64), []byte{0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x0b}},
		{ValueF32(1), []byte{0x43, 0x00, 0x00, 0x80, 0x3f, 0x0b}},
		{Value{F32, 0x7fc00001}, []byte{0x43, 0x01, 0x00, 0xc0, 0x7f, 0x0b}}, // NaN payload kept
		{ValueF64(-2.25), []byte{0x44, 0, 0, 0, 0, 0, 0, 0x02, 0xc0, 0x0b}},
	}
	for _, tt := range tests {
		got, err := tt.v.constExpr()
		if err != nil {
			t.Errorf("%v: %v", tt.v, err)
			continue
		}
		if !bytes.Equal(got, tt.want) {
			t.Errorf("%v: % x, want % x", tt.v, got, tt.want)
		}
		r := &reader{buf: got, what: "test"}
		if raw, err := r.constExpr(); err != nil || !bytes.Equal(raw, got) {
			t.Errorf("%v: reading it back gave % x, %v", tt.v, raw, err)
		}
	}
	if _, err := (Value{}).constExpr(); err == nil {
		t.Error("the zero Value encoded without error")
	}
}

func TestPlanSegments(t *testing.T) {
	mem := func(size int, nonZero ...int) []byte {
		b := make([]byte, size)
		for _, i := range nonZero {
			b[i] = 1
		}
		return b
	}
	tests := []struct {
		name string
		mem  []byte
		gap  int
		max  int
		want []span
	}{
		{"empty", nil, 4, 10, nil},
		{"all zero", mem(4096), 4, 10, nil},
		{"one byte", mem(64, 10), 4, 10, []span{{10, 11}}},
		{"first and last", mem(64, 0, 63), 4, 10, []span{{0, 1}, {63, 64}}},
		{"unaligned run", mem(64, 3, 4, 5, 6, 7, 8, 9), 4, 10, []span{{3, 10}}},
		{"gap below threshold merges", mem(64, 10, 13), 3, 10, []span{{10, 14}}},
		{"gap at threshold splits", mem(64, 10, 14), 3, 10, []span{{10, 11}, {14, 15}}},
		{"too many spans double the gap", mem(64, 0, 4, 8, 12, 40), 1, 2, []span{{0, 13}, {40, 41}}},
		{"one span when max is 1", mem(64, 0, 4, 8, 12, 40), 1, 1, []span{{0, 41}}},
		{"all non-zero", bytes.Repeat([]byte{0xff}, 100), 4, 10, []span{{0, 100}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := planSegments(tt.mem, tt.gap, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
			// Every non-zero byte is covered.
			for i, b := range tt.mem {
				if b == 0 {
					continue
				}
				covered := false
				for _, s := range got {
					covered = covered || (i >= s.off && i < s.end)
				}
				if !covered {
					t.Fatalf("byte %d is not covered by %v", i, got)
				}
			}
		})
	}
	if _, err := planSegments(mem(16, 3), 4, 0); err == nil {
		t.Error("no room for segments but non-zero memory: no error")
	}
}

func TestRejects(t *testing.T) {
	valid := wat(t, `(module (memory 1) (global (mut i32) (i32.const 0)))`)
	page := make([]byte, pageSize)
	tests := []struct {
		name    string
		wasm    []byte
		capture *Capture // nil: Instrument is tested
		wantErr string
	}{
		{"not wasm", []byte("hello world"), nil, "not a WebAssembly binary"},
		{"component", []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}, nil, "components are not supported"},
		{"truncated section", append(append([]byte(nil), wasmHeader...), 0x01, 0x10, 0x00), nil, "runs past the end"},
		{"unknown section", append(append([]byte(nil), wasmHeader...), 0x20, 0x00), nil, "unknown section id 32"},
		{"sections out of order", append(append([]byte(nil), wasmHeader...), 0x05, 0x01, 0x00, 0x01, 0x01, 0x00), nil, "type section at offset 11: out of order"},
		{"no memory", wat(t, `(module)`), nil, "defines no memory"},
		{"imported memory", wat(t, `(module (import "env" "mem" (memory 1)))`), nil, "imported memory"},
		{"two memories", wat(t, `(module (memory 1) (memory 1))`), nil, "2 memories"},
		{"memory64", wat(t, `(module (memory i64 1))`), nil, "memory64"},
		{"shared memory", wat(t, `(module (memory 1 2 shared))`), nil, "shared memory"},
		{"mutable funcref global", wat(t, `(module (memory 1) (global (mut funcref) (ref.null func)))`), nil, "mutable funcref"},
		{"already instrumented", wat(t, `(module (memory (export "__snap_memory") 1))`), nil, "already exports \"__snap_memory\""},
		{"memory not whole pages", valid, &Capture{Memory: make([]byte, 100), Globals: []Value{ValueI32(0)}}, "not a whole number"},
		{"memory below minimum", wat(t, `(module (memory 2))`), &Capture{Memory: page}, "fewer than the module's minimum of 2"},
		{"memory above maximum", wat(t, `(module (memory 1 1))`), &Capture{Memory: make([]byte, 2*pageSize)}, "more than the module's maximum of 1"},
		{"global count", valid, &Capture{Memory: page}, "0 captured values for 1 defined globals"},
		{"global type", valid, &Capture{Memory: page, Globals: []Value{ValueI64(1)}}, "mutable i32, captured value is i64:1"},
		{"uncaptured mutable global", valid, &Capture{Memory: page, Globals: []Value{{}}}, "captured value is uncaptured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.capture == nil {
				_, err = Instrument(tt.wasm)
			} else {
				_, err = Rewrite(tt.wasm, *tt.capture)
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// Malformed bytes inside a section are reported with the section and offset.
func TestErrorNamesOffset(t *testing.T) {
	// memory section (id 5) with one memory whose limits flag is 0x00 and
	// whose minimum is an over-long LEB128.
	bad := append(append([]byte(nil), wasmHeader...), 0x05, 0x07, 0x01, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80)
	_, err := Instrument(bad)
	if err == nil || !strings.Contains(err.Error(), "memory section at offset 12") {
		t.Fatalf("err = %v, want it to name the memory section at offset 12", err)
	}
}

// Without a DataCount section no code names a segment, so the original
// active segments go and only the captured memory's segments remain.
func TestRewriteWithoutDataCount(t *testing.T) {
	engine := wasmtime.NewEngine()
	orig := wat(t, `(module (memory 1)
  (data (i32.const 0) "a") (data (i32.const 100) "b") (data (i32.const 5000) "c"))`)
	if m, err := parseModule(orig); err != nil || m.hasDataCount || len(m.data) != 3 {
		t.Fatalf("test module: %v, DataCount %v, %d segments", err, m.hasDataCount, len(m.data))
	}
	instr, err := Instrument(orig)
	if err != nil {
		t.Fatal(err)
	}
	store := wasmtime.NewStore(engine)
	c, err := CaptureInstance(store, instantiate(t, store, instr), orig)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Rewrite(orig, c)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseModule(snap)
	if err != nil {
		t.Fatal(err)
	}
	if m.hasDataCount || len(m.data) != 2 {
		t.Fatalf("snapshot: DataCount %v, %d segments; want none and 2 (bytes 0-100 merged, 5000 alone)", m.hasDataCount, len(m.data))
	}
	instr2, err := Instrument(snap)
	if err != nil {
		t.Fatal(err)
	}
	store2 := wasmtime.NewStore(engine)
	c2, err := CaptureInstance(store2, instantiate(t, store2, instr2), snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c2.Memory, c.Memory) {
		t.Error("the snapshot's memory differs from the captured memory")
	}
}

func TestTrapImports(t *testing.T) {
	engine := wasmtime.NewEngine()
	orig := wat(t, `(module
  (import "host" "get" (func $get (param i32 i64 f32 f64) (result i32)))
  (import "host" "note" (func $note))
  (import "other" "f" (func $f))
  (memory 1)
  (global $g (mut i32) (i32.const 0))
  (func (export "init") (global.set $g (i32.const 7)))
  (func (export "bad") (drop (call $get (i32.const 1) (i64.const 2) (f32.const 3) (f64.const 4))))
  (func (export "g") (result i32) global.get $g))`)
	linker := wasmtime.NewLinker(engine)
	if err := TrapImports(linker, orig, "host"); err != nil {
		t.Fatal(err)
	}
	if err := linker.FuncWrap("other", "f", func() {}); err != nil {
		t.Fatal(err)
	}
	// Init that calls no host function snapshots fine.
	snap, err := Snapshot(wasmtime.NewStore(engine), linker, orig, CallExports("init"))
	if err != nil {
		t.Fatal(err)
	}
	store := wasmtime.NewStore(engine)
	mod, err := wasmtime.NewModule(engine, snap)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := linker.Instantiate(store, mod)
	if err != nil {
		t.Fatal(err)
	}
	if got := call(t, store, inst, "g"); got != int32(7) {
		t.Errorf("g = %v, want 7", got)
	}
	// Init that calls one fails, naming it.
	_, err = Snapshot(wasmtime.NewStore(engine), linker, orig, CallExports("bad"))
	if err == nil || !strings.Contains(err.Error(), "host function host.get was called during snapshot init") {
		t.Fatalf("err = %v, want the trap naming host.get", err)
	}
}
