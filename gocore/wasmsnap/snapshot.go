package wasmsnap

import (
	"fmt"
	"math"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// InitFunc runs a module's initialisation on a fresh instance, for example
// by calling its "_initialize" export and then any init export of its own.
type InitFunc func(store *wasmtime.Store, inst *wasmtime.Instance) error

// CallExports returns an InitFunc that calls the named exports, which take
// no arguments, in order.
func CallExports(names ...string) InitFunc {
	return func(store *wasmtime.Store, inst *wasmtime.Instance) error {
		for _, name := range names {
			f := inst.GetFunc(store, name)
			if f == nil {
				return fmt.Errorf("the module exports no function %q", name)
			}
			if _, err := f.Call(store); err != nil {
				return fmt.Errorf("calling %s: %w", name, err)
			}
		}
		return nil
	}
}

// Snapshot instantiates Instrument(wasm) in store through linker, runs init
// on it, captures its memory and globals and returns Rewrite(wasm, capture):
// a module whose instances start where this one stood after init.
//
// The store carries everything the instance sees during init, so it must
// be set up as later runs will be: the same WASI preopens in the same order
// (file descriptors opened or looked up during init are frozen into the
// snapshot), and whatever environment variables, arguments and clock
// readings init consumes are frozen too. With epoch interruption on, give
// the store a deadline first. The store should serve this call only: the
// instance stays in it until the store is closed.
func Snapshot(store *wasmtime.Store, linker *wasmtime.Linker, wasm []byte, init InitFunc) ([]byte, error) {
	instrumented, err := Instrument(wasm)
	if err != nil {
		return nil, err
	}
	mod, err := wasmtime.NewModule(store.Engine, instrumented)
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: compiling the instrumented module: %w", err)
	}
	defer mod.Close()
	inst, err := linker.Instantiate(store, mod)
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: instantiating the instrumented module: %w", err)
	}
	if init != nil {
		if err := init(store, inst); err != nil {
			return nil, fmt.Errorf("wasmsnap: init: %w", err)
		}
	}
	c, err := CaptureInstance(store, inst, wasm)
	if err != nil {
		return nil, err
	}
	snap, err := Rewrite(wasm, c)
	if err != nil {
		return nil, err
	}
	if err := wasmtime.ModuleValidate(store.Engine, snap); err != nil {
		return nil, fmt.Errorf("wasmsnap: the rewritten module does not validate: %w", err)
	}
	return snap, nil
}

// CaptureInstance reads the state of inst, an instance of Instrument(wasm).
func CaptureInstance(store *wasmtime.Store, inst *wasmtime.Instance, wasm []byte) (Capture, error) {
	m, err := parseModule(wasm)
	if err != nil {
		return Capture{}, fmt.Errorf("wasmsnap: capture: %w", err)
	}
	ext := inst.GetExport(store, MemoryExport)
	if ext == nil || ext.Memory() == nil {
		return Capture{}, fmt.Errorf("wasmsnap: capture: the instance exports no %q; was it made from Instrument's output?", MemoryExport)
	}
	data := ext.Memory().UnsafeData(store)
	c := Capture{Memory: append([]byte(nil), data...), Globals: make([]Value, len(m.globals))}
	for i, g := range m.globals {
		if !isNumeric(g.typ) {
			continue
		}
		name := GlobalExport(i)
		ext := inst.GetExport(store, name)
		if ext == nil || ext.Global() == nil {
			return Capture{}, fmt.Errorf("wasmsnap: capture: the instance exports no global %q", name)
		}
		v := ext.Global().Get(store)
		switch v.Kind() {
		case wasmtime.KindI32:
			c.Globals[i] = ValueI32(v.I32())
		case wasmtime.KindI64:
			c.Globals[i] = ValueI64(v.I64())
		case wasmtime.KindF32:
			c.Globals[i] = Value{F32, uint64(math.Float32bits(v.F32()))}
		case wasmtime.KindF64:
			c.Globals[i] = Value{F64, math.Float64bits(v.F64())}
		default:
			return Capture{}, fmt.Errorf("wasmsnap: capture: global %q has kind %v", name, v.Kind())
		}
		if byte(c.Globals[i].Type) != g.typ {
			return Capture{}, fmt.Errorf("wasmsnap: capture: global %q is %v, the module declares %s", name, c.Globals[i].Type, typeName(g.typ))
		}
	}
	return c, nil
}

// TrapImports defines in linker every function that wasm imports from the
// module namespace as one that traps, naming itself, when called. A host
// uses it while taking a snapshot for its own host functions, which init
// must not call (their effects would not be part of the snapshot).
func TrapImports(linker *wasmtime.Linker, wasm []byte, namespace string) error {
	m, err := parseModule(wasm)
	if err != nil {
		return fmt.Errorf("wasmsnap: trap imports: %w", err)
	}
	types, err := funcTypes(m.sections)
	if err != nil {
		return fmt.Errorf("wasmsnap: trap imports: %w", err)
	}
	kind := func(t byte) (*wasmtime.ValType, error) {
		switch t {
		case typeI32:
			return wasmtime.NewValType(wasmtime.KindI32), nil
		case typeI64:
			return wasmtime.NewValType(wasmtime.KindI64), nil
		case typeF32:
			return wasmtime.NewValType(wasmtime.KindF32), nil
		case typeF64:
			return wasmtime.NewValType(wasmtime.KindF64), nil
		case typeFuncref:
			return wasmtime.NewValType(wasmtime.KindFuncref), nil
		case typeExternref:
			return wasmtime.NewValType(wasmtime.KindExternref), nil
		}
		return nil, fmt.Errorf("value type %s is not supported", typeName(t))
	}
	for _, imp := range m.funcImports {
		if imp.module != namespace {
			continue
		}
		if int(imp.typeIndex) >= len(types) {
			return fmt.Errorf("wasmsnap: trap imports: %s.%s has type %d, the module declares %d", imp.module, imp.name, imp.typeIndex, len(types))
		}
		var sig [2][]*wasmtime.ValType
		for j, list := range types[imp.typeIndex] {
			for _, t := range list {
				vt, err := kind(t)
				if err != nil {
					return fmt.Errorf("wasmsnap: trap imports: %s.%s: %w", imp.module, imp.name, err)
				}
				sig[j] = append(sig[j], vt)
			}
		}
		msg := fmt.Sprintf("host function %s.%s was called during snapshot init", imp.module, imp.name)
		err := linker.FuncNew(imp.module, imp.name, wasmtime.NewFuncType(sig[0], sig[1]),
			func(*wasmtime.Caller, []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
				return nil, wasmtime.NewTrap(msg)
			})
		if err != nil {
			return fmt.Errorf("wasmsnap: trap imports: defining %s.%s: %w", imp.module, imp.name, err)
		}
	}
	return nil
}
