// Package jsguest is a small test host for the QuickJS-NG JavaScript guest
// (the module jsguest/build.py builds). It implements the host ABI of
// package wire minimally, with fake tools answered from a table and spawn
// answered by a function, so the guest's host calls can be tested without
// the real kernel (gocore/host). It is a test fixture, not a product API.
package jsguest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wire"
)

// MaxWasmStack is the wasm stack the host allows (the real host's value:
// 8 MiB or more crashed wasmtime-go, 6 MiB works).
const MaxWasmStack = 6 << 20

const epochTick = 5 * time.Millisecond

var (
	engineOnce sync.Once
	engine     *wasmtime.Engine
)

// Engine is the process's one engine: epoch interruption on, a goroutine
// advancing the epoch every 5 ms, a 6 MiB wasm stack.
func Engine() *wasmtime.Engine {
	engineOnce.Do(func() {
		cfg := wasmtime.NewConfig()
		cfg.SetEpochInterruption(true)
		cfg.SetMaxWasmStack(MaxWasmStack)
		engine = wasmtime.NewEngineWithConfig(cfg)
		go func() {
			for range time.Tick(epochTick) {
				engine.IncrementEpoch()
			}
		}()
	})
	return engine
}

// Tool is a fake tool: it answers params with a result (JSON) or, when
// Code is set, an error; Delay holds the answer back that long.
type Tool func(params json.RawMessage) Answer

// Answer is what a fake tool gives back.
type Answer struct {
	Result json.RawMessage
	Code   string // non-empty: the call fails with this code and Error
	Error  string
	Delay  time.Duration
}

// Options describe one run.
type Options struct {
	Input wire.Input
	// Tools answers "mcp:<name>" requests by tool name. An unknown name
	// fails with code "internal".
	Tools map[string]Tool
	// Spawn answers spawn requests; nil fails each with an error.
	Spawn func(wire.SpawnRequest) wire.SpawnResult
	// Dir is the sandbox root (workspace/ and tmp/ are created inside);
	// empty means a fresh temporary directory.
	Dir string
	// Timeout bounds the run (epoch deadline and host sleeps); 0 = 10 s.
	Timeout time.Duration
	// DiskQuota bounds the bytes disk_reserve grants; 0 = unlimited.
	DiskQuota int64
	// MemoryLimit bounds the guest's linear memory; 0 = 256 MiB.
	MemoryLimit int64
}

// Result is how a run ended.
type Result struct {
	Stdout, Stderr string
	// ExitCode is what the guest recorded with exit_status (-1 if never).
	ExitCode int
	// Returned is amla_run's return value (-1 if it did not return).
	Returned int
	// Err is the trap or error that ended the run early, if any.
	Err error
	// TimedOut tells whether the epoch deadline or a host sleep past the
	// deadline stopped the run.
	TimedOut bool
	// Calls logs the host calls that matter for ordering: "submit",
	// "wait(<timeout>)", "sleep(<ms>)", "spawn".
	Calls []string
	// Requests are the tool requests in submission order.
	Requests []wire.ToolRequest
	// MemoryBytes is the guest's linear memory size at the end.
	MemoryBytes int64
	// WasiStderr is what the guest wrote to WASI stderr (nothing, normally).
	WasiStderr string
}

type pendingAnswer struct {
	readyAt time.Time
	data    []byte
}

// run is the state the host functions share.
type run struct {
	opts     Options
	input    []byte
	deadline time.Time
	res      *Result
	answers  []pendingAnswer
	taken    []byte
	spawned  []byte
	nextID   int64
	reserved int64
}

// Compile compiles the guest module with the shared engine.
func Compile(wasm []byte) (*wasmtime.Module, error) {
	m, err := wasmtime.NewModule(Engine(), wasm)
	if err != nil {
		return nil, fmt.Errorf("compiling the JavaScript guest: %w", err)
	}
	return m, nil
}

// Instance is an initialised guest, ready for its one run.
type Instance struct {
	r     *run
	store *wasmtime.Store
	inst  *wasmtime.Instance
	root  string
	owned bool
	wasi  string
}

