package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wire"
)

// Event is what Python pulls from a run: a tool request to answer, a chunk
// of output (only when streaming was asked for), or the end of the run.
type Event struct {
	Kind   string          `json:"kind"` // "request", "output", "idle" (guest waits for answers), "done"
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Stream string          `json:"stream,omitempty"` // "stdout" or "stderr"
	Data   string          `json:"data,omitempty"`
}

// Error kinds of a Result.
const (
	ErrKindTimeout = "timeout"
	ErrKindMemory  = "memory"
	ErrKindRuntime = "runtime"
)

// ToolCall records one tool call of a run.
type ToolCall struct {
	ID         int64           `json:"id"`
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
	OK         bool            `json:"ok"`
	Error      string          `json:"error,omitempty"`
	DurationMS float64         `json:"duration_ms"`
}

// Result is a finished run.
type Result struct {
	Stdout          string     `json:"stdout"`
	Stderr          string     `json:"stderr"`
	ExitCode        int        `json:"exit_code"`
	DurationMS      float64    `json:"duration_ms"`
	PeakMemoryBytes int64      `json:"peak_memory_bytes"`
	ToolCalls       []ToolCall `json:"tool_calls"`
	ErrorKind       string     `json:"error_kind,omitempty"`
	Error           string     `json:"error,omitempty"`
}

// Run is one execution of one script on a fresh guest instance.
type Run struct {
	sb     *Sandbox
	input  []byte
	stream bool
	store  *wasmtime.Store
	begun  time.Time

	// taken is the answer announced by the last tool_wait; only the guest's
	// goroutine touches it.
	taken []byte

	mu         sync.Mutex
	cond       *sync.Cond
	events     []Event
	answers    []wire.ToolAnswer
	pending    map[int64]int // request id -> index in calls
	calls      []ToolCall
	callStart  map[int64]time.Time
	nextID     int64
	finished   bool
	cancelled  bool
	timedOut   bool
	exitStatus int // as recorded by the guest's exit_status call
	exitSet    bool
	stdout     cappedBuffer
	stderr     cappedBuffer
	result     Result

	// Time the guest may still compute, and when it last resumed computing.
	budget       time.Duration
	runningSince time.Time
}

func newRun(s *Sandbox, in wire.Input, stream bool) (*Run, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("start: encoding run input: %w", err)
	}
	lim := s.cfg.Limits
	r := &Run{
		sb: s, input: data, stream: stream,
		pending:   map[int64]int{},
		callStart: map[int64]time.Time{},
		stdout:    cappedBuffer{max: lim.MaxOutput},
		stderr:    cappedBuffer{max: lim.MaxOutput},
		budget:    lim.Timeout,
	}
	r.cond = sync.NewCond(&r.mu)
	return r, nil
}

