package guesttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
	"time"

	"amlasandbox/gocore/guestcache"
	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// The guests under test are built once per source hash into a cache under
// the OS temp dir ($AMLA_JS_WASM or $AMLA_SHELL_WASM name prebuilt
// modules instead), snapshotted like the package's, and compiled into the
// user's module cache, where a second test run finds them.
//
// Where the JavaScript guest cannot be built here (no C compiler for
// wasm32-wasi, no Python to run build.py, its sources not downloadable)
// the tests use the one a build of this checkout put beside the package
// (amla_sandbox/amla_js.wasm, snapshotted already), and with neither they
// skip, saying why. A build that fails for any other reason (the guest's
// own code) fails them.

// unavailable is why a guest cannot be had on this machine: the tests
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
	for _, why := range []string{"no C compiler for wasm32-wasi", "no C compiler for the build machine", "cannot run ", "cannot download "} {
		if strings.Contains(string(out), why) {
			return true
		}
	}
	return false
}

// installedGuest is the guest named name that a build of this checkout
// (python setup.py build_go --inplace) put beside the package, if any.
func installedGuest(name string) (string, bool) {
	p := filepath.Join(repoRoot(), "amla_sandbox", name)
	return p, fileExists(p)
}

var (
	guestsOnce sync.Once
	jsGuest    *host.GuestModule
	shellGuest *host.GuestModule
	guestsErr  error
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// sourceHash hashes the files under dir with the given extensions.
func sourceHash(exts map[string]bool, dirs ...string) (string, error) {
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "__pycache__" || d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if exts[filepath.Ext(p)] && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(repoRoot(), f)
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

// buildCached returns out, making it with make under a lock shared by test
// processes when it does not exist yet.
func buildCached(out string, make func(tmp string) error) error {
	if fileExists(out) {
		return nil
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	if fileExists(out) {
		return nil
	}
	tmp := out + ".tmp"
	if err := make(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// snapshotTo snapshots the reactor at raw into out.
func snapshotTo(raw, out string) error {
	b, err := os.ReadFile(raw)
	if err != nil {
		return err
	}
	snap, err := host.SnapshotGuest(b)
	if err != nil {
		return fmt.Errorf("snapshotting %s: %w", raw, err)
	}
	return os.WriteFile(out, snap, 0o644)
}

func jsWasm(cache string) (string, error) {
	if p := os.Getenv("AMLA_JS_WASM"); p != "" {
		if !fileExists(p) {
			return "", &unavailable{fmt.Sprintf("AMLA_JS_WASM=%s: no such file", p)}
		}
		return p, nil
	}
	src := filepath.Join(repoRoot(), "guests", "js")
	key, err := sourceHash(map[string]bool{".c": true, ".h": true, ".js": true, ".py": true}, src, filepath.Join(repoRoot(), "guests", "include"))
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, "amla_js-"+key+".wasm")
	err = buildCached(out, func(tmp string) error {
		raw := tmp + ".raw"
		defer os.Remove(raw)
		cmd := exec.Command(python(), filepath.Join(src, "build.py"), "--out", raw, "--build-dir", filepath.Join(cache, "jsbuild"))
		if b, err := cmd.CombinedOutput(); err != nil {
			if cannotBuildHere(err, b) {
				why := fmt.Sprintf("the JavaScript guest cannot be built here (%s): %v", strings.Join(cmd.Args, " "), err)
				if out := strings.TrimSpace(string(b)); out != "" {
					why += "\n" + out
				}
				return &unavailable{why}
			}
			return fmt.Errorf("building the JavaScript guest (%s): %v\n%s", strings.Join(cmd.Args, " "), err, b)
		}
		return snapshotTo(raw, tmp)
	})
	var u *unavailable
	if errors.As(err, &u) {
		if p, ok := installedGuest("amla_js.wasm"); ok {
			return p, nil
		}
		return "", &unavailable{u.why + "\nand no built guest at amla_sandbox/amla_js.wasm: install a C compiler for wasm32-wasi " +
			"(pip install ziglang==0.17.0, or a clang with wasi-libc), run python setup.py build_go --inplace, or set AMLA_JS_WASM"}
	}
	return out, err
}

func shellWasm(cache string) (string, error) {
	if p := os.Getenv("AMLA_SHELL_WASM"); p != "" {
		return p, nil
	}
	root := repoRoot()
	key, err := sourceHash(map[string]bool{".go": true}, filepath.Join(root, "guests", "shell"), filepath.Join(root, "gocore", "wire"))
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, "amla_sandbox-"+key+".wasm")
	return out, buildCached(out, func(tmp string) error {
		raw := tmp + ".raw"
		defer os.Remove(raw)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-buildmode=c-shared", "-o", raw, "./guests/shell/cmd/guest")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building the shell guest: %v\n%s", err, b)
		}
		return snapshotTo(raw, tmp)
	})
}

// guests builds (or finds) both guests and loads them into the host.
func guests(tb testing.TB) (js, shell *host.GuestModule) {
	tb.Helper()
	guestsOnce.Do(func() {
		cache := filepath.Join(os.TempDir(), "amla-guesttest-cache")
		modules, err := os.UserCacheDir()
		if err != nil {
			modules = cache
		}
		modules = filepath.Join(modules, "amla-sandbox")
		load := func(wasm func(string) (string, error)) (*host.GuestModule, error) {
			p, err := wasm(cache)
			if err != nil {
				return nil, err
			}
			v, err := host.LinkedWasmtimeVersion()
			if err != nil {
				return nil, err
			}
			art, _, err := guestcache.Path(modules, p, v)
			if err != nil {
				return nil, err
			}
			return host.LoadGuest(p, art)
		}
		if jsGuest, guestsErr = load(jsWasm); guestsErr != nil {
			return
		}
		shellGuest, guestsErr = load(shellWasm)
	})
	var u *unavailable
	if errors.As(guestsErr, &u) {
		tb.Skipf("skipped: %v", u)
	}
	if guestsErr != nil {
		tb.Fatal(guestsErr)
	}
	return jsGuest, shellGuest
}

// Tool answers one tool request; Delay holds the answer back that long.
type Tool func(params json.RawMessage) Answer

// Answer is a tool's answer: Result, or an error with Code and Error.
type Answer struct {
	Result json.RawMessage
	Code   string
	Error  string
	Delay  time.Duration
}

// Options describe one run on the real host.
type Options struct {
	Language string // default JavaScript
	Code     string
	Stdin    string
	HasStdin bool
	// Tools are the registered tools; Handlers answer them by name. A
	// call of "mcp:fail" is refused by the sandbox's authorizer.
	Tools    []wire.ToolInfo
	Handlers map[string]Tool
	// Batch answers no request until the script waits on all it made.
	Batch  bool
	Limits host.Limits
	// Sandbox, when set, runs there (its files persist); else a fresh one.
	Sandbox *host.Sandbox
}

// Result is a finished run, with the requests the script made and the
// ids the script waited on when it first blocked.
type Result struct {
	wire.Result
	Requests    []wire.Event
	FirstWaitOn []int64
}

// TimedOut tells whether the run ended at its deadline.
func (r *Result) TimedOut() bool { return r.ErrorKind == wire.ErrKindTimeout }

type denyFail struct{}

func (denyFail) Authorize(method string, _ json.RawMessage) error {
	if method == "mcp:fail" {
		return errors.New("method 'mcp:fail' does not match pattern 'x'")
	}
	return nil
}

// newSandbox makes a sandbox running both guests.
func newSandbox(t *testing.T, tools []wire.ToolInfo, lim host.Limits) *host.Sandbox {
	t.Helper()
	js, shell := guests(t)
	sb, err := host.NewSandbox(nil, host.Config{
		Tools:      tools,
		Authorizer: denyFail{},
		Limits:     lim,
		Guests:     map[string]*host.GuestModule{wire.LangJavaScript: js, wire.LangShell: shell},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// runOn runs opts on the real host and answers its tool requests.
func runOn(t testing.TB, sb *host.Sandbox, opts Options) *Result {
	t.Helper()
	lang := opts.Language
	if lang == "" {
		lang = wire.LangJavaScript
	}
	r, err := sb.Start(lang, opts.Code, opts.Stdin, opts.HasStdin, false)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{}
	var held []wire.Event
	answer := func(ev wire.Event) {
		name := strings.TrimPrefix(ev.Method, "mcp:")
		h, ok := opts.Handlers[name]
		if !ok {
			r.ResumeError(ev.ID, wire.CodeInternal, "No handler for tool call: "+ev.Method)
			return
		}
		a := h(ev.Params)
		send := func() {
			if a.Code != "" {
				r.ResumeError(ev.ID, a.Code, a.Error)
			} else {
				r.Resume(ev.ID, string(a.Result))
			}
		}
		if a.Delay > 0 {
			time.AfterFunc(a.Delay, send)
		} else {
			send()
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ev := r.Step(100*time.Millisecond, true)
		switch ev.Kind {
		case wire.EventDone:
			res.Result = *ev.Result
			return res
		case wire.EventRequest:
			res.Requests = append(res.Requests, ev)
			if opts.Batch {
				held = append(held, ev)
			} else {
				answer(ev)
			}
		case wire.EventWaiting:
			if res.FirstWaitOn == nil {
				res.FirstWaitOn = ev.IDs
			}
			for _, h := range held {
				answer(h)
			}
			held = nil
		}
	}
	r.Cancel()
	t.Fatalf("run did not end within a minute: %.200q", opts.Code)
	return nil
}

func runJS(t *testing.T, opts Options) *Result {
	t.Helper()
	sb := opts.Sandbox
	if sb == nil {
		sb = newSandbox(t, opts.Tools, opts.Limits)
	}
	return runOn(t, sb, opts)
}

func js(code string) Options { return Options{Code: code} }

// echoTools answers "echo" with its params and "slow" the same after
// 150 ms; "fail" never reaches them (the authorizer refuses it).
func echoTools() map[string]Tool {
	return map[string]Tool{
		"echo": func(p json.RawMessage) Answer { return Answer{Result: p} },
		"slow": func(p json.RawMessage) Answer { return Answer{Result: p, Delay: 150 * time.Millisecond} },
	}
}
