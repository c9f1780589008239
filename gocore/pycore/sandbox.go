package pycore

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/host"
	"amlasandbox/gocore/netpolicy"
	"amlasandbox/gocore/pca"
	"amlasandbox/gocore/wire"
)

// sandboxEntry is one sandbox as Python holds it: the host sandbox, the
// capability policy that decides its calls (and can_call's), and its
// current run. A run is addressed by its id: every run operation names
// the run it means, and only the current run answers (see current).
type sandboxEntry struct {
	sb     *host.Sandbox
	policy *capability.Policy

	mu    sync.Mutex
	run   *host.Run
	runID int64
	// The output of run runID, when its done event left it out.
	stdout, stderr string
}

var sandboxes handles[*sandboxEntry]

// runIDs numbers runs across all sandboxes of the process, so an id is
// never reused and one sandbox's id is never another's.
var runIDs atomic.Int64

type sandboxConfig struct {
	WasmPath   string `json:"wasm_path"`
	JSWasmPath string `json:"js_wasm_path"`
	// PyWasmPath is the Python guest ("": this install has none, and a
	// Python run fails saying so).
	PyWasmPath string `json:"py_wasm_path"`
	// PythonPackages is a directory of pure-Python packages the Python
	// guest mounts read-only at PythonPackagesMount ("": none).
	PythonPackages string `json:"python_packages"`
	// CacheDir holds compiled guests ("": compile in memory); ShippedDir
	// the artifacts a wheel ships; KeepWasm the guests whose artifacts the
	// once-per-process prune keeps (see resolveCache).
	CacheDir   string   `json:"cache_dir"`
	ShippedDir string   `json:"shipped_dir"`
	KeepWasm   []string `json:"keep_wasm"`
	// PCA is the token's CBOR as hex, checked against Trusted; the calls it
	// grants narrow Capabilities (a JSON list of capability dicts).
	PCA          string          `json:"pca"`
	Trusted      []string        `json:"trusted_authorities"`
	Capabilities json.RawMessage `json:"capabilities"`
	// ToolsJSON is the tools list as the caller wrote it (JSON text).
	ToolsJSON     string  `json:"tools_json"`
	TimeoutS      float64 `json:"timeout"`
	MemoryLimit   int64   `json:"memory_limit"`
	MaxToolResult int64   `json:"max_tool_result"`
	MaxOutput     int64   `json:"max_output"`
	MaxCallStack  int     `json:"max_call_stack"`
	MaxToolCalls  int     `json:"max_tool_calls"`
	DiskQuota     int64   `json:"disk_quota"`
	// Network is the network policy (package netpolicy's JSON); null or
	// absent: the sandbox has no network.
	Network json.RawMessage `json:"network"`
	// KeepState keeps each language's interpreter state between runs
	// (host.Config.KeepState, docs/sessions.md).
	KeepState bool `json:"keep_state"`
}

