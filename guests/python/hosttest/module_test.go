package hosttest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"amlasandbox/gocore/host"
)

// The guest under test: $AMLA_PY_WASM (a module as build.py writes it,
// not yet snapshotted), or built with build.py, which keeps its result in
// the user cache directory under a hash of its inputs (the first build
// takes several minutes; later ones copy the cached module). The module is
// snapshotted here as setup.py does, and the snapshot compiled once per
// test process, with its artifact cached under the OS temp directory.

var (
	guestOnce sync.Once
	guestVal  *host.GuestModule
	guestErr  error
)

func sourceDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

func python() string {
	if p := os.Getenv("AMLA_PYTHON"); p != "" {
		return p
	}
	if v := os.Getenv("VIRTUAL_ENV"); v != "" {
		if p := filepath.Join(v, "bin", "python"); fileExists(p) {
			return p
		}
	}
	if p := filepath.Join(sourceDir(), "..", "..", "..", ".venv", "bin", "python"); fileExists(p) {
		return p
	}
	return "python3"
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func loadGuest() (*host.GuestModule, error) {
	dir := filepath.Join(os.TempDir(), "amla-pyguest-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	wasm := os.Getenv("AMLA_PY_WASM")
	if wasm == "" {
		wasm = filepath.Join(dir, "amla_python.wasm")
		cmd := exec.Command(python(), filepath.Join(sourceDir(), "build.py"), "--out", wasm,
			"--work-dir", filepath.Join(dir, "work"))
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, err
		}
	}
	raw, err := os.ReadFile(wasm)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	key := hex.EncodeToString(sum[:])[:16]
	snapPath := filepath.Join(dir, "snapshot-"+key+".wasm")
	if !fileExists(snapPath) {
		// Snapshots of earlier builds and their compiled artifacts (tens
		// of megabytes each) go.
		old, _ := filepath.Glob(filepath.Join(dir, "*.cwasm"))
		snaps, _ := filepath.Glob(filepath.Join(dir, "snapshot-*.wasm"))
		for _, f := range append(old, snaps...) {
			os.Remove(f)
		}
		snap, err := host.SnapshotGuest(raw)
		if err != nil {
			return nil, err
		}
		tmp := snapPath + ".tmp"
		if err := os.WriteFile(tmp, snap, 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, snapPath); err != nil {
			return nil, err
		}
	}
	return host.LoadGuest(snapPath, filepath.Join(dir, "snapshot-"+key+".cwasm"))
}

var (
	shellOnce sync.Once
	shellVal  *host.GuestModule
	shellErr  error
)

// shellGuest returns the shell guest, built from guests/shell and
// snapshotted as setup.py does, for the tests of shell() from Python.
func shellGuest(t testing.TB) *host.GuestModule {
	t.Helper()
	shellOnce.Do(func() {
		dir, err := os.MkdirTemp("", "amla-pyguest-shell-")
		if err != nil {
			shellErr = err
			return
		}
		wasm := filepath.Join(dir, "shell.wasm")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-buildmode=c-shared", "-o", wasm, "./guests/shell/cmd/guest")
		cmd.Dir = filepath.Join(sourceDir(), "..", "..")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			shellErr = fmt.Errorf("building the shell guest: %v\n%s", err, out)
			return
		}
		raw, err := os.ReadFile(wasm)
		if err != nil {
			shellErr = err
			return
		}
		snap, err := host.SnapshotGuest(raw)
		if err != nil {
			shellErr = err
			return
		}
		if err := os.WriteFile(wasm, snap, 0o644); err != nil {
			shellErr = err
			return
		}
		shellVal, shellErr = host.LoadGuest(wasm, filepath.Join(dir, "shell.cwasm"))
	})
	if shellErr != nil {
		t.Fatalf("the shell guest: %v", shellErr)
	}
	return shellVal
}

// guest returns the snapshotted Python guest, building it if need be.
func guest(t testing.TB) *host.GuestModule {
	t.Helper()
	guestOnce.Do(func() { guestVal, guestErr = loadGuest() })
	if guestErr != nil {
		t.Fatalf("the Python guest: %v", guestErr)
	}
	return guestVal
}
