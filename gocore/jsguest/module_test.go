package jsguest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// The guest module under test: $AMLA_JS_WASM, or built from ../../jsguest
// with jsguest/build.py into a cache directory under the OS temp dir keyed
// by the hash of the sources (the first build takes a minute or two).

var (
	moduleOnce sync.Once
	moduleVal  *wasmtime.Module
	moduleWasm []byte
	moduleErr  error
)

func sourceDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "guests", "js")
}

// sourceHash hashes every file of jsguest/ that goes into the build.
func sourceHash(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".c", ".h", ".js", ".py":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
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
	return "python3"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// guestWasm returns the path of the module, building it if needed.
func guestWasm() (string, error) {
	if p := os.Getenv("AMLA_JS_WASM"); p != "" {
		if !fileExists(p) {
			return "", fmt.Errorf("AMLA_JS_WASM=%s: no such file", p)
		}
		return p, nil
	}
	src := sourceDir()
	key, err := sourceHash(src)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", src, err)
	}
	cache := filepath.Join(os.TempDir(), "amla-jsguest-cache")
	out := filepath.Join(cache, "amla_js-"+key+".wasm")
	if fileExists(out) {
		return out, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	// One build at a time across test processes.
	lock, err := os.OpenFile(filepath.Join(cache, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if fileExists(out) {
		return out, nil
	}
	cmd := exec.Command(python(), filepath.Join(src, "build.py"), "--out", out, "--build-dir", filepath.Join(cache, "build"))
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the JavaScript guest (%s): %v\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	return out, nil
}

// guestModule compiles the module once per test process.
func guestModule(tb testing.TB) *wasmtime.Module {
	tb.Helper()
	moduleOnce.Do(func() {
		var p string
		if p, moduleErr = guestWasm(); moduleErr != nil {
			return
		}
		if moduleWasm, moduleErr = os.ReadFile(p); moduleErr != nil {
			return
		}
		moduleVal, moduleErr = Compile(moduleWasm)
	})
	if moduleErr != nil {
		tb.Fatal(moduleErr)
	}
	return moduleVal
}
