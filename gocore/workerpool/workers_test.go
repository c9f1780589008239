package workerpool

import (
	"runtime"
	"sync"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"runs on a thread with the big stack", func(t *testing.T) {
			if threadStackSize() == 0 {
				t.Skip("this platform cannot tell a thread's stack size")
			}
			var got uintptr
			if err := Run(func() { got = threadStackSize() }); err != nil {
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
			err := Run(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				outer, outerID = threadStackSize(), threadID()
				if err := Run(func() { inner, innerID = threadStackSize(), threadID() }); err != nil {
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
			if err := Run(func() {
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
				if err := Run(func() {
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
			_ = Run(func() { panic("boom") })
			t.Fatal("Run returned after a panic")
		}},
		{"many at once all finish", func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			done := 0
			for i := 0; i < 32; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := Run(func() {
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
			if _, err := Go(func() func() {
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
			if _, err := Go(func() func() {
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
