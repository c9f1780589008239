package host

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

func TestOnBigStack(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"runs on a thread with the big stack", func(t *testing.T) {
			if threadStackSize() == 0 {
				t.Skip("this platform cannot tell a thread's stack size")
			}
			var got uintptr
			if err := onBigStack(func() { got = threadStackSize() }); err != nil {
				t.Fatal(err)
			}
			if got < threadStack {
				t.Fatalf("worker thread stack %d bytes, want at least %d", got, threadStack)
			}
		}},
		{"a nested call gets a thread of its own", func(t *testing.T) {
			if threadStackSize() == 0 {
				t.Skip("this platform cannot tell a thread's stack size")
			}
			var outer, inner, outerID, innerID uintptr
			err := onBigStack(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				outer, outerID = threadStackSize(), threadID()
				if err := onBigStack(func() { inner, innerID = threadStackSize(), threadID() }); err != nil {
					t.Error(err)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if outer < threadStack || inner < threadStack {
				t.Fatalf("stacks %d and %d, want at least %d each", outer, inner, threadStack)
			}
			if outerID == innerID {
				t.Fatal("the nested call ran on its caller's thread")
			}
		}},
		{"a worker gives back deep stack pages after a job", func(t *testing.T) {
			var before, after int
			var worker uintptr
			if err := onBigStack(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				worker = threadID()
				stackTouch(8 << 20)
				before = stackResident(2<<20, 6<<20)
			}); err != nil {
				t.Fatal(err)
			}
			if before < 0 {
				t.Skip("this platform cannot tell which stack pages are resident")
			}
			// The same idle worker takes the next job (the others are idle
			// too, so try until it does).
			for i := 0; i < 100 && after == 0; i++ {
				if err := onBigStack(func() {
					if threadID() == worker {
						after = stackResident(2<<20, 6<<20) + 1
					}
				}); err != nil {
					t.Fatal(err)
				}
			}
			if after == 0 {
				t.Skip("the worker did not come round again")
			}
			if before < 900 || after-1 > 16 {
				t.Fatalf("resident pages 2-6 MiB down the stack: %d in the job, %d after it; want ~1024 then ~0", before, after-1)
			}
		}},
		{"a panic comes back to the caller", func(t *testing.T) {
			defer func() {
				if p := recover(); p != "boom" {
					t.Fatalf("recovered %v, want boom", p)
				}
			}()
			_ = onBigStack(func() { panic("boom") })
			t.Fatal("onBigStack returned after a panic")
		}},
		{"many at once all finish", func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			done := 0
			for i := 0; i < 32; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := onBigStack(func() {
						mu.Lock()
						done++
						mu.Unlock()
					}); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if done != 32 {
				t.Fatalf("%d of 32 jobs ran", done)
			}
		}},
		{"the next job waits for the last one's follow-up on the same worker", func(t *testing.T) {
			release := make(chan struct{})
			var order []string
			var mu sync.Mutex
			note := func(s string) {
				mu.Lock()
				order = append(order, s)
				mu.Unlock()
			}
			idleMu.Lock()
			idleBefore := len(idleWorkers)
			idleMu.Unlock()
			firstDone := make(chan uintptr, 1)
			if _, err := goOnBigStack(func() func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				note("job 1")
				firstDone <- threadID()
				return func() {
					<-release
					note("after 1")
				}
			}); err != nil {
				t.Fatal(err)
			}
			first := <-firstDone
			// Wait for the worker to be back on the idle list (it goes
			// there once its job has returned, before its follow-up).
			for {
				idleMu.Lock()
				n := len(idleWorkers)
				idleMu.Unlock()
				if n >= max(idleBefore, 1) {
					break
				}
				runtime.Gosched()
			}
			// The worker is idle (its follow-up still running): it takes
			// the next job, once the follow-up has returned.
			secondDone := make(chan uintptr, 1)
			if _, err := goOnBigStack(func() func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				note("job 2")
				secondDone <- threadID()
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			close(release)
			second := <-secondDone
			mu.Lock()
			defer mu.Unlock()
			if len(order) != 3 || order[1] != "after 1" || order[2] != "job 2" {
				t.Fatalf("order %v, want job 1, after 1, job 2", order)
			}
			if first != second {
				t.Fatal("the second job went to another thread while the first one's worker was idle")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

func TestSpinBudget(t *testing.T) {
	b := spinBudget{max: 2}
	if !b.start() || !b.start() {
		t.Fatal("two spinners refused with a budget of two")
	}
	if b.start() {
		t.Fatal("a third spinner allowed with a budget of two")
	}
	b.stop()
	if !b.start() {
		t.Fatal("no spinner allowed after one stopped")
	}
	one := spinBudget{max: 0} // one processor: nobody spins
	if one.start() {
		t.Fatal("a spinner allowed with a budget of zero")
	}
	if got, want := spinners.limit(), int32(runtime.GOMAXPROCS(0)-1); got != want {
		t.Fatalf("the process's budget is %d spinners, want GOMAXPROCS-1 = %d", got, want)
	}
}

// TestPanicPreparingTheSpareIsSurvived: a panic in a run's follow-up (the
// reset of its instance, on the worker thread, after the result is out)
// neither ends the process nor leaves a broken spare for the next run.
func TestPanicPreparingTheSpareIsSurvived(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	spareHook = func() { panic("injected fault") }
	res := run(t, sb, "echo one", nil)
	sb.spareMu.Lock() // the follow-up has ended once the lock is free
	sb.spareMu.Unlock()
	spareHook = nil
	if res.Stdout != "one\n" {
		t.Fatalf("first run: %+v", res)
	}
	if sb.spare != nil {
		t.Fatal("a spare survived the fault in making it")
	}
	for i := 0; i < 3; i++ {
		if res := run(t, sb, "echo again", nil); res.Stdout != "again\n" || res.ErrorKind != "" {
			t.Fatalf("run %d after the fault: %+v", i, res)
		}
	}
}

// TestWorkersAreBounded: runs beyond the bound of worker threads wait for
// a worker instead of starting threads; nested processes still get theirs
// (a parent holds its worker), so nothing deadlocks.
func TestWorkersAreBounded(t *testing.T) {
	idleMu.Lock()
	base := workers
	idleMu.Unlock()
	SetMaxWorkers(base + 1)
	defer SetMaxWorkers(DefaultMaxWorkers)
	const runs = 4
	sbs := make([]*Sandbox, runs)
	for i := range sbs {
		sbs[i] = newTestSandbox(t, Limits{}, nil)
	}
	var wg sync.WaitGroup
	results := make([]string, runs)
	for i := range sbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code := "sleep 100"
			if i%2 == 0 {
				code = "spawn sleep 100"
			}
			r, err := sbs[i].Start("shell", code, "", false, false)
			if err != nil {
				t.Error(err)
				return
			}
			res := r.Result()
			results[i] = res.Stdout + res.Error
		}(i)
	}
	wg.Wait()
	for i, out := range results {
		if !strings.Contains(out, "slept") {
			t.Fatalf("run %d: %q", i, out)
		}
	}
	idleMu.Lock()
	got := workers
	idleMu.Unlock()
	// One worker for runs beyond those that existed, plus one per nested
	// process at most.
	if got > base+1+runs/2 {
		t.Fatalf("%d worker threads after %d concurrent runs (had %d, bound %d)", got, runs, base, base+1)
	}
}

// TestRunsWaitingOnPythonLeaveTheirSlots: runs blocked on a tool whose
// handler runs a script in another sandbox (from the script's own process
// or a child's) do not hold the slots that script needs: every slot is
// taken by such a run here, and the scripts still run. A run waiting for
// a slot ends at its deadline, counted from its Start, or when cancelled.
func TestRunsWaitingOnPythonLeaveTheirSlots(t *testing.T) {
	idleMu.Lock()
	base := computing
	idleMu.Unlock()
	const runs = 3
	SetMaxWorkers(base + runs)
	defer SetMaxWorkers(DefaultMaxWorkers)
	outer := make([]*Sandbox, runs)
	inner := make([]*Sandbox, runs)
	for i := range outer {
		outer[i] = newTestSandbox(t, Limits{Timeout: 5 * time.Second}, nil)
		inner[i] = newTestSandbox(t, Limits{Timeout: 5 * time.Second}, nil)
	}
	var allBlocked sync.WaitGroup
	allBlocked.Add(runs)
	results := make([]chan wire.Result, runs)
	for i := range outer {
		results[i] = make(chan wire.Result, 1)
		code := `call mcp:nested {}`
		if i%2 == 1 {
			code = `spawn call mcp:nested {}` // a child process waits on Python
		}
		r, err := outer[i].Start("shell", code, "", false, false)
		if err != nil {
			t.Fatal(err)
		}
		go func(i int, r *Run) {
			results[i] <- drive(t, r, func(wire.Event) (string, error) {
				allBlocked.Done()
				allBlocked.Wait() // every slot is held by a run waiting here
				in, err := inner[i].Start("shell", "echo inner", "", false, false)
				if err != nil {
					return "", err
				}
				res := in.Result()
				if res.Stdout != "inner\n" {
					return "", fmt.Errorf("inner run: %+v", res)
				}
				return `"nested ok"`, nil
			})
		}(i, r)
	}
	for i := range outer {
		select {
		case res := <-results[i]:
			if res.ErrorKind != "" || !strings.Contains(res.Stdout, "nested ok") {
				t.Fatalf("run %d: %+v", i, res)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("run %d did not finish: runs waiting on Python hold the slots their handlers' scripts need", i)
		}
	}

	// With every slot computing, a queued run ends at its deadline, counted
	// from its Start, although no worker ever took it.
	SetMaxWorkers(base + 1)
	busy := newTestSandbox(t, Limits{Timeout: 2 * time.Second}, nil)
	spin, err := busy.Start("shell", "spin", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	waiter := newTestSandbox(t, Limits{Timeout: 200 * time.Millisecond}, nil)
	started := time.Now()
	w, err := waiter.Start("shell", "echo never", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	res := w.Result()
	if took := time.Since(started); res.ErrorKind != wire.ErrKindTimeout || took > time.Second {
		t.Fatalf("queued run: %+v after %v, want a timeout after 200ms", res, took)
	}
	// Cancel ends a queued run at once.
	other, err := newTestSandbox(t, Limits{}, nil).Start("shell", "echo never", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	other.Cancel()
	if res := other.Result(); res.ErrorKind != wire.ErrKindCancelled {
		t.Fatalf("cancelled queued run: %+v", res)
	}
	spin.Cancel()
	spin.WaitDone()
}