// Instantiate creates a store and instance for opts, calls _initialize
// and amla_init. Call Run next, then Close.
func Instantiate(m *wasmtime.Module, opts Options) (*Instance, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = 256 << 20
	}
	in, err := json.Marshal(opts.Input)
	if err != nil {
		return nil, fmt.Errorf("encoding the input: %w", err)
	}
	g := &Instance{root: opts.Dir}
	if g.root == "" {
		if g.root, err = os.MkdirTemp("", "amla-jsguest-"); err != nil {
			return nil, err
		}
		g.owned = true
	}
	for _, d := range []string{"workspace", "tmp"} {
		if err := os.MkdirAll(filepath.Join(g.root, d), 0o755); err != nil {
			return nil, err
		}
	}
	f, err := os.CreateTemp("", "amla-jsguest-wasi-stderr-")
	if err != nil {
		return nil, err
	}
	f.Close()
	g.wasi = f.Name()

	g.r = &run{opts: opts, input: in, res: &Result{ExitCode: -1, Returned: -1}}
	g.r.deadline = time.Now().Add(opts.Timeout)
	store := wasmtime.NewStore(Engine())
	g.store = store
	store.Limiter(opts.MemoryLimit, -1, 1, 1, 1)
	store.SetEpochDeadline(uint64(opts.Timeout/epochTick) + 1)

	wasi := wasmtime.NewWasiConfig()
	wasi.SetArgv([]string{"amla-js"})
	if err := wasi.SetStderrFile(g.wasi); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		host, guest string
		dir         wasmtime.WasiDirPerms
		file        wasmtime.WasiFilePerms
	}{
		{g.root, "/", wasmtime.DIR_READ, wasmtime.FILE_READ},
		{filepath.Join(g.root, "workspace"), "/workspace", wasmtime.DIR_READ | wasmtime.DIR_WRITE, wasmtime.FILE_READ | wasmtime.FILE_WRITE},
		{filepath.Join(g.root, "tmp"), "/tmp", wasmtime.DIR_READ | wasmtime.DIR_WRITE, wasmtime.FILE_READ | wasmtime.FILE_WRITE},
	} {
		if err := wasi.PreopenDir(p.host, p.guest, p.dir, p.file); err != nil {
			return nil, fmt.Errorf("preopening %s: %w", p.guest, err)
		}
	}
	store.SetWasi(wasi)

	linker, err := g.r.linker()
	if err != nil {
		return nil, err
	}
	g.inst, err = linker.Instantiate(store, m)
	if err != nil {
		return nil, fmt.Errorf("instantiating the guest: %w", err)
	}
	for _, name := range []string{"_initialize", "amla_init"} {
		fn := g.inst.GetFunc(store, name)
		if fn == nil {
			return nil, fmt.Errorf("the guest exports no %s", name)
		}
		v, err := fn.Call(store)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if n, ok := v.(int32); ok && n != 0 {
			return nil, fmt.Errorf("%s returned %d: %s", name, n, g.r.res.Stderr)
		}
	}
	return g, nil
}

// Run calls amla_run and returns the result.
func (g *Instance) Run() *Result {
	res := g.r.res
	v, err := g.inst.GetFunc(g.store, "amla_run").Call(g.store)
	if err != nil {
		res.Err = err
		var trap *wasmtime.Trap
		if errors.As(err, &trap) {
			if c := trap.Code(); c != nil && *c == wasmtime.Interrupt {
				res.TimedOut = true
			}
		}
		if strings.Contains(err.Error(), "amla test host: timed out") {
			res.TimedOut = true
		}
	} else if n, ok := v.(int32); ok {
		res.Returned = int(n)
	}
	if mem := g.inst.GetExport(g.store, "memory"); mem != nil && mem.Memory() != nil {
		res.MemoryBytes = int64(mem.Memory().DataSize(g.store))
	}
	b, _ := os.ReadFile(g.wasi)
	res.WasiStderr = string(b)
	return res
}

// Close frees the store and the temporary directories.
func (g *Instance) Close() {
	g.store.Close()
	os.Remove(g.wasi)
	if g.owned {
		os.RemoveAll(g.root)
	}
}

// Run instantiates, initialises and runs the guest once.
func Run(m *wasmtime.Module, opts Options) (*Result, error) {
	g, err := Instantiate(m, opts)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	return g.Run(), nil
}

func memoryOf(c *wasmtime.Caller) []byte {
	ext := c.GetExport("memory")
	if ext == nil || ext.Memory() == nil {
		return nil
	}
	return ext.Memory().UnsafeData(c)
}

func guestBytes(c *wasmtime.Caller, ptr, n int32) ([]byte, *wasmtime.Trap) {
	mem := memoryOf(c)
	start, end := int64(uint32(ptr)), int64(uint32(ptr))+int64(uint32(n))
	if end > int64(len(mem)) {
		return nil, wasmtime.NewTrap("amla test host: guest buffer out of bounds")
	}
	return append([]byte(nil), mem[start:end]...), nil
}

func copyOut(c *wasmtime.Caller, ptr int32, data []byte) *wasmtime.Trap {
	mem := memoryOf(c)
	start := int64(uint32(ptr))
	if start+int64(len(data)) > int64(len(mem)) {
		return wasmtime.NewTrap("amla test host: guest buffer out of bounds")
	}
	copy(mem[start:], data)
	return nil
}

// sleepUntilOrDeadline sleeps d, or traps when that passes the deadline.
func (r *run) sleep(d time.Duration) *wasmtime.Trap {
	if time.Now().Add(d).After(r.deadline) {
		time.Sleep(time.Until(r.deadline))
		return wasmtime.NewTrap("amla test host: timed out")
	}
	time.Sleep(d)
	return nil
}

