package host

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"amlasandbox/gocore/wire"
	"amlasandbox/gocore/workerpool"
)

// Run is one execution of one script: the script's guest process, any
// child processes it starts, and the state Python drives it by. All of a
// run's state lives here; Python asks it one question at a time (Step),
// answers tool requests by id (Resume, ResumeError) and may Cancel it.
//
// The guest runs on the run's own goroutine; Python's calls come from other
// threads. mu guards everything below it; cond is broadcast on every change
// a waiter might care about.
type Run struct {
	sb     *Sandbox
	stream bool
	ctl    *deadline
	begun  time.Time // when Start was called: the deadline runs from here
	input  wire.Input
	// launched is set by whichever comes first: a worker starting the run
	// (execute), or the run ending while it still waited for one
	// (endWaiting); the other then does nothing.
	launched atomic.Bool

	mu         sync.Mutex
	cond       *sync.Cond
	changes    atomic.Uint64   // changes made under mu (changed), for spinning waiters
	queue      []wire.Event    // requests not yet handed to Python, and output chunks, in order
	owner      map[int64]*proc // outstanding request id -> the process that submitted it
	handed     map[int64]bool  // outstanding requests already handed to Python
	callIdx    map[int64]int   // request id -> index in calls
	callStart  map[int64]time.Time
	calls      []wire.ToolCall
	nextID     int64
	submitted  int
	blocked    int // processes blocked in tool_wait on Python's answers
	lastHanded int64
	finished   bool
	result     wire.Result
	stdout     cappedBuffer
	stderr     cappedBuffer
	// streamText makes the streamed chunks of stdout and stderr text
	// (output_text.go).
	streamText [2]textStream
	// fatal, when set, decides the run's outcome: a limit hit in a child
	// process or by the host (tool calls per run).
	fatal *wire.Result
	// outstanding is the charge (requestCharge: bytes of params times the
	// host's copies of them) of the tool requests submitted and not yet
	// answered (reqBytes by id): host memory the run holds, charged against
	// memory_limit (submit).
	outstanding int64
	reqBytes    map[int64]int64
	// peakTree is the most memory the run's processes held at once while
	// a child process ran (spawn).
	peakTree atomic.Int64
	// dur is the run's journal and approval state (journal_run.go); nil
	// for a plain run.
	dur *durableRun
	// waitTimer ends the run at its deadline while it waits for a worker
	// (Sandbox.start); guarded by mu.
	waitTimer *time.Timer
	// httpCtx is the context of the run's HTTP requests (network.go),
	// made at the first and cancelled when the run ends; guarded by mu.
	httpCtx    context.Context
	httpCancel context.CancelFunc
	// httpHeld is the bytes of HTTP answers made and not yet taken by
	// their guests (httpBytes by id): host memory charged against
	// memory_limit with outstanding (network.go).
	httpHeld  int64
	httpBytes map[int64]int64
	// httpStop cancels one request in flight, by id (http_cancel).
	httpStop map[int64]context.CancelFunc
	// keptGen is the sandbox's ResetState generation when the run took its
	// instance (keep.go); set on the run's goroutine before the guest runs.
	keptGen uint64
}