// SandboxNew makes a sandbox from a JSON config (sandboxConfig) in one
// call: it checks both guest files, verifies the PCA, builds the
// capability policy restricted to what the PCA grants, finds the compiled
// guests in the cache, and creates the sandbox's directory. It returns the
// sandbox's handle.
func SandboxNew(configJSON string) (h int64, err error) {
	defer guard(&err)
	var cfg sandboxConfig
	if err := json.Unmarshal([]byte(configJSON), &cfg); err != nil {
		return 0, newError(kindInvalid, "sandbox config: %v", err)
	}
	shellWasm, jsWasm := cfg.WasmPath, cfg.JSWasmPath
	if jsWasm == "" {
		jsWasm = shellWasm
	}
	for _, path := range []string{shellWasm, jsWasm} {
		if err := checkWasmFile(path); err != nil {
			return 0, err
		}
	}
	granted, err := verifyPCA(cfg.PCA, cfg.Trusted)
	if err != nil {
		return 0, newError(kindRuntime, "Failed to create runtime: %v", err)
	}
	var tools []wire.ToolInfo
	if err := json.Unmarshal([]byte(cfg.ToolsJSON), &tools); err != nil {
		return 0, newError(kindInvalid, "tools_json is not a valid JSON list of tools: %v", err)
	}
	if tools == nil {
		tools = []wire.ToolInfo{} // a list, so the host refuses every method no tool has
	}
	caps, err := capability.ParseCapabilities(cfg.Capabilities)
	if err != nil {
		return 0, newError(kindRuntime, "Failed to create runtime: %v", err)
	}
	policy := capability.NewPolicy(caps)
	// A call must be granted by the PCA as well as allowed by a capability
	// (the PCA's patterns narrow, never widen).
	policy.SetGrants(granted)

	// Guests are compiled (or read from the cache) when a run first needs
	// them; here only their artifacts' places are found.
	source := func(wasm string) host.GuestSource {
		return host.GuestSource{WasmPath: wasm, CachePath: resolveCache(cfg.CacheDir, cfg.ShippedDir, wasm, cfg.KeepWasm)}
	}
	shell := source(shellWasm)
	js := shell
	if jsWasm != shellWasm {
		js = source(jsWasm)
	}
	sources := map[string]host.GuestSource{wire.LangShell: shell, wire.LangJavaScript: js}
	if cfg.PyWasmPath != "" {
		if err := checkWasmFile(cfg.PyWasmPath); err != nil {
			return 0, err
		}
		sources[wire.LangPython] = source(cfg.PyWasmPath)
	}
	var mounts []host.Mount
	if cfg.PythonPackages != "" {
		st, err := os.Stat(cfg.PythonPackages)
		if err != nil || !st.IsDir() {
			return 0, newError(kindInvalid, "python_packages: %s is not a directory", cfg.PythonPackages)
		}
		mounts = append(mounts, host.Mount{Host: cfg.PythonPackages, Guest: PythonPackagesMount})
	}
	var network *netpolicy.Policy
	if len(cfg.Network) > 0 && string(cfg.Network) != "null" {
		network, err = netpolicy.ParsePolicy(cfg.Network)
		if err != nil {
			return 0, newError(kindInvalid, "network: %s", strings.TrimPrefix(err.Error(), "network policy: "))
		}
	}
	sb, err := host.NewSandbox(nil, host.Config{
		Network:    network,
		KeepState:  cfg.KeepState,
		Tools:      tools,
		Authorizer: policy,
		Sources:    sources,
		Mounts:     mounts,
		Limits: host.Limits{
			Timeout:       time.Duration(cfg.TimeoutS * float64(time.Second)),
			MemoryLimit:   cfg.MemoryLimit,
			MaxOutput:     cfg.MaxOutput,
			MaxToolResult: cfg.MaxToolResult,
			MaxCallStack:  cfg.MaxCallStack,
			MaxToolCalls:  cfg.MaxToolCalls,
			DiskQuota:     cfg.DiskQuota,
		},
	})
	if err != nil {
		return 0, newError(kindRuntime, "Failed to create runtime: %v", err)
	}
	return sandboxes.put(&sandboxEntry{sb: sb, policy: policy}), nil
}

// PythonPackagesMount is where the Python guest finds the packages of
// Sandbox(python_packages=...) (guests/python puts it on sys.path).
const PythonPackagesMount = "/usr/lib/python3.13/site-packages"

// verifyPCA checks a hex PCA against trusted keys and returns the patterns
// it grants.
func verifyPCA(cborHex string, trusted []string) ([]string, error) {
	token, err := hex.DecodeString(cborHex)
	if err != nil {
		return nil, fmt.Errorf("PCA bytes: %v", err)
	}
	tok, err := pca.Verify(token, trusted, time.Now())
	if err != nil {
		return nil, err
	}
	if tok.Patterns == nil {
		return []string{}, nil // granted nothing: an empty list, not "no restriction"
	}
	return tok.Patterns, nil
}

func sandboxOf(h int64) (*sandboxEntry, error) {
	e, ok := sandboxes.get(h)
	if !ok {
		return nil, newError(kindClosed, "%s", host.ErrClosed.Error())
	}
	return e, nil
}

// current returns run id of sandbox h when it is the sandbox's current
// run, and refuses any other id: a caller still holding a run that a later
// start replaced (a cancelled task's thread) must never see that later
// run's events or answer its requests.
func current(h, id int64) (*sandboxEntry, *host.Run, error) {
	e, err := sandboxOf(h)
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.run == nil:
		return nil, nil, newError(kindNoRun, "run %d: no run has been started on this sandbox", id)
	case id != e.runID:
		return nil, nil, newError(kindStaleRun, "run %d is not this sandbox's current run (run %d is): a later start() replaced it", id, e.runID)
	}
	return e, e.run, nil
}

// SandboxClose ends any run and removes the sandbox's directory. It
// returns a status ("" or the error); closing twice is not an error.
func SandboxClose(h int64) string {
	return status(func() error {
		e, ok := sandboxes.drop(h)
		if !ok {
			return nil
		}
		return e.sb.Close()
	})
}

// SandboxReset discards the interpreter state a keep_state sandbox kept
// (host.Sandbox.ResetState): the next run of each language starts fresh.
// Files, budgets and tools are untouched. It returns a status ("" or the
// error).
func SandboxReset(h int64) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		e.sb.ResetState()
		return nil
	})
}

