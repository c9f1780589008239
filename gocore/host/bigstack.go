package host

/*
#include <stddef.h>
extern int amla_bigstack_start(size_t stack_bytes);
extern size_t amla_thread_stack(void);
extern size_t amla_thread_id(void);
extern void amla_stack_trim(size_t keep_bytes);
extern size_t amla_stack_resident(size_t from_bytes, size_t to_bytes);
extern void amla_stack_touch(size_t bytes);
*/
import "C"

import (
	"fmt"
	"syscall"
)

// Guests run on threads the host creates with a known stack (bigstack.c
// says why): threadStack bytes, of which wasmtime lets the guest use
// maxWasmStack; the rest is for the host frames around it. A run's
// goroutine starts on such a thread, and each nested process (shell() in
// JavaScript, node in the shell) runs on a thread of its own, so nesting
// never stacks one guest's wasm stack on another's.
//
// The stack is virtual memory; a thread only commits the pages it
// touches.
const threadStack = 40 << 20

// stackKeep is how much of a worker's stack stays committed between jobs;
// the pages below it are given back to the kernel after every job, so a
// guest that recursed deeply does not leave tens of MiB resident.
const stackKeep = 1 << 20

// bigStackJobs hands a job to an idle worker: unbuffered, so a send only
// succeeds when a worker is waiting.
var bigStackJobs = make(chan func())

// amlaBigStackWorker serves jobs for the life of the process. Workers never
// end: a thread that has run wasm and leaves Go tears down wasmtime's and
// Go's per-thread signal state in an order neither controls, and the suite
// once died of SIGSEGV while idle workers were ending. An idle worker costs
// its thread and the committed top of its stack (stackKeep).
//
//export amlaBigStackWorker
func amlaBigStackWorker() {
	for job := range bigStackJobs {
		job()
		C.amla_stack_trim(C.size_t(stackKeep))
	}
}

// goOnBigStack starts f on a worker thread with a stack of threadStack
// bytes and returns: at once when a worker is idle, else once a new one has
// taken f. A run's own goroutine starts this way (Sandbox.Start).
func goOnBigStack(f func()) error {
	select {
	case bigStackJobs <- f:
		return nil
	default:
	}
	if errno := C.amla_bigstack_start(C.size_t(threadStack)); errno != 0 {
		return fmt.Errorf("starting a thread for the guest: %w", syscall.Errno(errno))
	}
	// The new worker, or one that has just finished a job, takes it.
	bigStackJobs <- f
	return nil
}

// onBigStack runs f on a worker thread of its own and returns when f has
// returned; a panic in f is raised again here. A nested process starts
// this way, from its parent's thread (proc.spawn).
func onBigStack(f func()) error {
	done := make(chan any, 1)
	err := goOnBigStack(func() {
		defer func() { done <- recover() }()
		f()
	})
	if err != nil {
		return err
	}
	if p := <-done; p != nil {
		panic(p)
	}
	return nil
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