func newRun(s *Sandbox, in wire.Input, stream bool) *Run {
	lim := s.cfg.Limits
	r := &Run{
		sb: s, stream: stream, input: in,
		ctl:       newDeadline(),
		owner:     map[int64]*proc{},
		handed:    map[int64]bool{},
		callIdx:   map[int64]int{},
		callStart: map[int64]time.Time{},
		reqBytes:  map[int64]int64{},
		httpBytes: map[int64]int64{},
		httpStop:  map[int64]context.CancelFunc{},
		stdout:    cappedBuffer{max: lim.MaxOutput},
		stderr:    cappedBuffer{max: lim.MaxOutput},
	}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// execute runs the script's process to its end and publishes the result;
// it is the run's own goroutine. It returns what is left to do once the
// result is out: preparing the sandbox's next instance.
func (r *Run) execute() (after func()) {
	if !r.launched.CompareAndSwap(false, true) {
		return nil // it ended while it waited for a worker (endWaiting)
	}
	r.stopWaitTimer()
	var res wire.Result
	var used *instance
	func() {
		// The epoch advances while a run executes wasm, and only then.
		epochRunStarted()
		defer epochRunEnded()
		defer func() {
			if p := recover(); p != nil {
				res = wire.Result{ExitCode: 1, ErrorKind: wire.ErrKindRuntime, Error: fmt.Sprintf("Runtime panic: %v", p)}
			}
		}()
		main := newProc(r, nil, nil)
		end := r.runProc(main, r.input, r.sb.cfg.Limits.MemoryLimit)
		res = end.result
		used = end.inst
	}()
	checked := r.checkDisk(&res)
	return r.publish(res, used, checked)
}

// endWaiting ends a run that was cancelled, or whose deadline passed,
// while it waited for a worker thread (gocore/workerpool): its result is out
// at once, and the worker that would have run it finds it ended. It does
// nothing once a worker has started the run.
func (r *Run) endWaiting() {
	if !r.launched.CompareAndSwap(false, true) {
		return
	}
	r.stopWaitTimer()
	r.ctl.stop(stopTimeout) // unless cancelled first
	res := r.classify(newProc(r, nil, nil), errStopped, "", r.sb.cfg.Limits.MemoryLimit)
	// No guest ran: the sandbox's spare and files are as they were.
	r.publish(res, nil, true)()
}

func (r *Run) stopWaitTimer() {
	r.mu.Lock()
	if r.waitTimer != nil {
		r.waitTimer.Stop()
		r.waitTimer = nil
	}
	r.mu.Unlock()
}

// publish makes res the run's result and wakes its waiters. It returns
// what is left to do once the result is out: preparing the sandbox's next
// instance from used (nil: none was used), and measuring the files when
// checkDisk did not.
func (r *Run) publish(res wire.Result, used *instance, checked bool) (after func()) {
	res.PeakMemoryBytes = max(res.PeakMemoryBytes, r.peakTree.Load())
	res.DurationMS = float64(time.Since(r.begun).Microseconds()) / 1000
	// From before the result is out until the spare is ready (after): the
	// sandbox's next run, which may start the moment Python has the result,
	// waits in takeSpare instead of racing the reset (or making an
	// instance of its own while this one is still being reset).
	r.sb.spareMu.Lock()
	r.mu.Lock()
	keeping := r.input.KeepState && used != nil
	keep := keeping && r.keepable(res, used)
	gen := r.keptGen
	if r.fatal != nil {
		res.ExitCode, res.ErrorKind, res.Error = r.fatal.ExitCode, r.fatal.ErrorKind, r.fatal.Error
	}
	r.flushStreams()
	res.Stdout = r.stdout.Take()
	res.Stderr = r.stderr.Take() + res.Stderr
	if keeping && !keep {
		res.StateReset = true
		if res.Stderr != "" && res.Stderr[len(res.Stderr)-1] != '\n' {
			res.Stderr += "\n"
		}
		res.Stderr += stateResetNote(res)
	}
	res.ToolCalls = r.calls
	if res.ToolCalls == nil {
		res.ToolCalls = []wire.ToolCall{}
	}
	r.result = res
	r.finished = true
	// Requests nobody answered die with the run.
	kept := r.queue[:0]
	for _, ev := range r.queue {
		if ev.Kind != wire.EventRequest {
			kept = append(kept, ev)
		}
	}
	r.queue = kept
	r.owner, r.handed = map[int64]*proc{}, map[int64]bool{}
	r.outstanding, r.reqBytes = 0, map[int64]int64{}
	r.endRequests()
	r.changed()
	r.mu.Unlock()
	// With the result out, reset the instance (or make a new one) for the
	// next run.
	return func() {
		func() {
			defer r.sb.spareMu.Unlock()
			if keeping {
				r.sb.keepOrReplace(used, keep, gen)
				return
			}
			r.sb.replaceSpare(used)
		}()
		if !checked {
			r.checkDiskLater()
		}
	}
}

// flushStreams queues, for a streaming run, what its streams held back
// at their ends: a character cut by the last write or by the output cap,
// as U+FFFD. mu must be held.
func (r *Run) flushStreams() {
	for i, name := range []string{"stdout", "stderr"} {
		if t := r.streamText[i].flush(); r.stream && len(t) > 0 {
			r.queue = append(r.queue, wire.Event{Kind: wire.EventOutput, Stream: name, Data: string(t)})
		}
	}
}

// checkDisk is the host's own check that the guests kept to the disk
// quota: they ask it before they write, which should make going over
// impossible, and this catches a guest (or a library in one) that wrote
// without asking. A run that asked for room is measured before its result
// is out, and fails when the files are over the quota. A run that asked
// for nothing is measured after its result is out (a walk of the
// directory costs about as much as a short run, so it is kept off the
// result's path, and shared by the runs that follow within laterDelay):
// over the quota, a later run's stderr starts by saying so. Either way
// the files are kept (nothing a script wrote is deleted behind its back),
// and every write is refused until files are removed (a refusal always
// rests on a measure of the directory).
func (r *Run) checkDisk(res *wire.Result) (measured bool) {
	if !r.sb.disk.takeAsked() {
		return false
	}
	if used, over := r.sb.disk.measure(); over {
		msg := r.sb.overQuota(used)
		if res.ErrorKind == "" {
			res.ExitCode, res.ErrorKind, res.Error = 1, wire.ErrKindRuntime, msg
		} else {
			res.Error += "\n" + msg
		}
	}
	return true
}

// checkDiskLater measures the directory after a run that asked for no
// room (see checkDisk), shortly after and off the run's thread.
func (r *Run) checkDiskLater() {
	sb := r.sb
	sb.disk.measureLater(func(used int64) {
		sb.disk.note(sb.overQuota(used) + " (found after the previous run)")
	})
}

func (s *Sandbox) overQuota(used int64) string {
	return fmt.Sprintf("Disk quota exceeded: the sandbox's files take %d bytes, more than disk_quota=%d; "+
		"they are kept, and writes are refused until files are removed", used, s.cfg.Limits.DiskQuota)
}

// notePeak records that the run's processes held n bytes at once.
func (r *Run) notePeak(n int64) {
	for {
		cur := r.peakTree.Load()
		if n <= cur || r.peakTree.CompareAndSwap(cur, n) {
			return
		}
	}
}

// broadcast wakes every waiter (used by timers).
func (r *Run) broadcast() {
	r.mu.Lock()
	r.changed()
	r.mu.Unlock()
}

// changed counts a change of the run and wakes every waiter. mu must be
// held.
func (r *Run) changed() {
	r.changes.Add(1)
	r.cond.Broadcast()
}

// stepSpin is how long Step waits for a change by spinning before it
// sleeps. Waking Python's thread from cond is a hand-off through Go's
// scheduler to the one thread that may run it, which costs more than most
// short runs take; they end within this (figures: docs/architecture.md,
// "Hand-offs between threads").
const stepSpin = 300 * time.Microsecond

// spinForChange waits up to d, mu released, for a change after seen. mu
// must be held.
func (r *Run) spinForChange(seen uint64, d time.Duration) {
	r.mu.Unlock()
	until := time.Now().Add(d)
	for r.changes.Load() == seen && time.Now().Before(until) {
	}
	r.mu.Lock()
}

// waitUntil waits on cond until woken or until t (zero t: no timeout).
// It returns false once t has passed. mu must be held.
func (r *Run) waitUntil(t time.Time) bool {
	if t.IsZero() {
		r.cond.Wait()
		return true
	}
	d := time.Until(t)
	if d <= 0 {
		return false
	}
	timer := time.AfterFunc(d, r.broadcast)
	r.cond.Wait()
	timer.Stop()
	return time.Now().Before(t)
}

// Step returns the run's next event, waiting at most timeout for one:
// an output chunk, a tool request (handed to the caller when take is true;
// with take false it stays queued, so has_work can look without taking),
// "waiting" when the script is blocked on requests already handed out,
// "done" with the result, or "busy" when the timeout passed first.
func (r *Run) Step(timeout time.Duration, take bool) wire.Event {
	end := time.Now().Add(timeout)
	spun := false
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if len(r.queue) > 0 {
			ev := r.queue[0]
			if !isCallEvent(ev.Kind) || take {
				r.queue = r.queue[1:]
			}
			if isCallEvent(ev.Kind) && take {
				r.handed[ev.ID] = true
				r.lastHanded = ev.ID
			}
			return ev
		}
		if r.finished {
			res := r.result
			return wire.Event{Kind: wire.EventDone, Result: &res}
		}
		if r.blocked > 0 && len(r.handed) > 0 && !r.stopped() {
			ids := make([]int64, 0, len(r.handed))
			for id := range r.handed {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
			return wire.Event{Kind: wire.EventWaiting, IDs: ids}
		}
		if spin := min(time.Until(end), stepSpin); !spun && spin > 0 && workerpool.StartSpin() {
			spun = true
			r.spinForChange(r.changes.Load(), spin)
			workerpool.StopSpin()
			continue
		}
		if !r.waitUntil(end) {
			return wire.Event{Kind: wire.EventBusy}
		}
	}
}

// LastHanded is the id of the request Step handed out last (0: none).
func (r *Run) LastHanded() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastHanded
}

