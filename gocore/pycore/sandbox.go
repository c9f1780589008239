package pycore

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unsafe"

	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// lookupAuthorizer finds the capability policy a Python Runtime created, so
// the sandbox's in-guest calls and can_call share one budget table. It is
// set by the capability bindings; without them every call is allowed.
var lookupAuthorizer = func(int64) (host.Authorizer, bool) { return nil, false }

type sandboxEntry struct {
	sb  *host.Sandbox
	mu  sync.Mutex
	run *host.Run
	// The finished run's output, when its done event left it out.
	stdout, stderr string
}

var sandboxes handles[*sandboxEntry]

type sandboxConfig struct {
	WasmPath      string          `json:"wasm_path"`
	CachePath     string          `json:"cache_path"`
	JSWasmPath    string          `json:"js_wasm_path"`
	JSCachePath   string          `json:"js_cache_path"`
	Tools         []wire.ToolInfo `json:"tools"`
	Policy        int64           `json:"policy"`
	TimeoutS      float64         `json:"timeout"`
	MemoryLimit   int64           `json:"memory_limit"`
	MaxToolResult int64           `json:"max_tool_result"`
	MaxOutput     int64           `json:"max_output"`
	MaxCallStack  int             `json:"max_call_stack"`
	MaxToolCalls  int             `json:"max_tool_calls"`
	DiskQuota     int64           `json:"disk_quota"`
}

// LoadGuest compiles (or loads from cachePath) the guest module and
// returns JSON {"from_cache": bool}.
func LoadGuest(wasmPath, cachePath string) (out string, err error) {
	defer recoverTo(&err)
	g, err := host.LoadGuest(wasmPath, cachePath)
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(map[string]bool{"from_cache": g.FromCache})
	return string(b), nil
}

// Precompile compiles wasmPath into cachePath and returns milliseconds taken.
func Precompile(wasmPath, cachePath string) (ms float64, err error) {
	defer recoverTo(&err)
	d, err := host.Precompile(wasmPath, cachePath)
	return float64(d.Microseconds()) / 1000, err
}

// WasmtimeVersion is the linked wasmtime version, as the build records it
// ("unknown" when it cannot be read).
func WasmtimeVersion() string {
	v, err := host.LinkedWasmtimeVersion()
	if err != nil {
		return "unknown"
	}
	return v
}

// SandboxNew creates a sandbox from a JSON config and returns its handle.
func SandboxNew(configJSON string) (h int64, err error) {
	defer recoverTo(&err)
	var cfg sandboxConfig
	if err := json.Unmarshal([]byte(configJSON), &cfg); err != nil {
		return 0, fmt.Errorf("sandbox config: %w", err)
	}
	// Guests are compiled (or read from the cache) when a run first needs
	// them; here only their files must exist.
	shell := host.GuestSource{WasmPath: cfg.WasmPath, CachePath: cfg.CachePath}
	js := shell
	if cfg.JSWasmPath != "" {
		js = host.GuestSource{WasmPath: cfg.JSWasmPath, CachePath: cfg.JSCachePath}
	}
	for _, src := range []host.GuestSource{shell, js} {
		if _, err := os.Stat(src.WasmPath); err != nil {
			return 0, fmt.Errorf("WASM file not found: %s", src.WasmPath)
		}
	}
	sources := map[string]host.GuestSource{wire.LangShell: shell, wire.LangJavaScript: js}
	hc := host.Config{
		Tools:   cfg.Tools,
		Sources: sources,
		Limits: host.Limits{
			Timeout:       time.Duration(cfg.TimeoutS * float64(time.Second)),
			MemoryLimit:   cfg.MemoryLimit,
			MaxOutput:     cfg.MaxOutput,
			MaxToolResult: cfg.MaxToolResult,
			MaxCallStack:  cfg.MaxCallStack,
			MaxToolCalls:  cfg.MaxToolCalls,
			DiskQuota:     cfg.DiskQuota,
		},
	}
	if cfg.Policy != 0 {
		a, ok := lookupAuthorizer(cfg.Policy)
		if !ok {
			return 0, fmt.Errorf("sandbox config: unknown capability policy handle %d", cfg.Policy)
		}
		hc.Authorizer = a
	}
	sb, err := host.NewSandbox(nil, hc)
	if err != nil {
		return 0, err
	}
	return sandboxes.put(&sandboxEntry{sb: sb}), nil
}

func sandboxOf(h int64) (*sandboxEntry, error) {
	e, ok := sandboxes.get(h)
	if !ok {
		return nil, host.ErrClosed
	}
	return e, nil
}

func runOf(h int64) (*host.Run, error) {
	e, err := sandboxOf(h)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run == nil {
		return nil, fmt.Errorf("no run has been started on this sandbox")
	}
	return e.run, nil
}