// execute instantiates the guest and runs it to the end; it is the run's
// own goroutine.
func (r *Run) execute() {
	r.begun = time.Now()
	res := r.instantiateAndRun()
	res.DurationMS = float64(time.Since(r.begun).Microseconds()) / 1000
	r.mu.Lock()
	res.Stdout = r.stdout.String()
	res.Stderr = r.stderr.String() + res.Stderr
	res.ToolCalls = r.calls
	if res.ToolCalls == nil {
		res.ToolCalls = []ToolCall{}
	}
	r.result = res
	r.finished = true
	r.events = append(r.events, Event{Kind: "done"})
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *Run) instantiateAndRun() Result {
	lim := r.sb.cfg.Limits
	eng := sharedEngine()
	store := wasmtime.NewStoreWithData(eng, r)
	defer store.Close()
	r.store = store
	store.Limiter(lim.MemoryLimit, -1, -1, -1, -1)

	scratch, err := os.MkdirTemp(r.sb.base, "run-")
	if err != nil {
		return Result{ExitCode: 1, ErrorKind: ErrKindRuntime, Error: "Runtime error: creating run scratch directory: " + err.Error()}
	}
	defer os.RemoveAll(scratch)
	runtimeLog := filepath.Join(scratch, "guest-runtime.log")

	wasi := wasmtime.NewWasiConfig()
	wasi.SetArgv([]string{"amla-guest"})
	gomem := lim.MemoryLimit * 3 / 4
	wasi.SetEnv([]string{"GOMEMLIMIT", "PWD", "HOME"}, []string{strconv.FormatInt(gomem, 10), "/workspace", "/workspace"})
	if err := wasi.SetStderrFile(runtimeLog); err != nil {
		return Result{ExitCode: 1, ErrorKind: ErrKindRuntime, Error: "Runtime error: " + err.Error()}
	}
	root := r.sb.Root()
	preopens := []struct {
		host, guest string
		dir         wasmtime.WasiDirPerms
		file        wasmtime.WasiFilePerms
	}{
		{root, "/", wasmtime.DIR_READ, wasmtime.FILE_READ},
		{filepath.Join(root, "workspace"), "/workspace", wasmtime.DIR_READ | wasmtime.DIR_WRITE, wasmtime.FILE_READ | wasmtime.FILE_WRITE},
		{filepath.Join(root, "tmp"), "/tmp", wasmtime.DIR_READ | wasmtime.DIR_WRITE, wasmtime.FILE_READ | wasmtime.FILE_WRITE},
	}
	for _, p := range preopens {
		// The guest may have removed /workspace or /tmp? It cannot: `/` is
		// read-only. Recreate them anyway in case the host side did.
		_ = os.MkdirAll(p.host, 0o700)
		if err := wasi.PreopenDir(p.host, p.guest, p.dir, p.file); err != nil {
			return Result{ExitCode: 1, ErrorKind: ErrKindRuntime, Error: fmt.Sprintf("Runtime error: preopening %s: %v", p.guest, err)}
		}
	}
	store.SetWasi(wasi)

	r.mu.Lock()
	r.runningSince = time.Now()
	r.mu.Unlock()
	store.SetEpochDeadline(ticks(r.budget))

	inst, err := r.sb.guest.linker.Instantiate(store, r.sb.guest.module)
	if err != nil {
		return r.classify(err, store, nil, runtimeLog)
	}
	start := inst.GetFunc(store, "_start")
	if start == nil {
		return Result{ExitCode: 1, ErrorKind: ErrKindRuntime, Error: "Runtime error: guest module has no _start"}
	}
	_, err = start.Call(store)
	return r.classify(err, store, inst, runtimeLog)
}

func ticks(d time.Duration) uint64 {
	if d <= 0 {
		return 1
	}
	return uint64(d/epochTick) + 1
}

// classify turns the guest's end into a Result: an exit status, or a
// timeout, out-of-memory or runtime failure.
func (r *Run) classify(err error, store *wasmtime.Store, inst *wasmtime.Instance, runtimeLog string) Result {
	var res Result
	lim := r.sb.cfg.Limits
	if inst != nil {
		if mem := inst.GetExport(store, "memory"); mem != nil && mem.Memory() != nil {
			res.PeakMemoryBytes = int64(mem.Memory().DataSize(store))
		}
	}
	logBytes, _ := os.ReadFile(runtimeLog)
	runtimeOut := string(logBytes)
	r.mu.Lock()
	timedOut, cancelled := r.timedOut, r.cancelled
	r.mu.Unlock()

	outOfMemory := strings.Contains(runtimeOut, "out of memory") ||
		(res.PeakMemoryBytes > lim.MemoryLimit-lim.MemoryLimit/8 && err != nil)
	if err == nil {
		r.mu.Lock()
		if r.exitSet {
			res.ExitCode = r.exitStatus
		}
		r.mu.Unlock()
		return res
	}
	var werr *wasmtime.Error
	if errors.As(err, &werr) {
		if code, ok := werr.ExitStatus(); ok {
			res.ExitCode = int(code)
			if code == 0 {
				r.mu.Lock()
				if r.exitSet {
					res.ExitCode = r.exitStatus
				}
				r.mu.Unlock()
				return res
			}
			if outOfMemory {
				return memoryResult(res, lim)
			}
			if runtimeOut != "" && code == 2 {
				// The guest's Go runtime died (panic or fatal error).
				res.ErrorKind = ErrKindRuntime
				res.Error = "Runtime panic: the guest runtime failed\n\nStderr output:\n" + strings.TrimSpace(runtimeOut)
			}
			return res
		}
	}
	var trap *wasmtime.Trap
	if errors.As(err, &trap) {
		if c := trap.Code(); c != nil && *c == wasmtime.Interrupt || timedOut {
			if cancelled {
				res.ExitCode = 130
				res.ErrorKind = ErrKindRuntime
				res.Error = "Runtime error: run cancelled"
				return res
			}
			res.ExitCode = 124
			res.ErrorKind = ErrKindTimeout
			res.Error = fmt.Sprintf("Execution timed out after %s (timeout=%g seconds)", lim.Timeout, lim.Timeout.Seconds())
			return res
		}
		if outOfMemory {
			return memoryResult(res, lim)
		}
		if c := trap.Code(); c != nil && *c == wasmtime.StackOverflow {
			res.ExitCode = 1
			res.ErrorKind = ErrKindRuntime
			res.Error = "Runtime error: the script exhausted the guest's call stack (recursion too deep)"
			return res
		}
		if cancelled {
			res.ExitCode = 130
			res.ErrorKind = ErrKindRuntime
			res.Error = "Runtime error: run cancelled"
			return res
		}
	}
	if outOfMemory {
		return memoryResult(res, lim)
	}
	res.ExitCode = 1
	res.ErrorKind = ErrKindRuntime
	res.Error = "Runtime error: " + err.Error()
	if s := strings.TrimSpace(runtimeOut); s != "" {
		res.Error += "\n\nStderr output:\n" + s
	}
	return res
}