// Resume answers request id with a JSON result.
func (r *Run) Resume(id int64, result string) error {
	max := r.sb.cfg.Limits.MaxToolResult
	if int64(len(result)) > max {
		return r.ResumeError(id, wire.CodeInternal, fmt.Sprintf("Tool result too large: %d bytes (max %d)", len(result), max))
	}
	// The result is only ever read (validated here, copied into the guest's
	// memory by tool_take), so it is used in place: a result may be as
	// large as the limit, and each copy would hold it once more.
	raw := json.RawMessage(unsafe.Slice(unsafe.StringData(result), len(result)))
	if !json.Valid(raw) {
		return r.ResumeError(id, wire.CodeInternal, "Tool result not JSON-serializable: the handler's result is not valid JSON text")
	}
	return r.settle(id, wire.ToolAnswer{ID: id, OK: true, Result: raw})
}

// ResumeError answers request id with an error the script sees.
func (r *Run) ResumeError(id int64, code, message string) error {
	if code == "" {
		code = wire.CodeInternal
	}
	return r.settle(id, wire.ToolAnswer{ID: id, Code: code, Error: message})
}

func (r *Run) settle(id int64, a wire.ToolAnswer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.owner[id]
	if !ok {
		switch {
		case r.finished || r.stopped():
			return nil // the run ended (or is ending): nobody waits for this answer
		case id > 0 && id <= r.nextID:
			return fmt.Errorf("resume: tool request %d is not waiting for an answer (answered already, or refused by the host)", id)
		}
		return fmt.Errorf("resume: no tool request with id %d in this run", id)
	}
	delete(r.owner, id)
	delete(r.handed, id)
	delete(p.pending, id)
	r.outstanding -= r.reqBytes[id]
	delete(r.reqBytes, id)
	for i, ev := range r.queue {
		if ev.Kind == wire.EventRequest && ev.ID == id {
			r.queue = append(r.queue[:i], r.queue[i+1:]...)
			break
		}
	}
	r.record(id, a)
	p.answers = append(p.answers, a)
	r.changed()
	return nil
}