// SandboxClose ends any run and removes the sandbox's directory.
func SandboxClose(h int64) (err error) {
	defer recoverTo(&err)
	e, ok := sandboxes.drop(h)
	if !ok {
		return nil
	}
	return e.sb.Close()
}

// SandboxStart begins a run. language is "javascript" or "shell".
func SandboxStart(h int64, language, code, stdin string, hasStdin, stream bool) (err error) {
	defer recoverTo(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return err
	}
	r, err := e.sb.Start(language, code, stdin, hasStdin, stream)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.run = r
	e.mu.Unlock()
	return nil
}

// SandboxStep waits (without the GIL) at most timeoutMS for the run's next
// event and returns it as JSON (wire.Event): request, output, waiting,
// busy or done. With take false a request stays queued (has_work peeks).
func SandboxStep(h int64, timeoutMS int64, take bool) (out string, err error) {
	defer recoverTo(&err)
	r, err := runOf(h)
	if err != nil {
		return "", err
	}
	ev := r.Step(time.Duration(timeoutMS)*time.Millisecond, take)
	if ev.Kind == wire.EventDone && ev.Result != nil && outputApart(ev.Result) {
		res := *ev.Result
		e, _ := sandboxOf(h)
		if e != nil {
			e.mu.Lock()
			// Only the sandbox's current run may leave its output for
			// SandboxTakeOutput: a caller still stepping a run that was
			// given up (a cancelled task's thread) must not replace the
			// output of the run started since; its event keeps its output.
			if e.run == r {
				e.stdout, e.stderr = res.Stdout, res.Stderr
				res.Stdout, res.Stderr = "", ""
				ev.Result, ev.OutputApart = &res, true
			}
			e.mu.Unlock()
		}
	}
	b, err := json.Marshal(ev)
	if err != nil || len(b) == 0 {
		return "", err
	}
	if len(b) > bigEvent {
		// A big result (a flood of output, a huge request) leaves the Go
		// heap far above what it needs; give the memory back to the OS
		// once Python has its copy.
		defer func() { go debug.FreeOSMemory() }()
	}
	// No copy: b is not used again.
	return unsafe.String(&b[0], len(b)), nil
}

// bigEvent is the size past which an event's memory is returned to the OS.
const bigEvent = 8 << 20

// outputApart decides whether a result's output goes to Python as it is:
// when it is big enough for JSON's escaping and parsing to cost, and holds
// no NUL (a Go string crosses to Python as a C string).
func outputApart(res *wire.Result) bool {
	if len(res.Stdout)+len(res.Stderr) < 64<<10 {
		return false
	}
	return strings.IndexByte(res.Stdout, 0) < 0 && strings.IndexByte(res.Stderr, 0) < 0
}

// SandboxTakeOutput returns, once, the stdout ("stdout") or stderr of the
// finished run whose done event said output_apart.
func SandboxTakeOutput(h int64, stream string) (out string, err error) {
	defer recoverTo(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if stream == "stdout" {
		out, e.stdout = e.stdout, ""
	} else {
		out, e.stderr = e.stderr, ""
	}
	if len(out) > bigEvent {
		defer func() { go debug.FreeOSMemory() }()
	}
	return out, nil
}

// SandboxLastHanded is the id of the request the last step handed out.
func SandboxLastHanded(h int64) (id int64, err error) {
	defer recoverTo(&err)
	r, err := runOf(h)
	if err != nil {
		return 0, err
	}
	return r.LastHanded(), nil
}

// SandboxResume answers request id with JSON text.
func SandboxResume(h int64, id int64, resultJSON string) (err error) {
	defer recoverTo(&err)
	r, err := runOf(h)
	if err != nil {
		return err
	}
	return r.Resume(id, resultJSON)
}

// SandboxResumeError answers request id with an error: code is one of
// wire's Code* values ("" means internal), message what the script sees.
func SandboxResumeError(h int64, id int64, code, message string) (err error) {
	defer recoverTo(&err)
	r, err := runOf(h)
	if err != nil {
		return err
	}
	return r.ResumeError(id, code, message)
}

// SandboxCancel stops the sandbox's run, if any; it returns at once (the
// run ends within a few milliseconds; SandboxStep then reports "done").
func SandboxCancel(h int64) (err error) {
	defer recoverTo(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return err
	}
	e.mu.Lock()
	r := e.run
	e.mu.Unlock()
	if r != nil {
		r.Cancel()
	}
	return nil
}

// SandboxResult waits for the run to end and returns its Result as JSON.
func SandboxResult(h int64) (out string, err error) {
	defer recoverTo(&err)
	r, err := runOf(h)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(r.Result())
	return string(b), err
}
