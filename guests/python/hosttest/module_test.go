package hosttest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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
//
// Where build.py cannot build it here (no ziglang, no Python to run it,
// the CPython sources not downloadable) the tests use the snapshot a
// build of this checkout put beside the package
// (amla_sandbox/amla_python.wasm), and with neither they skip, saying why.
// A build that fails for any other reason fails them.

// unavailable is why the guest cannot be had on this machine: the tests
// skip with it.
type unavailable struct{ why string }

func (u *unavailable) Error() string { return u.why }

// cannotBuildHere tells a build that failed for want of a toolchain or
// sources (build.py's messages for those) from one that failed on the
// guest's code.
func cannotBuildHere(err error, out []byte) bool {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return true
	}
	for _, why := range []string{"compiled with PyPI's ziglang", "has no zig binary", "cannot fetch ", "cannot run "} {
		if bytes.Contains(out, []byte(why)) {
			return true
		}
	}
	return false
}

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
	if wasm != "" && !fileExists(wasm) {
		return nil, &unavailable{fmt.Sprintf("AMLA_PY_WASM=%s: no such file", wasm)}
	}
	if wasm == "" {
		wasm = filepath.Join(dir, "amla_python.wasm")
		cmd := exec.Command(python(), filepath.Join(sourceDir(), "build.py"), "--out", wasm,
			"--work-dir", filepath.Join(dir, "work"))
		var out bytes.Buffer
		cmd.Stderr = io.MultiWriter(os.Stderr, &out)
		if err := cmd.Run(); err != nil {
			if !cannotBuildHere(err, out.Bytes()) {
				return nil, err
			}
			why := fmt.Sprintf("the Python guest cannot be built here (%v): %s", err, lastLine(out.String()))
			// The snapshot a build of this checkout installed.
			installed := filepath.Join(sourceDir(), "..", "..", "amla_sandbox", "amla_python.wasm")
			if !fileExists(installed) {
				return nil, &unavailable{why + "; and no built guest at amla_sandbox/amla_python.wasm: " +
					"pip install ziglang==0.17.0, run python setup.py build_go --inplace, or set AMLA_PY_WASM"}
			}
			return host.LoadGuest(installed, filepath.Join(dir, "installed-"+fileKey(installed)+".cwasm"))
		}
	}
	raw, err := os.ReadFile(wasm)
	if err != nil {
		return nil, err
	}
	key := bytesKey(raw)
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

// bytesKey names a module by its bytes.
func bytesKey(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// fileKey is bytesKey of the file at p ("" if it cannot be read).
func fileKey(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return bytesKey(b)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
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
	var u *unavailable
	if errors.As(guestErr, &u) {
		t.Skipf("skipped: %v", u)
	}
	if guestErr != nil {
		t.Fatalf("the Python guest: %v", guestErr)
	}
	return guestVal
}