// record notes how call id ended. mu must be held.
func (r *Run) record(id int64, a wire.ToolAnswer) {
	idx, ok := r.callIdx[id]
	if !ok {
		return
	}
	r.calls[idx].OK = a.OK
	r.calls[idx].Code = a.Code
	r.calls[idx].Error = a.Error
	r.calls[idx].DurationMS = float64(time.Since(r.callStart[id]).Microseconds()) / 1000
	delete(r.callIdx, id)
	delete(r.callStart, id)
}

// Cancel stops the run: a computing guest stops at its next epoch tick, a
// blocked one as soon as it is woken (now), and one still waiting for a
// worker ends here. Safe to call at any time.
func (r *Run) Cancel() {
	r.ctl.stop(stopCancel)
	r.broadcast()
	if !r.launched.Load() {
		r.endWaiting()
	}
}

// Finished reports whether the run has ended.
func (r *Run) Finished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished
}

// WaitDone blocks until the run has ended.
func (r *Run) WaitDone() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.finished {
		r.cond.Wait()
	}
}

// Result returns the finished run; it blocks until the run has ended.
func (r *Run) Result() wire.Result {
	r.WaitDone()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.result
}

// stopped reports whether the run was stopped (cancel, deadline, limit).
func (r *Run) stopped() bool { return r.ctl.reason() != stopNone }

// fail makes res the run's outcome and stops it.
func (r *Run) fail(reason stopReason, res wire.Result) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = &res
	}
	r.mu.Unlock()
	r.ctl.stop(reason)
	r.broadcast()
}

// cappedBuffer keeps at most max bytes and notes once that it dropped some.
// It grows its storage itself so that the capacity never passes max: a
// flood of output costs the host max bytes, not twice that.
type cappedBuffer struct {
	data      []byte
	max       int64
	truncated bool
}

// Write stores what fits and returns the part kept.
func (c *cappedBuffer) Write(b []byte) []byte {
	room := c.max - int64(len(c.data))
	if room <= 0 {
		if len(b) > 0 {
			c.truncated = true
		}
		return nil
	}
	if int64(len(b)) > room {
		b = b[:room]
		c.truncated = true
	}
	if need := len(c.data) + len(b); need > cap(c.data) {
		grown := int64(max(2*cap(c.data), need, 4096))
		grown = min(grown, c.max)
		data := make([]byte, len(c.data), grown)
		copy(data, c.data)
		c.data = data
	}
	c.data = append(c.data, b...)
	return b
}

func (c *cappedBuffer) marker() {
	if c.truncated {
		c.data = fmt.Appendf(c.data, "\n[output truncated at %d bytes]\n", c.max)
		c.truncated = false
	}
}

// String returns the bytes kept as text (output_text.go).
func (c *cappedBuffer) String() string {
	c.marker()
	return string(validText(c.data))
}

// Take returns the bytes kept as text and forgets them, without copying
// when they are valid UTF-8: a run's output can be tens of megabytes, and
// it moves to Python once.
func (c *cappedBuffer) Take() string {
	c.marker()
	b := validText(c.data)
	c.data = nil
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
