package host

/*
#include <stddef.h>
extern int amla_bigstack_start(size_t stack_bytes);
extern size_t amla_thread_stack(void);
extern size_t amla_thread_id(void);
*/
import "C"

import (
	"fmt"
	"syscall"
	"time"
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

// workerIdle is how long an idle worker thread waits for the next run
// before it ends.
const workerIdle = 30 * time.Second

// bigStackJobs hands a job to an idle worker: unbuffered, so a send only
// succeeds when a worker is waiting.
var bigStackJobs = make(chan func())

//export amlaBigStackWorker
func amlaBigStackWorker() {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		select {
		case job := <-bigStackJobs:
			job()
			idle.Reset(workerIdle)
		case <-idle.C:
			return
		}
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