func (r *run) linker() (*wasmtime.Linker, error) {
	l := wasmtime.NewLinker(Engine())
	if err := l.DefineWasi(); err != nil {
		return nil, err
	}
	defs := []struct {
		name string
		fn   any
	}{
		{wire.FnInputLen, func() int32 { return int32(len(r.input)) }},
		{wire.FnInputRead, func(c *wasmtime.Caller, ptr int32) *wasmtime.Trap { return copyOut(c, ptr, r.input) }},
		{wire.FnOutput, func(c *wasmtime.Caller, fd, ptr, n int32) *wasmtime.Trap {
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return trap
			}
			if fd == wire.Stderr {
				r.res.Stderr += string(b)
			} else {
				r.res.Stdout += string(b)
			}
			return nil
		}},
		{wire.FnToolSubmit, func(c *wasmtime.Caller, ptr, n int32) (int64, *wasmtime.Trap) {
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return 0, trap
			}
			r.res.Calls = append(r.res.Calls, "submit")
			return r.submit(b), nil
		}},
		{wire.FnToolWait, func(timeout int64) (int32, *wasmtime.Trap) {
			r.res.Calls = append(r.res.Calls, fmt.Sprintf("wait(%d)", timeout))
			return r.wait(timeout)
		}},
		{wire.FnToolTake, func(c *wasmtime.Caller, ptr int32) *wasmtime.Trap {
			trap := copyOut(c, ptr, r.taken)
			r.taken = nil
			return trap
		}},
		{wire.FnExitStatus, func(code int32) { r.res.ExitCode = int(code) }},
		{wire.FnSleep, func(ms int64) *wasmtime.Trap {
			r.res.Calls = append(r.res.Calls, fmt.Sprintf("sleep(%d)", ms))
			return r.sleep(time.Duration(ms) * time.Millisecond)
		}},
		{wire.FnSpawn, func(c *wasmtime.Caller, ptr, n int32) (int32, *wasmtime.Trap) {
			b, trap := guestBytes(c, ptr, n)
			if trap != nil {
				return 0, trap
			}
			r.res.Calls = append(r.res.Calls, "spawn")
			var req wire.SpawnRequest
			var out wire.SpawnResult
			if err := json.Unmarshal(b, &req); err != nil {
				out = wire.SpawnResult{ExitCode: 1, Error: "malformed spawn request: " + err.Error()}
			} else if r.opts.Spawn == nil {
				out = wire.SpawnResult{ExitCode: 1, Error: "spawn is not available in this host"}
			} else {
				out = r.opts.Spawn(req)
			}
			r.spawned, _ = json.Marshal(out)
			return int32(len(r.spawned)), nil
		}},
		{wire.FnDiskReserve, func(n int64) int32 {
			r.res.Calls = append(r.res.Calls, fmt.Sprintf("reserve(%d)", n))
			if r.opts.DiskQuota > 0 && r.reserved+n > r.opts.DiskQuota {
				return 1
			}
			r.reserved += n
			return 0
		}},
		{wire.FnSpawnTake, func(c *wasmtime.Caller, ptr int32) *wasmtime.Trap {
			trap := copyOut(c, ptr, r.spawned)
			r.spawned = nil
			return trap
		}},
	}
	for _, d := range defs {
		if err := l.FuncWrap(wire.Module, d.name, d.fn); err != nil {
			return nil, fmt.Errorf("defining %s: %w", d.name, err)
		}
	}
	return l, nil
}

// submit answers a request at once from the tool table; the answer
// becomes visible to tool_wait after the tool's delay.
func (r *run) submit(raw []byte) int64 {
	r.nextID++
	id := r.nextID
	var req wire.ToolRequest
	var a Answer
	if err := json.Unmarshal(raw, &req); err != nil {
		a = Answer{Code: wire.CodeInvalidRequest, Error: "malformed tool request: " + err.Error()}
	} else {
		r.res.Requests = append(r.res.Requests, req)
		name := strings.TrimPrefix(req.Method, "mcp:")
		if t, ok := r.opts.Tools[name]; ok {
			a = t(req.Params)
		} else {
			a = Answer{Code: wire.CodeInternal, Error: "No handler for tool call: " + req.Method}
		}
	}
	h, _ := json.Marshal(wire.AnswerHeader{ID: id, OK: a.Code == "", Code: a.Code, Error: a.Error})
	data := append(append(h, '\n'), a.Result...)
	r.answers = append(r.answers, pendingAnswer{readyAt: time.Now().Add(a.Delay), data: data})
	return id
}

// wait is tool_wait: the earliest ready answer, waiting for it up to
// timeout ms (forever when negative); -1 when nothing is pending and the
// guest would wait forever.
func (r *run) wait(timeout int64) (int32, *wasmtime.Trap) {
	if len(r.answers) == 0 {
		if timeout < 0 {
			return -1, nil
		}
		return 0, r.sleep(time.Duration(timeout) * time.Millisecond)
	}
	best := 0
	for i, a := range r.answers {
		if a.readyAt.Before(r.answers[best].readyAt) {
			best = i
		}
	}
	until := time.Until(r.answers[best].readyAt)
	if timeout >= 0 && until > time.Duration(timeout)*time.Millisecond {
		return 0, r.sleep(time.Duration(timeout) * time.Millisecond)
	}
	if until > 0 {
		if trap := r.sleep(until); trap != nil {
			return 0, trap
		}
	}
	r.taken = r.answers[best].data
	r.answers = append(r.answers[:best], r.answers[best+1:]...)
	return int32(len(r.taken)), nil
}
