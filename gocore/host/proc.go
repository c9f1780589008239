package host

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"amlasandbox/gocore/wire"
	"amlasandbox/gocore/workerpool"
)

// MaxNesting bounds child processes: a script may start a process that
// starts a process ... this many levels deep (JS shell() / shell node).
const MaxNesting = 4

// proc is one guest process of a run: the script's own (depth 0) or a
// child started through spawn. All processes of a run execute on the run's
// goroutine, one at a time (a parent is blocked in spawn while its child
// runs); the fields Python's threads touch (answers, pending) are guarded
// by the run's mu.
type proc struct {
	run    *Run
	parent *proc // the process blocked in spawn for this one; nil at depth 0
	depth  int
	// held is the memory this process held when it called spawn: while its
	// child runs it is blocked and cannot grow, so the chain's held bytes
	// are what the child's limit is reduced by (treeHeld).
	held    int64
	input   []byte
	answers []wire.ToolAnswer // answers ready for this process
	pending map[int64]bool    // its requests not yet answered
	taken   [][]byte          // the answer tool_wait announced, in parts
	spawned []byte            // the SpawnResult spawn announced

	// mem is the memory of the instance the process runs in (resolved
	// once: each lookup of an export adds an entry to its store).
	mem *wasmtime.Memory

	exitStatus int
	exitSet    bool
	// returnValue is the JSON the script gave return_value, last.
	returnValue []byte
	// A child's output is collected for its parent; the script's own goes
	// to the run (streamed, capped).
	stdout, stderr *cappedBuffer
	memory         int64 // linear memory size at the end
	// shim reaches wasmtime's own WASI functions in a journaled run
	// (replay_wasi.go); nil otherwise.
	shim *wasiShim
}

func newProc(r *Run, parent *proc, out *[2]*cappedBuffer) *proc {
	p := &proc{run: r, parent: parent, pending: map[int64]bool{}}
	if parent != nil {
		p.depth = parent.depth + 1
	}
	if out != nil {
		p.stdout, p.stderr = out[0], out[1]
	}
	return p
}

// procEnd is how a process ended, and for the script's own process the
// instance it ran in, still to be closed.
type procEnd struct {
	result wire.Result
	inst   *instance
}

// instance is a guest instance ready to run: its store (whose data is
// the process), the instantiated module, and the file its runtime's own
// stderr goes to. err is set instead when it could not be made.
type instance struct {
	language   string
	g          *GuestModule
	p          *proc
	store      *wasmtime.Store
	inst       *wasmtime.Instance
	runtimeLog string
	err        error // setting the instance up failed
	instErr    error // instantiating the module failed (a trap, memory)

	// The exports a run calls, resolved once (each lookup adds an entry to
	// the store): _start for a command; for a reactor, its set-up exports
	// and amla_run.
	start, run *wasmtime.Func
	setUp      []*wasmtime.Func
	mem        *wasmtime.Memory
	// resetGlobals are a snapshot's mutable globals, exported for resetting
	// (reset.go); nil when the module has none to offer.
	resetGlobals []*wasmtime.Global
	// returned: the last call into the instance returned normally (no trap,
	// no exit), so it may be reset and used again.
	returned bool
	// shim is set when the instance was made for journaled runs
	// (replay_wasi.go): it then serves only those.
	shim *wasiShim
}

// resolve looks up the exports a run needs.
func (in *instance) resolve() {
	if ext := in.inst.GetExport(in.store, "memory"); ext != nil {
		in.mem = ext.Memory()
	}
	in.p.mem = in.mem
	if !in.g.reactor {
		in.start = in.inst.GetFunc(in.store, wire.ExportStart)
		return
	}
	// A snapshot (amla-snapshot) exports no _initialize, and its
	// amla_init finds the set-up done and returns at once.
	for _, name := range []string{wire.ExportInitialize, wire.ExportInit} {
		if f := in.inst.GetFunc(in.store, name); f != nil {
			in.setUp = append(in.setUp, f)
		}
	}
	in.run = in.inst.GetFunc(in.store, wire.ExportRun)
	for _, name := range in.g.resetGlobals {
		ext := in.inst.GetExport(in.store, name)
		if ext == nil || ext.Global() == nil {
			in.resetGlobals = nil
			return
		}
		in.resetGlobals = append(in.resetGlobals, ext.Global())
	}
}