func memoryResult(res Result, lim Limits) Result {
	res.ExitCode = 137
	res.ErrorKind = ErrKindMemory
	res.Error = fmt.Sprintf("Memory limit exceeded: the script needed more than %d bytes (memory_limit=%d)", lim.MemoryLimit, lim.MemoryLimit)
	return res
}

// write is the output host function: capped per stream, streamed on request.
func (r *Run) write(fd int, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	buf, name := &r.stdout, "stdout"
	if fd == wire.Stderr {
		buf, name = &r.stderr, "stderr"
	}
	kept := buf.Write(b)
	if r.stream && len(kept) > 0 {
		r.events = append(r.events, Event{Kind: "output", Stream: name, Data: string(kept)})
		r.cond.Broadcast()
	}
}

// submit is the tool_submit host function: the authorizer decides at once;
// a denial is answered without Python ever seeing the request.
func (r *Run) submit(raw []byte) int64 {
	var req wire.ToolRequest
	err := json.Unmarshal(raw, &req)
	r.mu.Lock()
	r.nextID++
	id := r.nextID
	r.mu.Unlock()
	if err != nil {
		r.answer(wire.ToolAnswer{ID: id, Error: "malformed tool request: " + err.Error()})
		return id
	}
	if len(req.Params) == 0 {
		req.Params = json.RawMessage("{}")
	}
	r.mu.Lock()
	r.calls = append(r.calls, ToolCall{ID: id, Method: req.Method, Params: req.Params})
	idx := len(r.calls) - 1
	r.callStart[id] = time.Now()
	r.mu.Unlock()
	if err := r.sb.cfg.Authorizer.Authorize(req.Method, req.Params); err != nil {
		r.mu.Lock()
		r.calls[idx].Error = err.Error()
		r.mu.Unlock()
		r.answer(wire.ToolAnswer{ID: id, Error: err.Error()})
		return id
	}
	r.mu.Lock()
	r.pending[id] = idx
	r.events = append(r.events, Event{Kind: "request", ID: id, Method: req.Method, Params: req.Params})
	r.cond.Broadcast()
	r.mu.Unlock()
	return id
}

func (r *Run) answer(a wire.ToolAnswer) {
	r.mu.Lock()
	r.answers = append(r.answers, a)
	r.cond.Broadcast()
	r.mu.Unlock()
}

