package wasmsnap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// built caches a testdata module across tests and benchmarks.
type built struct {
	once sync.Once
	wasm []byte
	skip string
	err  error
}

var goReactor, cReactor built

// goReactorWasm builds testdata/goreactor as a wasip1 reactor.
func goReactorWasm(tb testing.TB) []byte {
	tb.Helper()
	goReactor.once.Do(func() {
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			if goBin, err = exec.LookPath("go"); err != nil {
				goReactor.err = fmt.Errorf("no go command: %v", err)
				return
			}
		}
		out := filepath.Join(os.TempDir(), fmt.Sprintf("wasmsnap-goreactor-%d.wasm", os.Getpid()))
		defer os.Remove(out)
		cmd := exec.Command(goBin, "build", "-buildmode=c-shared", "-o", out, ".")
		cmd.Dir = filepath.Join("testdata", "goreactor")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if msg, err := cmd.CombinedOutput(); err != nil {
			goReactor.err = fmt.Errorf("building the Go reactor: %v\n%s", err, msg)
			return
		}
		goReactor.wasm, goReactor.err = os.ReadFile(out)
	})
	if goReactor.err != nil {
		tb.Fatal(goReactor.err)
	}
	return goReactor.wasm
}

// zigPython finds a Python that can import ziglang.
func zigPython() (string, bool) {
	candidates := []string{os.Getenv("PYTHON"), "python3", "python"}
	if venv := os.Getenv("VIRTUAL_ENV"); venv != "" {
		candidates = append([]string{filepath.Join(venv, "bin", "python")}, candidates...)
	}
	for _, py := range candidates {
		if py == "" {
			continue
		}
		if exec.Command(py, "-c", "import ziglang").Run() == nil {
			return py, true
		}
	}
	return "", false
}

// cReactorWasm builds testdata/creactor with `python -m ziglang cc`, or skips.
func cReactorWasm(tb testing.TB) []byte {
	tb.Helper()
	cReactor.once.Do(func() {
		py, ok := zigPython()
		if !ok {
			cReactor.skip = "ziglang is not importable by $VIRTUAL_ENV/bin/python, $PYTHON, python3 or python (pip install ziglang==0.17.0); skipping the C reactor"
			return
		}
		out := filepath.Join(os.TempDir(), fmt.Sprintf("wasmsnap-creactor-%d.wasm", os.Getpid()))
		defer os.Remove(out)
		cmd := exec.Command(py, "-m", "ziglang", "cc", "-target", "wasm32-wasi", "-mexec-model=reactor", "-O2",
			"-o", out, filepath.Join("testdata", "creactor", "reactor.c"))
		if msg, err := cmd.CombinedOutput(); err != nil {
			cReactor.err = fmt.Errorf("building the C reactor: %v\n%s", err, msg)
			return
		}
		cReactor.wasm, cReactor.err = os.ReadFile(out)
	})
	if cReactor.skip != "" {
		tb.Skip(cReactor.skip)
	}
	if cReactor.err != nil {
		tb.Fatal(cReactor.err)
	}
	return cReactor.wasm
}

// wasiStore returns a store whose WASI context preopens "/", "/workspace"
// and "/tmp", in that order, as the host does; the returned directory is
// the host side of "/".
// WASMSNAP_PHASE is "snapshot" while a snapshot is taken and "run" after,
// so the test guests can tell when their init ran.
func wasiStore(tb testing.TB, engine *wasmtime.Engine, phase string) (*wasmtime.Store, string) {
	tb.Helper()
	root := tb.TempDir()
	return wasiStoreAt(tb, engine, phase, root), root
}