// close frees the instance's store (unmapping its memory).
func (in *instance) close() {
	if in != nil && in.store != nil {
		in.store.Close()
		in.store = nil
	}
}

// newInstance makes a fresh instance of language's guest for p, with a
// memory limit of memLimit bytes. It runs no guest code.
func (s *Sandbox) newInstance(language string, p *proc, memLimit int64) *instance {
	in := &instance{language: language, p: p}
	g, err := s.guestFor(language)
	if err != nil {
		in.err = err
		return in
	}
	in.g = g
	store := wasmtime.NewStoreWithData(sharedEngine(), p)
	in.store = store
	store.Limiter(memLimit, -1, -1, -1, -1)

	// One file per nesting level, reused run after run (a sandbox runs one
	// script at a time): opening it truncates it.
	in.runtimeLog = filepath.Join(s.base, fmt.Sprintf("guest-stderr-%d.log", p.depth))
	wasi, err := s.wasiConfig(in.runtimeLog, memLimit)
	if err != nil {
		in.err = err
		return in
	}
	store.SetWasi(wasi)
	linker, err := g.linkerFor(p)
	if err != nil {
		in.err = err
		return in
	}
	if min := g.initialMemory(); min > memLimit {
		in.instErr = fmt.Errorf("memory_limit is %s, below the %s of memory the %s guest (%s) starts with: give the sandbox a memory_limit above %s",
			mib(memLimit), mib(min), language, filepath.Base(g.WasmPath), mib(min))
		return in
	}
	in.inst, in.instErr = linker.Instantiate(store, g.module)
	if in.instErr == nil {
		in.resolve()
		in.err = in.attachShim(linker != g.linker)
	}
	return in
}

