package host

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wasmsnap"
	"amlasandbox/gocore/wire"
)

// SnapshotGuest runs a reactor guest's one-time set-up (_initialize, then
// amla_init) and returns a module whose instances start in that state
// (gocore/wasmsnap), so runs do not repeat it. The instance sees what a
// run's instance sees at that point: the preopened directories in the
// order runProc gives them and the environment PWD=HOME=/workspace; the
// amla host functions trap (set-up must not call them).
func SnapshotGuest(wasm []byte) ([]byte, error) {
	root, err := os.MkdirTemp("", "amla-snapshot-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	wasi := wasmtime.NewWasiConfig()
	wasi.SetArgv([]string{"amla-guest"})
	wasi.SetEnv([]string{"PWD", "HOME"}, []string{"/workspace", "/workspace"})
	for _, p := range preopens(root) {
		if err := os.MkdirAll(p.host, 0o700); err != nil {
			return nil, err
		}
		if err := wasi.PreopenDir(p.host, p.guest, p.dir, p.file); err != nil {
			return nil, fmt.Errorf("snapshot: preopening %s: %w", p.guest, err)
		}
	}
	engine := wasmtime.NewEngine()
	store := wasmtime.NewStore(engine)
	defer store.Close()
	store.SetWasi(wasi)
	linker := wasmtime.NewLinker(engine)
	if err := linker.DefineWasi(); err != nil {
		return nil, err
	}
	if err := wasmsnap.TrapImports(linker, wasm, wire.Module); err != nil {
		return nil, err
	}
	return wasmsnap.Snapshot(store, linker, wasm, setUp)
}

// setUp calls whichever of the reactor's set-up exports it has.
func setUp(store *wasmtime.Store, inst *wasmtime.Instance) error {
	for _, name := range []string{wire.ExportInitialize, wire.ExportInit} {
		if f := inst.GetFunc(store, name); f != nil {
			if _, err := f.Call(store); err != nil {
				return fmt.Errorf("calling %s: %w", name, err)
			}
		}
	}
	return nil
}

type preopen struct {
	host, guest string
	dir         wasmtime.WasiDirPerms
	file        wasmtime.WasiFilePerms
}

// preopens are a guest's directories, in the order every instance (and
// every snapshot) gets them: file descriptors follow this order.
func preopens(root string) []preopen {
	rw, rwf := wasmtime.DIR_READ|wasmtime.DIR_WRITE, wasmtime.FILE_READ|wasmtime.FILE_WRITE
	return []preopen{
		{root, "/", wasmtime.DIR_READ, wasmtime.FILE_READ},
		{filepath.Join(root, "workspace"), "/workspace", rw, rwf},
		{filepath.Join(root, "tmp"), "/tmp", rw, rwf},
	}
}