// wasiStoreAt is wasiStore on a given host directory.
func wasiStoreAt(tb testing.TB, engine *wasmtime.Engine, phase, root string) *wasmtime.Store {
	tb.Helper()
	store := wasmtime.NewStore(engine)
	wasi := wasmtime.NewWasiConfig()
	wasi.SetEnv([]string{"WASMSNAP_PHASE"}, []string{phase})
	for _, pre := range []struct {
		host, guest string
	}{{root, "/"}, {filepath.Join(root, "workspace"), "/workspace"}, {filepath.Join(root, "tmp"), "/tmp"}} {
		if err := os.MkdirAll(pre.host, 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := wasi.PreopenDir(pre.host, pre.guest, wasmtime.DIR_READ|wasmtime.DIR_WRITE, wasmtime.FILE_READ|wasmtime.FILE_WRITE); err != nil {
			tb.Fatal(err)
		}
	}
	store.SetWasi(wasi)
	return store
}

func wasiLinker(tb testing.TB, engine *wasmtime.Engine) *wasmtime.Linker {
	tb.Helper()
	linker := wasmtime.NewLinker(engine)
	if err := linker.DefineWasi(); err != nil {
		tb.Fatal(err)
	}
	return linker
}

func snapshotOf(t *testing.T, engine *wasmtime.Engine, wasm []byte, init InitFunc) []byte {
	t.Helper()
	store, _ := wasiStore(t, engine, "snapshot")
	defer store.Close()
	snap, err := Snapshot(store, wasiLinker(t, engine), wasm, init)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseModule(snap)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("original %d bytes, snapshot %d bytes: memory of %d pages, %d data segments",
		len(wasm), len(snap), m.memories[0].min, len(m.data))
	return snap
}

func TestGoReactorSnapshot(t *testing.T) {
	engine := wasmtime.NewEngine()
	orig := goReactorWasm(t)
	snap := snapshotOf(t, engine, orig, CallExports("_initialize"))
	mod, err := wasmtime.NewModule(engine, snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range mod.Exports() {
		if e.Name() == "_initialize" {
			t.Fatal("the snapshot still exports _initialize")
		}
	}
	linker := wasiLinker(t, engine)
	var mathRand, cryptoRand []any
	for run := 0; run < 2; run++ { // two instances do not share state
		store, root := wasiStore(t, engine, "run")
		inst, err := linker.Instantiate(store, mod)
		if err != nil {
			t.Fatal(err)
		}
		checks := []struct {
			fn   string
			args []any
			want any
		}{
			{"initCount", nil, int32(1)}, // package init ran once, before the snapshot
			{"initPhase", nil, int32(len("snapshot"))},
			{"phaseNow", nil, int32(len("snapshot"))}, // Go copied the environment during init
			{"wordSum", nil, int32(15)},               // the map built by init
			{"bump", nil, int32(1)},
			{"bump", nil, int32(2)},
			{"work", []any{int32(8)}, int64(8*(99999*100000/2) + 100000*(0+1+2+3+4+5+6+7))},
			{"writeFile", nil, int32(1)},
			{"initCount", nil, int32(1)},
		}
		for _, ck := range checks {
			if got := call(t, store, inst, ck.fn, ck.args...); got != ck.want {
				t.Errorf("instance %d: %s%v = %v, want %v", run, ck.fn, ck.args, got, ck.want)
			}
		}
		if b, err := os.ReadFile(filepath.Join(root, "workspace", "snap.txt")); err != nil || string(b) != "hello" {
			t.Errorf("instance %d: /workspace/snap.txt on the host = %q, %v", run, b, err)
		}
		mathRand = append(mathRand, call(t, store, inst, "mathRand"))
		cryptoRand = append(cryptoRand, call(t, store, inst, "cryptoRand"))
		// Time keeps working although the monotonic clock restarted.
		if got := call(t, store, inst, "sleepMillis", int32(20)).(int32); got < 20 || got > 5000 {
			t.Errorf("instance %d: sleeping 20 ms took %d ms", run, got)
		}
		store.Close()
	}
	// Random numbers read now differ; the runtime's own random state was
	// seeded during init and is the same in every instance (doc.go says so).
	if cryptoRand[0] == cryptoRand[1] {
		t.Errorf("crypto/rand gave %v in both instances", cryptoRand[0])
	}
	if mathRand[0] != mathRand[1] {
		t.Errorf("math/rand gave %v and %v: the runtime's random state is no longer frozen by the snapshot; update doc.go", mathRand[0], mathRand[1])
	}
}

func TestCReactorSnapshot(t *testing.T) {
	orig := cReactorWasm(t)
	engine := wasmtime.NewEngine()
	snap := snapshotOf(t, engine, orig, CallExports("_initialize", "init"))
	mod, err := wasmtime.NewModule(engine, snap)
	if err != nil {
		t.Fatal(err)
	}
	linker := wasiLinker(t, engine)
	for run := 0; run < 2; run++ {
		store, _ := wasiStore(t, engine, "run")
		inst, err := linker.Instantiate(store, mod)
		if err != nil {
			t.Fatal(err)
		}
		checks := []struct {
			fn   string
			args []any
			want any
		}{
			{"init_count", nil, int32(1)},
			{"init_phase", nil, int32(len("snapshot"))},
			{"greeting_len", nil, int32(len("snapshot"))},
			{"big_value", nil, int64(1) << 40},
			{"ratio_x10", nil, int32(25)},
			{"bump", nil, int32(1)},
			{"alloc_sum", []any{int32(100000)}, int64(99999 * 100000 / 2)},
			{"bump", nil, int32(2)},
		}
		for _, ck := range checks {
			if got := call(t, store, inst, ck.fn, ck.args...); got != ck.want {
				t.Errorf("instance %d: %s%v = %v, want %v", run, ck.fn, ck.args, got, ck.want)
			}
		}
		store.Close()
	}
}

// benchInstantiate measures a fresh store, instantiation, init and the
// first call, as a run of the host would pay them.
func benchInstantiate(b *testing.B, wasm []byte, init []string, first string) {
	engine := wasmtime.NewEngine()
	mod, err := wasmtime.NewModule(engine, wasm)
	if err != nil {
		b.Fatal(err)
	}
	linker := wasiLinker(b, engine)
	root := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		store := wasiStoreAt(b, engine, "run", root)
		b.StartTimer()
		inst, err := linker.Instantiate(store, mod)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range append(init, first) {
			if _, err := inst.GetFunc(store, name).Call(store); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
		}
		b.StopTimer()
		store.Close()
		b.StartTimer()
	}
}

func snapshotForBench(b *testing.B, wasm []byte, init ...string) []byte {
	engine := wasmtime.NewEngine()
	store, _ := wasiStore(b, engine, "snapshot")
	defer store.Close()
	snap, err := Snapshot(store, wasiLinker(b, engine), wasm, CallExports(init...))
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

func BenchmarkGoReactorOriginal(b *testing.B) {
	benchInstantiate(b, goReactorWasm(b), []string{"_initialize"}, "wordSum")
}

func BenchmarkGoReactorSnapshot(b *testing.B) {
	benchInstantiate(b, snapshotForBench(b, goReactorWasm(b), "_initialize"), nil, "wordSum")
}

func BenchmarkCReactorOriginal(b *testing.B) {
	benchInstantiate(b, cReactorWasm(b), []string{"_initialize", "init"}, "greeting_len")
}

func BenchmarkCReactorSnapshot(b *testing.B) {
	benchInstantiate(b, snapshotForBench(b, cReactorWasm(b), "_initialize", "init"), nil, "greeting_len")
}

// BenchmarkRewriteGoReactor measures the pure-Go part of making a
// snapshot: Rewrite of the Go reactor with its captured state.
func BenchmarkRewriteGoReactor(b *testing.B) {
	wasm := goReactorWasm(b)
	engine := wasmtime.NewEngine()
	store, _ := wasiStore(b, engine, "snapshot")
	defer store.Close()
	instr, err := Instrument(wasm)
	if err != nil {
		b.Fatal(err)
	}
	mod, err := wasmtime.NewModule(engine, instr)
	if err != nil {
		b.Fatal(err)
	}
	inst, err := wasiLinker(b, engine).Instantiate(store, mod)
	if err != nil {
		b.Fatal(err)
	}
	if err := CallExports("_initialize")(store, inst); err != nil {
		b.Fatal(err)
	}
	c, err := CaptureInstance(store, inst, wasm)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(c.Memory)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Rewrite(wasm, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotGoReactor measures making a snapshot end to end:
// Instrument, compiling it, init, capture, Rewrite and validation.
func BenchmarkSnapshotGoReactor(b *testing.B) {
	wasm := goReactorWasm(b)
	engine := wasmtime.NewEngine()
	linker := wasiLinker(b, engine)
	root := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		store := wasiStoreAt(b, engine, "snapshot", root)
		if _, err := Snapshot(store, linker, wasm, CallExports("_initialize")); err != nil {
			b.Fatal(err)
		}
		store.Close()
	}
}