// wasiConfig is the WASI context of a guest instance: its arguments,
// environment, the sandbox's directories, and fd 2 going to runtimeLog.
func (s *Sandbox) wasiConfig(runtimeLog string, memLimit int64) (*wasmtime.WasiConfig, error) {
	wasi := wasmtime.NewWasiConfig()
	wasi.SetArgv([]string{"amla-guest"})
	gomem := memLimit * 3 / 4
	wasi.SetEnv([]string{"GOMEMLIMIT", "PWD", "HOME"}, []string{strconv.FormatInt(gomem, 10), "/workspace", "/workspace"})
	// The guests write their output through the output host function; fd 2
	// only ever carries a guest runtime's own crash report.
	if err := wasi.SetStderrFile(runtimeLog); err != nil {
		return nil, err
	}
	for _, pre := range preopens(s.Root()) {
		// The directories exist from the sandbox's start; one the embedder
		// removed since is made again.
		err := wasi.PreopenDir(pre.host, pre.guest, pre.dir, pre.file)
		if err != nil {
			if mkErr := os.MkdirAll(pre.host, 0o700); mkErr == nil {
				err = wasi.PreopenDir(pre.host, pre.guest, pre.dir, pre.file)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("preopening %s: %v", pre.guest, err)
		}
	}
	// Mounts come after the three directories, so those keep the file
	// descriptors a snapshot recorded.
	for _, m := range s.cfg.Mounts {
		if err := wasi.PreopenDir(m.Host, m.Guest, wasmtime.DIR_READ, wasmtime.FILE_READ); err != nil {
			return nil, fmt.Errorf("mounting %s at %s: %v", m.Host, m.Guest, err)
		}
	}
	return wasi, nil
}

// runProc runs one guest process for input to its end, inside the run's
// deadline and a memory limit of memLimit bytes. A nested process gets a
// fresh instance, closed before runProc returns; the script's own process
// (p.depth 0) takes the sandbox's spare when it fits, and its instance is
// returned in procEnd for the run to reset or close once the result is
// out.
func (r *Run) runProc(p *proc, in wire.Input, memLimit int64) procEnd {
	fail := func(format string, a ...any) procEnd {
		return procEnd{result: wire.Result{ExitCode: 1, ErrorKind: wire.ErrKindRuntime, Error: "Runtime error: " + fmt.Sprintf(format, a...)}}
	}
	in, failed := fromTypeScript(in)
	if failed != "" {
		p.write(wire.Stderr, []byte(failed))
		return procEnd{result: wire.Result{ExitCode: 1}}
	}
	in.MemoryLimit = memLimit
	if r.sb.net != nil && len(r.sb.net.env) > 0 {
		// The sandbox's variables, under those a parent process passed.
		env := maps.Clone(r.sb.net.env)
		maps.Copy(env, in.Env)
		in.Env = env
	}
	r.sb.indexTools(&in)
	r.sb.nameTools(&in)
	in.Mounts = nil
	if in.Language == wire.LangPython {
		for _, m := range r.sb.cfg.Mounts {
			in.Mounts = append(in.Mounts, m.Guest)
		}
	}
	data, err := json.Marshal(in)
	if err != nil {
		return fail("encoding run input: %v", err)
	}

	var inst *instance
	if p.depth == 0 && in.KeepState {
		inst = r.sb.takeKept(in.Language, p)
		if inst != nil && (inst.shim != nil) != r.dur.journaled() {
			inst = r.sb.rebuildKept(inst, p, memLimit)
		}
	}
	if p.depth == 0 && inst == nil {
		inst = r.sb.takeSpare(in.Language, p)
		if inst != nil && (inst.shim != nil) != r.dur.journaled() {
			// A spare made for the other kind of run (journaled or not).
			inst.close()
			inst = nil
		}
	}
	if inst == nil {
		// Loading the guest may mean compiling it (seconds, once per
		// install): that is not the script's time.
		loadStart := time.Now()
		_, _ = r.sb.guestFor(in.Language)
		r.ctl.extend(time.Since(loadStart))
		inst = r.sb.newInstance(in.Language, p, memLimit)
	}
	end := procEnd{inst: inst}
	if p.depth > 0 {
		defer inst.close()
		end.inst = nil
	}
	p = inst.p
	p.input = data
	if inst.err != nil {
		end.result = fail("%v", inst.err).result
		return end
	}
	r.ctl.attach(inst.store)
	leave, err := r.enterDurable(p, inst, in)
	defer leave()
	if err != nil {
		end.result = fail("%v", err).result
		return end
	}

	var callErr error
	if inst.instErr != nil {
		callErr = inst.instErr
	} else {
		// Guests run on threads with a stack of known size (gocore/workerpool):
		// the run's own goroutine was started on one, and a nested
		// process moves to one of its own.
		if p.depth == 0 {
			callErr = r.enter(p, inst)
		} else if err := workerpool.Run(func() { callErr = r.enter(p, inst) }); err != nil {
			end.result = fail("%v", err).result
			return end
		}
		if errors.Is(callErr, errNoEntry) {
			end.result = fail("guest module %s: %v", filepath.Base(inst.g.WasmPath), callErr).result
			return end
		}
	}
	inst.returned = callErr == nil
	if inst.mem != nil {
		p.memory = int64(inst.mem.DataSize(inst.store))
	}
	end.result = r.classify(p, callErr, inst.runtimeLog, memLimit)
	return end
}

var errNoEntry = errors.New("exports neither _start nor amla_run")

// enter runs the process: _start of a command module, or the reactor's
// exports in order.
func (r *Run) enter(p *proc, in *instance) error {
	if !in.g.reactor {
		if in.start == nil {
			return errNoEntry
		}
		_, err := in.start.Call(in.store)
		return err
	}
	for _, f := range in.setUp {
		if _, err := f.Call(in.store); err != nil {
			return err
		}
	}
	if in.run == nil {
		return errNoEntry
	}
	v, err := in.run.Call(in.store)
	if err == nil && !p.exitSet {
		if code, ok := v.(int32); ok {
			p.exitStatus, p.exitSet = int(code), true
		}
	}
	return err
}

// classify decides how a process ended from facts: the run's stop reason,
// the WASI exit status, the trap code, and the memory the guest holds.
func (r *Run) classify(p *proc, err error, runtimeLog string, memLimit int64) wire.Result {
	lim := r.sb.cfg.Limits
	res := wire.Result{PeakMemoryBytes: p.memory}
	exit := func() int {
		if p.exitSet {
			return p.exitStatus
		}
		return 0
	}
	switch r.ctl.reason() {
	case stopCancel:
		res.ExitCode, res.ErrorKind, res.Error = 130, wire.ErrKindCancelled, "Runtime error: run cancelled"
		return res
	case stopTimeout:
		res.ExitCode, res.ErrorKind = 124, wire.ErrKindTimeout
		res.Error = fmt.Sprintf("Execution timed out after %s (timeout=%g seconds)", lim.Timeout, lim.Timeout.Seconds())
		return res
	case stopLimit:
		res.ExitCode, res.ErrorKind, res.Error = 1, wire.ErrKindRuntime, "Runtime error: run stopped by a limit"
		return res
	}
	nearLimit := p.memory >= memLimit-memLimit/8
	if err == nil {
		res.ExitCode = exit()
		// A C guest whose script failed after an allocation failed exits
		// 137; holding memory near the limit, that is the limit.
		if res.ExitCode == 137 && nearLimit {
			return r.memoryResult(res, memLimit)
		}
		if p.depth == 0 && len(p.returnValue) > 0 {
			res.ReturnValue = p.returnValue
		}
		return res
	}
	var werr *wasmtime.Error
	if errors.As(err, &werr) {
		if code, ok := werr.ExitStatus(); ok {
			if code == 0 {
				res.ExitCode = exit()
				return res
			}
			res.ExitCode = int(code)
			// A Go guest that cannot grow its heap reports a fatal
			// runtime error and exits 2; a C guest exits 137.
			crashed := code == 2 && fileSize(runtimeLog) > 0
			if (crashed || code == 137) && nearLimit || crashed && goOutOfMemory(runtimeLog) {
				return r.memoryResult(res, memLimit)
			}
			if crashed {
				res.ErrorKind = wire.ErrKindRuntime
				res.Error = "Runtime panic: the guest runtime failed\n\nStderr output:\n" + readTrimmed(runtimeLog, 4096)
			}
			return res
		}
	}
	var trap *wasmtime.Trap
	if errors.As(err, &trap) {
		if c := trap.Code(); c != nil && *c == wasmtime.StackOverflow {
			res.ExitCode, res.ErrorKind = 1, wire.ErrKindRuntime
			res.Error = "Runtime error: the script exhausted the guest's call stack (recursion too deep)"
			return res
		}
	}
	if nearLimit || goOutOfMemory(runtimeLog) {
		return r.memoryResult(res, memLimit)
	}
	res.ExitCode, res.ErrorKind = 1, wire.ErrKindRuntime
	res.Error = "Runtime error: " + errorText(err)
	if s := readTrimmed(runtimeLog, 4096); s != "" {
		res.Error += "\n\nStderr output:\n" + s
	}
	return res
}

// memoryResult is a process that reached limit, its share of the run's
// memory_limit.
func (r *Run) memoryResult(res wire.Result, limit int64) wire.Result {
	res.ExitCode = 137
	res.ErrorKind = wire.ErrKindMemory
	runLimit := r.sb.cfg.Limits.MemoryLimit
	if limit >= runLimit {
		res.Error = fmt.Sprintf("Memory limit exceeded: the script needed more than %d bytes (memory_limit=%d)", runLimit, runLimit)
	} else {
		res.Error = fmt.Sprintf("Memory limit exceeded: the script's processes together needed more than memory_limit=%d bytes "+
			"(a child process had the %d bytes its parents left)", runLimit, limit)
	}
	return res
}

// goOutOfMemory reports whether a Go guest's runtime log says its runtime
// died for want of memory. The Go runtime prints "fatal error: " and a
// message naming out of memory ("out of memory", "runtime: out of memory",
// "out of memory (stackalloc)", ...) when memory.grow fails, then exits 2
// or, in some paths, traps. Such a guest can be far from the limit by the
// memory it holds when it asks for one large block (a slice doubling), so
// the log and not nearLimit decides. The line is looked for in the log's
// first 64 KiB: the runtime writes it before its goroutine dump.
func goOutOfMemory(runtimeLog string) bool {
	for _, line := range strings.Split(readTrimmed(runtimeLog, 64<<10), "\n") {
		msg, ok := strings.CutPrefix(line, "fatal error: ")
		if ok && strings.Contains(msg, "out of memory") {
			return true
		}
	}
	return false
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func readTrimmed(path string, max int) string {
	b, _ := os.ReadFile(path)
	if len(b) > max {
		b = b[:max]
	}
	return strings.TrimSpace(string(b))
}

// errorText is the cause of a wasmtime error without its wasm backtrace.
func errorText(err error) string {
	var trap *wasmtime.Trap
	if errors.As(err, &trap) {
		if m := strings.TrimSpace(trap.Message()); m != "" {
			err = errors.New(m)
		}
	}
	s := err.Error()
	if _, cause, ok := strings.Cut(s, "Caused by:"); ok {
		s = cause
	}
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// write is the output host function.
func (p *proc) write(fd int, b []byte) {
	r := p.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.stdout != nil {
		if fd == wire.Stderr {
			p.stderr.Write(b)
		} else {
			p.stdout.Write(b)
		}
		return
	}
	buf, name, text := &r.stdout, "stdout", &r.streamText[0]
	if fd == wire.Stderr {
		buf, name, text = &r.stderr, "stderr", &r.streamText[1]
	}
	kept := buf.Write(b)
	if r.stream && len(kept) > 0 {
		// Whole characters only: one cut at the end of this write comes
		// out with the next.
		if t := text.next(kept); len(t) > 0 {
			r.queue = append(r.queue, wire.Event{Kind: wire.EventOutput, Stream: name, Data: string(t)})
			r.changed()
		}
	}
}

// submit is the tool_submit host function: the request is checked (it must
// be something Python can take) and authorised at once; only an allowed
// request is queued for Python, a refused one is answered right here.
// memory is what the calling process holds: its params are host memory
// until the request is answered, charged against memory_limit with it,
// the processes above it and the requests already waiting.
func (p *proc) submit(raw []byte, memory int64) (int64, error) {
	r := p.run
	req, methodErr, decodeErr := decodeRequest(raw)
	if decodeErr == nil && len(req.Params) == 0 {
		req.Params = json.RawMessage("{}")
	}
	// A tools search is no tool call and does not count as one.
	search := decodeErr == nil && methodErr == nil && req.Method == wire.MethodToolSearch
	r.mu.Lock()
	r.nextID++
	id := r.nextID
	if !search {
		r.submitted++
	}
	over := r.submitted > r.sb.cfg.Limits.MaxToolCalls
	r.mu.Unlock()
	if over {
		max := r.sb.cfg.Limits.MaxToolCalls
		r.fail(stopLimit, wire.Result{ExitCode: 1, ErrorKind: wire.ErrKindRuntime,
			Error: fmt.Sprintf("Execution exceeded maximum steps (%d)", max)})
		return id, errStopped
	}
	refuse := func(code, msg string, v verdict) (int64, error) {
		r.mu.Lock()
		r.answerNow(p, id, req.Method, req.Params, wire.ToolAnswer{ID: id, Code: code, Error: msg}, v)
		r.mu.Unlock()
		return id, nil
	}
	badRequest := verdict{check: checkRequest}
	if decodeErr != nil {
		return refuse(wire.CodeInvalidRequest, "Invalid payload JSON: "+decodeErr.Error(), badRequest)
	}
	if methodErr != nil {
		return refuse(wire.CodeInvalidRequest, methodErr.Error(), badRequest)
	}
	if req.Method == wire.MethodHTTP {
		return p.submitHTTP(id, req.Params)
	}
	if req.Method == wire.MethodHTTPCancel {
		return p.cancelHTTP(id, req.Params)
	}
	if search {
		return p.searchTools(id, req.Params)
	}
	if err := checkPayload([]byte(strconv.Quote(req.Method))); err != nil || strings.ContainsRune(req.Method, 0) {
		return refuse(wire.CodeInvalidRequest, "Invalid payload JSON: the tool name is not text Python can take", badRequest)
	}
	if err := r.sb.checkMethod(req.Method); err != nil {
		return refuse(wire.CodeInvalidRequest, err.Error(), badRequest)
	}
	if err := checkPayload(req.Params); err != nil {
		return refuse(wire.CodeInvalidRequest, err.Error(), badRequest)
	}
	v, err := p.authorizeCall(id, req.Method, req.Params)
	if err != nil {
		if errors.Is(err, errStopped) {
			return id, err
		}
		return refuse(wire.CodePermissionDenied, err.Error(), v)
	}
	if p.replayedRequest(id, req, v) {
		return id, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	size := requestCharge(req.Params)
	held := memory
	if p.parent != nil {
		held += p.parent.treeHeld()
	}
	if limit := r.sb.cfg.Limits.MemoryLimit; held+r.outstanding+size > limit {
		r.answerNow(p, id, req.Method, req.Params, wire.ToolAnswer{ID: id, Code: wire.CodeInvalidRequest,
			Error: fmt.Sprintf("Tool request refused: its params (%d bytes of JSON, %d bytes of host memory while it waits), "+
				"the %d tool calls still waiting for answers (%d bytes) "+
				"and the script's memory (%d bytes) would exceed memory_limit=%d; await earlier calls before making more",
				len(req.Params), size, len(r.reqBytes), r.outstanding, held, limit)},
			verdict{grant: v.grant, check: checkMemory, approval: v.approval})
		return id, nil
	}
	r.outstanding += size
	r.reqBytes[id] = size
	r.addCall(id, req.Method, req.Params, v)
	r.owner[id] = p
	p.pending[id] = true
	r.queue = append(r.queue, wire.Event{Kind: wire.EventRequest, ID: id, Method: req.Method, Params: req.Params})
	r.changed()
	return id, nil
}

// answerNow records and delivers an answer decided by the host; v is why
// (for the record). mu must be held.
func (r *Run) answerNow(p *proc, id int64, method string, params json.RawMessage, a wire.ToolAnswer, v verdict) {
	shown, cut := preview(params)
	if len(shown) == 0 {
		shown = json.RawMessage("null")
	}
	c := wire.ToolCall{ID: id, Method: method, Params: shown, ParamsTruncated: cut,
		OK: a.OK, Code: a.Code, Error: a.Error, StartedMS: r.sinceStart()}
	v.apply(&c)
	r.calls = append(r.calls, c)
	p.answers = append(p.answers, a)
}

// errStopped makes a host function trap because the run was stopped; the
// stop reason, not this error, decides the outcome.
var errStopped = errors.New("amla: run stopped")

// wait is the tool_wait host function. Time blocked on Python's answers
// does not count against the run's timeout; a wait with no request pending
// is a timer wait, which does.
func (p *proc) wait(timeoutMS int64) (int32, error) {
	r := p.run
	r.mu.Lock()
	if len(p.answers) == 0 && len(p.pending) == 0 {
		r.mu.Unlock()
		if timeoutMS < 0 {
			return -1, nil
		}
		if err := r.sleep(time.Duration(timeoutMS) * time.Millisecond); err != nil {
			return 0, err
		}
		return 0, nil
	}
	var until time.Time
	if timeoutMS >= 0 {
		until = time.Now().Add(time.Duration(timeoutMS) * time.Millisecond)
	}
	blockedAt := time.Now()
	r.blocked++
	r.changed()
	released := false
	for len(p.answers) == 0 && !r.stopped() {
		if !released {
			// Waiting on Python computes nothing: another run may start
			// meanwhile (gocore/workerpool), such as one the tool's handler runs.
			released = true
			workerpool.ReleaseSlot()
		}
		if !r.waitUntil(until) {
			break
		}
	}
	if released {
		workerpool.RetakeSlot()
	}
	r.blocked--
	r.ctl.extend(time.Since(blockedAt))
	if r.stopped() {
		r.mu.Unlock()
		return 0, errStopped
	}
	if len(p.answers) == 0 {
		r.mu.Unlock()
		return 0, nil // the timer came due first
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	if n, ok := r.httpBytes[a.ID]; ok {
		r.httpHeld -= n
		delete(r.httpBytes, a.ID)
	}
	r.mu.Unlock()
	header, _ := json.Marshal(wire.AnswerHeader{ID: a.ID, OK: a.OK, Code: a.Code, Error: a.Error})
	// The frame is header, newline, result; its parts go to the guest
	// separately, so a large result is not copied into a frame first.
	p.taken = [][]byte{append(header, '\n'), a.Result}
	return int32(len(header) + 1 + len(a.Result)), nil
}

// sleep is the sleep host function: it waits d, or until the run is
// stopped or its deadline passes (which stops it).
func (r *Run) sleep(d time.Duration) error {
	if d < 0 {
		d = 0
	}
	left := r.ctl.remaining()
	timedOut := left < d
	if timedOut {
		d = max(left, 0)
	}
	until := time.Now().Add(d)
	r.mu.Lock()
	for !r.stopped() && r.waitUntil(until) {
	}
	stopped := r.stopped()
	r.mu.Unlock()
	if stopped {
		return errStopped
	}
	if timedOut {
		r.ctl.stop(stopTimeout)
		return errStopped
	}
	return nil
}

// spawn is the spawn host function: it runs the other guest as a child
// process on the same directory, inside this run's deadline and what is
// left of the memory limit, and collects its output for the parent.
func (p *proc) spawn(raw []byte, parentMemory int64) []byte {
	r := p.run
	var req wire.SpawnRequest
	out := wire.SpawnResult{}
	reply := func() []byte {
		if req.OutputApart {
			return spawnFrame(out)
		}
		b, _ := json.Marshal(out)
		return b
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		out.ExitCode, out.Error = 2, "spawn: malformed request: "+err.Error()
		return reply()
	}
	if p.depth+1 > MaxNesting {
		out.ExitCode = 126
		out.Error = fmt.Sprintf("nesting limit reached: at most %d levels of shell()/node/python may run inside one another", MaxNesting)
		return reply()
	}
	lim := r.sb.cfg.Limits
	// The run's processes share memory_limit: the child gets what the
	// chain of processes blocked above it (this one included) and the
	// tool requests still waiting for answers leave.
	p.held = parentMemory
	held := p.treeHeld()
	r.mu.Lock()
	outstanding := r.outstanding
	r.mu.Unlock()
	memLimit := lim.MemoryLimit - held - outstanding
	if memLimit < minChildMemory {
		p.held = 0
		out.ExitCode = 126
		out.Error = fmt.Sprintf("memory_limit: a child process needs at least %d bytes, and this run's processes hold %d and its waiting tool requests %d of memory_limit=%d",
			int64(minChildMemory), held, outstanding, lim.MemoryLimit)
		return reply()
	}
	bufs := [2]*cappedBuffer{{max: lim.MaxOutput}, {max: lim.MaxOutput}}
	child := newProc(r, p, &bufs)
	in := r.input
	in.Language, in.Code, in.Stdin, in.HasStdin = req.Language, req.Code, req.Stdin, req.HasStdin
	in.Argv, in.Dir, in.Env = req.Argv, req.Dir, req.Env
	in.KeepState = false // a child process starts fresh and is not kept
	end := r.runProc(child, in, memLimit)
	p.held = 0
	r.notePeak(held + child.memory)
	r.mu.Lock()
	out.Stdout, out.Stderr = bufs[0].String(), bufs[1].String()
	r.mu.Unlock()
	out.ExitCode = end.result.ExitCode
	if end.result.ErrorKind == wire.ErrKindMemory && r.ctl.reason() == stopNone {
		// A child at its memory limit ends the whole run, as the script's
		// own process would.
		r.fail(stopLimit, end.result)
	}
	out.Error = end.result.Error
	return reply()
}

// spawnFrame is res as a wire.SpawnFrame: its output after the JSON, so
// every byte of it costs one byte.
func spawnFrame(res wire.SpawnResult) []byte {
	stdout, stderr := res.Stdout, res.Stderr
	res.Stdout, res.Stderr = "", ""
	head, _ := json.Marshal(res)
	b := make([]byte, wire.SpawnFrameHeader, wire.SpawnFrameHeader+len(head)+len(stdout)+len(stderr))
	binary.LittleEndian.PutUint32(b, uint32(len(stdout)))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(stderr)))
	return append(append(append(b, head...), stdout...), stderr...)
}

// treeHeld is the memory held by p and the processes above it, all
// blocked in spawn (their held was recorded there).
func (p *proc) treeHeld() int64 {
	var n int64
	for q := p; q != nil; q = q.parent {
		n += q.held
	}
	return n
}

// minChildMemory is the least memory a child process gets.
const minChildMemory = 32 << 20

// mib formats n bytes as MiB, rounded up.
func mib(n int64) string { return fmt.Sprintf("%d MiB", (n+(1<<20)-1)>>20) }