// wait is the tool_wait host function. Time spent here, blocked on Python,
// does not count against the run's timeout: the epoch deadline is re-armed
// with what is left when the guest resumes.
func (r *Run) wait() (int32, *wasmtime.Trap) {
	r.mu.Lock()
	if len(r.answers) == 0 && len(r.pending) == 0 {
		r.mu.Unlock()
		return 0, nil
	}
	blockedAt := time.Now()
	r.budget -= blockedAt.Sub(r.runningSince)
	if len(r.answers) == 0 {
		// Tell Python the guest now waits: every request it issued together
		// is queued, so they may be answered concurrently.
		r.events = append(r.events, Event{Kind: "idle"})
		r.cond.Broadcast()
	}
	for len(r.answers) == 0 && !r.cancelled {
		r.cond.Wait()
	}
	if r.cancelled {
		r.mu.Unlock()
		return 0, wasmtime.NewTrap("amla: run cancelled")
	}
	a := r.answers[0]
	r.answers = r.answers[1:]
	r.runningSince = time.Now()
	budget := r.budget
	if budget <= 0 {
		r.timedOut = true
	}
	r.mu.Unlock()
	if budget <= 0 {
		return 0, wasmtime.NewTrap("amla: run timed out")
	}
	r.store.SetEpochDeadline(ticks(budget))
	header, _ := json.Marshal(wire.AnswerHeader{ID: a.ID, OK: a.OK, Error: a.Error})
	data := make([]byte, 0, len(header)+1+len(a.Result))
	data = append(append(append(data, header...), '\n'), a.Result...)
	r.taken = data
	return int32(len(data)), nil
}

// Next blocks until the run has an event for Python and returns it. After
// the "done" event it keeps returning "done".
func (r *Run) Next() Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.events) == 0 {
		r.cond.Wait()
	}
	ev := r.events[0]
	if ev.Kind == "done" {
		return ev
	}
	r.events = r.events[1:]
	return ev
}

// Resume answers request id with a JSON result.
func (r *Run) Resume(id int64, result string) error {
	max := r.sb.cfg.Limits.MaxToolResult
	if int64(len(result)) > max {
		return r.ResumeError(id, fmt.Sprintf("Tool result too large: %d bytes (max %d)", len(result), max))
	}
	if !json.Valid([]byte(result)) {
		return r.ResumeError(id, "Tool result not JSON-serializable: invalid JSON text")
	}
	return r.settle(id, wire.ToolAnswer{ID: id, OK: true, Result: json.RawMessage(result)})
}

// ResumeError answers request id with an error message the script sees.
func (r *Run) ResumeError(id int64, message string) error {
	return r.settle(id, wire.ToolAnswer{ID: id, Error: message})
}

func (r *Run) settle(id int64, a wire.ToolAnswer) error {
	r.mu.Lock()
	idx, ok := r.pending[id]
	if !ok {
		finished := r.finished
		r.mu.Unlock()
		if finished {
			return nil // the script ended without waiting for this answer
		}
		return fmt.Errorf("resume: no pending tool request with id %d", id)
	}
	delete(r.pending, id)
	r.calls[idx].OK = a.OK
	r.calls[idx].Error = a.Error
	r.calls[idx].DurationMS = float64(time.Since(r.callStart[id]).Microseconds()) / 1000
	delete(r.callStart, id)
	r.answers = append(r.answers, a)
	r.cond.Broadcast()
	r.mu.Unlock()
	return nil
}

// Finished reports whether the guest has ended.
func (r *Run) Finished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished
}

// WaitDone blocks until the guest has ended.
func (r *Run) WaitDone() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.finished {
		r.cond.Wait()
	}
}

// Result returns the finished run; it blocks until the run has ended.
func (r *Run) Result() Result {
	r.WaitDone()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.result
}

// Cancel stops the run: a guest blocked on Python is woken with a trap; a
// computing guest still ends at its epoch deadline.
func (r *Run) Cancel() {
	r.mu.Lock()
	r.cancelled = true
	r.cond.Broadcast()
	r.mu.Unlock()
}

// cappedBuffer keeps at most max bytes and notes once that it dropped some.
type cappedBuffer struct {
	buf       bytes.Buffer
	max       int64
	truncated bool
}

// Write stores what fits and returns the part kept.
func (c *cappedBuffer) Write(b []byte) []byte {
	room := c.max - int64(c.buf.Len())
	if room <= 0 {
		c.truncated = true
		return nil
	}
	if int64(len(b)) > room {
		b = b[:room]
		c.truncated = true
	}
	c.buf.Write(b)
	return b
}

func (c *cappedBuffer) String() string {
	s := c.buf.String()
	if c.truncated {
		s += fmt.Sprintf("\n[output truncated at %d bytes]\n", c.max)
	}
	return s
}