// SandboxStart begins a run (language "javascript" or "shell") and returns
// its id, which every other run operation takes.
func SandboxStart(h int64, language, code, stdin string, hasStdin, stream bool) (id int64, err error) {
	defer guard(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return 0, err
	}
	r, err := e.sb.Start(language, code, stdin, hasStdin, stream)
	if err != nil {
		return 0, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run, e.runID = r, runIDs.Add(1)
	e.stdout, e.stderr = "", ""
	return e.runID, nil
}

// SandboxStep waits (without the GIL) at most timeoutMS for the next event
// of run id and returns it as JSON (wire.Event): request, output, waiting,
// busy or done. With take false a request stays queued (has_work peeks).
func SandboxStep(h, id, timeoutMS int64, take bool) (out string, err error) {
	defer guard(&err)
	e, r, err := current(h, id)
	if err != nil {
		return "", err
	}
	ev := r.Step(time.Duration(timeoutMS)*time.Millisecond, take)
	if ev.Kind == wire.EventDone && ev.Result != nil && outputApart(ev.Result) {
		res := *ev.Result
		e.mu.Lock()
		// Output is left for SandboxTakeOutput only while the run is still
		// current; once a later run started, its event keeps its output.
		if e.runID == id {
			e.stdout, e.stderr = res.Stdout, res.Stderr
			res.Stdout, res.Stderr = "", ""
			ev.Result, ev.OutputApart = &res, true
		}
		e.mu.Unlock()
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

// outputApart decides whether a result's output goes to Python as it is,
// when it is big enough for JSON's escaping and parsing to cost: JSON
// writes a NUL or another control character as six bytes (\u0000) and
// Python parses them back, so a flood of them cost six times the memory
// and time of a flood of letters.
func outputApart(res *wire.Result) bool {
	return len(res.Stdout)+len(res.Stderr) >= 64<<10
}

// SandboxTakeOutput returns, once, the stdout ("stdout") or stderr of run
// id, finished, whose done event said output_apart: UTF-8 text (the host
// made it valid), as bytes, since a Go string crosses to Python as a C
// string and output may hold NULs.
func SandboxTakeOutput(h, id int64, stream string) (out []byte, err error) {
	defer guard(&err)
	e, _, err := current(h, id)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var s string
	switch stream {
	case "stdout":
		s, e.stdout = e.stdout, ""
	case "stderr":
		s, e.stderr = e.stderr, ""
	default:
		return nil, newError(kindInvalid, "take output: unknown stream %q (want \"stdout\" or \"stderr\")", stream)
	}
	if len(s) == 0 {
		return []byte{}, nil
	}
	if len(s) > bigEvent {
		defer func() { go debug.FreeOSMemory() }()
	}
	// No copy: Python only reads the slice (copying it into its bytes).
	return unsafe.Slice(unsafe.StringData(s), len(s)), nil
}

// SandboxLastHanded is the id of the request the last step of run id
// handed out (0: none).
func SandboxLastHanded(h, id int64) (req int64, err error) {
	defer guard(&err)
	_, r, err := current(h, id)
	if err != nil {
		return 0, err
	}
	return r.LastHanded(), nil
}

// SandboxResume answers request req of run id with JSON text; it returns
// a status.
func SandboxResume(h, id, req int64, resultJSON string) string {
	return status(func() error {
		_, r, err := current(h, id)
		if err != nil {
			return err
		}
		return r.Resume(req, resultJSON)
	})
}

// SandboxResumeError answers request req of run id with an error: code is
// one of wire's Code* values ("" means internal), message what the script
// sees. It returns a status.
func SandboxResumeError(h, id, req int64, code, message string) string {
	return status(func() error {
		_, r, err := current(h, id)
		if err != nil {
			return err
		}
		return r.ResumeError(req, code, message)
	})
}

// SandboxCancel stops run id and returns at once (the run ends within a
// few milliseconds; SandboxStep then reports "done"). It returns a status;
// an id that is not the current run is refused and stops nothing.
func SandboxCancel(h, id int64) string {
	return status(func() error {
		_, r, err := current(h, id)
		if err != nil {
			return err
		}
		r.Cancel()
		return nil
	})
}

// SandboxResult waits for run id to end and returns its Result as JSON.
func SandboxResult(h, id int64) (out string, err error) {
	defer guard(&err)
	_, r, err := current(h, id)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(r.Result())
	return string(b), err
}

// LoadGuest compiles (or loads from cachePath) the guest module and
// returns JSON {"from_cache": bool}.
func LoadGuest(wasmPath, cachePath string) (out string, err error) {
	defer guard(&err)
	if err := checkWasmFile(wasmPath); err != nil {
		return "", err
	}
	g, err := host.LoadGuest(wasmPath, cachePath)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]bool{"from_cache": g.FromCache})
	return string(b), err
}
