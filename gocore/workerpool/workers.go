package workerpool

/*
#include <stddef.h>
#include <stdint.h>
extern int amla_bigstack_start(size_t stack_bytes, uint64_t id);
extern size_t amla_thread_stack(void);
extern size_t amla_thread_id(void);
extern void amla_stack_trim(size_t keep_bytes);
extern size_t amla_stack_resident(size_t from_bytes, size_t to_bytes);
extern void amla_stack_touch(size_t bytes);
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Guests run on threads this package creates with a known stack (workers.c
// says why): ThreadStack bytes, of which wasmtime lets the guest use the
// host's maximum wasm stack; the rest is for the host frames around it. A
// run's goroutine starts on such a thread (Go), and each nested process
// (shell() in JavaScript, node in the shell) runs on a thread of its own
// (Run), so nesting never stacks one guest's wasm stack on another's.
//
// The stack is virtual memory; a thread only commits the pages it
// touches.
const ThreadStack = 40 << 20

const threadStack = ThreadStack

// stackKeep is how much of a worker's stack stays committed between jobs;
// the pages below it are given back to the kernel after every job, so a
// guest that recursed deeply does not leave tens of MiB resident.
const stackKeep = 1 << 20

// A worker that has finished a job waits for the next one spinning for
// workerSpin before it sleeps: waking a sleeping thread costs tens of
// microseconds between a run's start and its guest's first instruction
// (docs/performance.md, "Profiling"), a script's runs usually come back
// to back (an agent's turn, a benchmark), and a spinning worker takes the
// next one at once. Once in a while it costs workerSpin of one CPU.
const workerSpin = 250 * time.Microsecond

// bigWorker is one worker thread's mailbox.
type bigWorker struct {
	job  atomic.Pointer[Job]
	wake chan struct{} // a token after job was set; may be stale
}

// DefaultMaxWorkers bounds the worker threads that runs start on; see
// SetMaxWorkers.
const DefaultMaxWorkers = 32

// idleTrimAfter is how long a worker waits for a job before it gives back
// all but stackIdleKeep of its stack: the time an idle sandbox keeps its
// spare (spares.go).
const (
	idleTrimAfter = DefaultSpareIdle
	stackIdleKeep = 64 << 10
)

var (
	// idleWorkers are waiting for a job, the last to become idle last.
	// idleMu also guards the counts and the queue below.
	idleMu      sync.Mutex
	idleWorkers []*bigWorker
	// workers is how many worker threads exist. computing is how many
	// slots are held: a run's job holds one while it runs, except while
	// its guest waits for Python (a tool's answer, an approval:
	// ReleaseSlot), which computes nothing; a child process holds its
	// parent's (Run). A run starts only while computing is below
	// maxWorkers, on an idle worker or else a new thread, and otherwise
	// waits in queued; a slot given up goes to the first queued run at
	// once. So a run blocked on a tool whose handler runs another script
	// never keeps that script from starting, and the threads in use are
	// bounded by maxWorkers plus the runs waiting on Python, each with at
	// most MaxNesting children. A nested process never waits in the queue
	// (its parent waits for it, which could deadlock), and a job whose
	// answer came takes its slot back without waiting, which may take
	// computing past the bound for a while.
	workers    int
	computing  int
	maxWorkers = DefaultMaxWorkers
	queued     []Job
	// startingWorkers are the workers of threads being started, by id,
	// each holding its first job.
	startingMu      sync.Mutex
	startingWorkers = map[uint64]*bigWorker{}
	lastWorkerID    uint64
)

// amlaBigStackWorker serves jobs for the life of the process. Workers never
// end: a thread that has run wasm and leaves Go tears down wasmtime's and
// Go's per-thread signal state in an order neither controls, and the suite
// once died of SIGSEGV while idle workers were ending. So they are bounded
// instead (maxWorkers, with runs beyond it queued), and an idle worker costs
// its thread and the committed top of its stack: stackKeep, and
// stackIdleKeep once it has been idle for idleTrimAfter. (Threads past
// maxWorkers exist only while more runs than that wait on Python at once.)
//
//export amlaBigStackWorker
func amlaBigStackWorker(id C.uint64_t) {
	startingMu.Lock()
	w := startingWorkers[uint64(id)]
	delete(startingWorkers, uint64(id))
	startingMu.Unlock()
	for {
		var after func()
		survive("a guest run", func() { after = w.await()() })
		// Idle from here: the next job may come while after runs (a run's
		// follow-up once its result is out) and waits for it. A run
		// waiting for a worker is that next job.
		idleMu.Lock()
		computing--
		if len(queued) > 0 && computing < maxWorkers {
			next := queued[0]
			queued = queued[1:]
			computing++
			w.job.Store(&next)
		} else {
			idleWorkers = append(idleWorkers, w)
		}
		idleMu.Unlock()
		if after != nil {
			survive("preparing the next instance", after)
		}
		C.amla_stack_trim(C.size_t(stackKeep))
	}
}

// survive runs f and recovers a panic in it: this thread entered Go from
// C, and a panic leaving it would end the whole process (Python with it).
// Jobs recover their own panics where they can report them to a caller
// (the host's Run.execute, Run); this is the last line, which can only say
// what happened.
func survive(what string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "amla-sandbox: internal error in %s (recovered): %v\n", what, p)
		}
	}()
	f()
}

// Job is work for a worker thread; it may return more work (after) that
// does not keep the worker from taking its next job: a run's follow-up
// once its result is out.
type Job func() (after func())

// await returns w's next job.
func (w *bigWorker) await() Job {
	if j := w.job.Swap(nil); j != nil {
		return *j
	}
	if spinners.start() {
		until := time.Now().Add(workerSpin)
		for time.Now().Before(until) {
			if j := w.job.Swap(nil); j != nil {
				spinners.stop()
				return *j
			}
		}
		spinners.stop()
	}
	trim := time.NewTimer(idleTrimAfter)
	defer trim.Stop()
	for {
		select {
		case <-w.wake:
			if j := w.job.Swap(nil); j != nil {
				return *j
			}
		case <-trim.C:
			C.amla_stack_trim(C.size_t(stackIdleKeep))
		}
	}
}

// spinBudget bounds how many waiters spin at once: max, or with max
// negative one fewer than Go's processors at the time (which Go may lower
// when a container's CPU limit changes).
type spinBudget struct {
	n   atomic.Int32
	max int32
}

func (b *spinBudget) limit() int32 {
	if b.max >= 0 {
		return b.max
	}
	return int32(runtime.GOMAXPROCS(0) - 1)
}

// start reports whether the caller may wait by spinning; if so it must
// call stop when it stops.
func (b *spinBudget) start() bool {
	limit := b.limit()
	for {
		n := b.n.Load()
		if n >= limit {
			return false
		}
		if b.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (b *spinBudget) stop() { b.n.Add(-1) }

// spinners are the waiters spinning now (a worker awaiting its next job,
// Python's thread in the host's Run.Step): at most one fewer than Go's
// processors, so that one is always left for the thread being waited for;
// with one processor nobody spins.
var spinners = spinBudget{max: -1}

// StartSpin reports whether the caller may wait by spinning (within the
// process's budget of spinners); if so it must call StopSpin when it
// stops.
func StartSpin() bool { return spinners.start() }

// StopSpin ends a spin StartSpin allowed.
func StopSpin() { spinners.stop() }

// SetMaxWorkers bounds the runs computing at once, and with them the
// worker threads (n >= 1; see computing). Threads are never ended, so
// lowering the bound stops new ones, nothing more.
func SetMaxWorkers(n int) {
	idleMu.Lock()
	maxWorkers = max(n, 1)
	idleMu.Unlock()
	startQueued()
}

// Go starts f on a worker thread with a stack of ThreadStack bytes and
// returns: the worker that became idle last takes it, or a new one is
// started, or with maxWorkers jobs computing f waits for the first slot to
// be released (queued is then true). A run's own goroutine starts this way
// (the host's Sandbox.Start).
func Go(f Job) (queued bool, err error) { return dispatch(f, false) }

// dispatch hands f to a worker. A nested job never waits in the queue,
// and holds its caller's slot rather than one of its own (the caller
// waits for it: Run).
func dispatch(f Job, nested bool) (bool, error) {
	idleMu.Lock()
	if !nested {
		if computing >= maxWorkers {
			queued = append(queued, f)
			idleMu.Unlock()
			return true, nil
		}
		computing++
	}
	w := takeWorkerLocked()
	idleMu.Unlock()
	if err := startJob(w, f); err != nil {
		if !nested {
			idleMu.Lock()
			computing--
			idleMu.Unlock()
		}
		return false, err
	}
	return false, nil
}

// takeWorkerLocked returns the worker that became idle last, or nil after
// counting a thread to be started for the job. idleMu must be held.
func takeWorkerLocked() *bigWorker {
	if n := len(idleWorkers); n > 0 {
		w := idleWorkers[n-1]
		idleWorkers = idleWorkers[:n-1]
		return w
	}
	workers++
	return nil
}

// startJob gives f to w, or with w nil to a new thread (counted already
// in workers, and uncounted again when it cannot be started).
func startJob(w *bigWorker, f Job) error {
	if w != nil {
		w.job.Store(&f)
		select {
		case w.wake <- struct{}{}:
		default:
		}
		return nil
	}
	w = &bigWorker{wake: make(chan struct{}, 1)}
	w.job.Store(&f)
	startingMu.Lock()
	lastWorkerID++
	id := lastWorkerID
	startingWorkers[id] = w
	startingMu.Unlock()
	if errno := C.amla_bigstack_start(C.size_t(threadStack), C.uint64_t(id)); errno != 0 {
		startingMu.Lock()
		delete(startingWorkers, id)
		startingMu.Unlock()
		idleMu.Lock()
		workers--
		idleMu.Unlock()
		return fmt.Errorf("starting a thread for the guest: %w", syscall.Errno(errno))
	}
	return nil
}

// ReleaseSlot is called by a job that stops computing to wait for Python
// (or for a child process) and will call RetakeSlot when it goes on: the
// first queued run, if any, starts in its place.
func ReleaseSlot() {
	idleMu.Lock()
	computing--
	idleMu.Unlock()
	startQueued()
}

// startQueued starts queued runs while fewer than maxWorkers jobs compute.
func startQueued() {
	for {
		idleMu.Lock()
		if len(queued) == 0 || computing >= maxWorkers {
			idleMu.Unlock()
			return
		}
		f := queued[0]
		queued = queued[1:]
		computing++
		w := takeWorkerLocked()
		idleMu.Unlock()
		if err := startJob(w, f); err != nil {
			// No thread to be had: the run waits at the head of the queue
			// for the next slot (its deadline still runs: the host's Sandbox.start).
			fmt.Fprintf(os.Stderr, "amla-sandbox: %v; the run waits for a worker\n", err)
			idleMu.Lock()
			computing--
			queued = append([]Job{f}, queued...)
			idleMu.Unlock()
			return
		}
	}
}

// RetakeSlot is called by a job that released its slot when it computes
// again. It never waits (the job holds its thread already), so it may take
// computing past maxWorkers for a while.
func RetakeSlot() {
	idleMu.Lock()
	computing++
	idleMu.Unlock()
}

// Run runs f on a worker thread of its own and returns when f has
// returned; a panic in f is raised again here. A nested process starts
// this way, from its parent's thread (the host's proc.spawn): the child
// holds its parent's slot while the parent waits, so a run with its
// children counts once, and a child waiting on Python leaves the slot as a
// run does.
func Run(f func()) error {
	done := make(chan any, 1)
	_, err := dispatch(func() func() {
		defer func() {
			// The caller's slot, which this job held, is the caller's
			// again before the worker gives up this job's.
			RetakeSlot()
			done <- recover()
		}()
		f()
		return nil
	}, true)
	if err != nil {
		return err
	}
	if p := <-done; p != nil {
		panic(p)
	}
	return nil
}

// Counts are the worker threads that exist and the slots held now (for
// tests of the bound).
func Counts() (threads, slots int) {
	idleMu.Lock()
	defer idleMu.Unlock()
	return workers, computing
}

// threadStackSize is the stack size of the thread running the caller (0
// if unknown); tests use it to check where work runs.
func threadStackSize() uintptr { return uintptr(C.amla_thread_stack()) }

// threadID identifies the thread running the caller (for tests).
func threadID() uintptr { return uintptr(C.amla_thread_id()) }

// stackResident counts the resident pages of the calling thread's stack
// between from and to bytes below the current frame (for tests; -1 where
// it cannot be told).
func stackResident(from, to uintptr) int {
	n := C.amla_stack_resident(C.size_t(from), C.size_t(to))
	if n == ^C.size_t(0) {
		return -1
	}
	return int(n)
}

// stackTouch writes to bytes of the calling thread's stack below the
// current frame (for tests).
func stackTouch(bytes uintptr) { C.amla_stack_touch(C.size_t(bytes)) }
