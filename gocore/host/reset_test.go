package host

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

func newSnapSandbox(t *testing.T, lim Limits) *Sandbox {
	t.Helper()
	sb, err := NewSandbox(testSnapGuest, Config{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// spareAfter waits for the spare the last run leaves and returns it.
func spareAfter(t *testing.T, sb *Sandbox) *instance {
	t.Helper()
	if spareOf(sb) == "" {
		t.Fatal("no spare after the run")
	}
	sb.spareMu.Lock()
	defer sb.spareMu.Unlock()
	return sb.spare
}

func TestResetInstance(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("instances are reset only where the kernel reports changed pages (Linux)")
	}
	if !testSnapGuest.resettable {
		t.Fatal("a snapshot guest is not resettable: it exports no reset globals")
	}
	if testGuest.resettable {
		t.Fatal("a command guest claims to be resettable")
	}
	tests := []struct {
		name string
		run  func(t *testing.T, sb *Sandbox)
	}{
		{"the used instance is reset and taken by the next run", func(t *testing.T, sb *Sandbox) {
			run(t, sb, "echo one", nil)
			first := spareAfter(t, sb)
			for i := 0; i < 3; i++ {
				if res := run(t, sb, "echo again", nil); res.Stdout != "again\n" || res.ExitCode != 0 {
					t.Fatalf("run %d: %+v", i, res)
				}
				if sp := spareAfter(t, sb); sp != first {
					t.Fatalf("run %d left a new instance: the used one was not reset", i)
				}
			}
		}},
		{"a run's variables do not reach the next run", func(t *testing.T, sb *Sandbox) {
			for i := 0; i < 4; i++ {
				if res := run(t, sb, "counter", nil); res.Stdout != "1\n" {
					t.Fatalf("run %d: counter printed %q, want 1 (state from an earlier run)", i, res.Stdout)
				}
				spareAfter(t, sb)
			}
		}},
		{"files a run left open are closed for the next", func(t *testing.T, sb *Sandbox) {
			var fds []string
			for i := 0; i < 3; i++ {
				res := run(t, sb, "keepopen /workspace/f", nil)
				if strings.HasPrefix(res.Stdout, "error") || res.ExitCode != 0 {
					t.Fatalf("run %d: %+v", i, res)
				}
				fds = append(fds, res.Stdout)
				spareAfter(t, sb)
			}
			if fds[0] != fds[1] || fds[1] != fds[2] {
				t.Fatalf("descriptors %q: a later run saw the files of an earlier one", fds)
			}
		}},
		{"after a reset the memory and globals are the pristine instance's", func(t *testing.T, sb *Sandbox) {
			run(t, sb, "counter", nil)
			run(t, sb, "write /workspace/x some-text", nil)
			sp := spareAfter(t, sb)
			pr := testSnapGuest.pristineState()
			if pr == nil {
				t.Fatal("no pristine instance")
			}
			if got := sp.mem.UnsafeData(sp.store); !bytes.Equal(got, pr.mem) {
				diff := 0
				for i := range got {
					if i < len(pr.mem) && got[i] != pr.mem[i] {
						diff++
					}
				}
				t.Fatalf("reset memory differs from the pristine memory in %d bytes (sizes %d, %d)", diff, len(got), len(pr.mem))
			}
			for i, g := range sp.resetGlobals {
				if got, want := g.Get(sp.store), pr.globals[i]; got.Get() != want.Get() {
					t.Errorf("global %d = %v after the reset, want %v", i, got.Get(), want.Get())
				}
			}
		}},
		{"a shed spare keeps no image pages and still holds the pristine memory", func(t *testing.T, sb *Sandbox) {
			run(t, sb, "counter", nil)
			sp := spareAfter(t, sb)
			sb.spareMu.Lock()
			mem := sp.mem.UnsafeData(sp.store)
			before, ok := mappedImagePages(mem)
			if !ok || len(before) == 0 {
				sb.spareMu.Unlock()
				t.Fatalf("no image pages found before shedding (ok %v): the memory is not mapped from an image", ok)
			}
			spareHolder{sb}.ShedSpare()
			after, ok := mappedImagePages(mem)
			equal := bytes.Equal(mem, testSnapGuest.pristineState().mem)
			sb.spareMu.Unlock()
			if !ok || len(after) != 0 {
				t.Fatalf("after shedding, %d ranges of image pages are still mapped (ok %v)", len(after), ok)
			}
			if !equal {
				t.Fatal("shedding changed the spare's memory")
			}
			if res := run(t, sb, "counter", nil); res.Stdout != "1\n" {
				t.Fatalf("counter after shedding: %q", res.Stdout)
			}
		}},
		{"a run that grew its memory leaves a fresh instance", func(t *testing.T, sb *Sandbox) {
			run(t, sb, "echo one", nil)
			first := spareAfter(t, sb)
			if res := run(t, sb, "grow", nil); res.Stdout != "grown\n" {
				t.Fatalf("grow: %+v", res)
			}
			sp := spareAfter(t, sb)
			if sp == first {
				t.Fatal("an instance whose memory grew was reused")
			}
			if got, want := len(sp.mem.UnsafeData(sp.store)), len(testSnapGuest.pristineState().mem); got != want {
				t.Fatalf("the new spare has %d bytes of memory, want the snapshot's %d", got, want)
			}
			if res := run(t, sb, "counter", nil); res.Stdout != "1\n" {
				t.Fatalf("counter after grow: %q", res.Stdout)
			}
		}},
		{"a run stopped by its timeout leaves a fresh instance", func(t *testing.T, sb *Sandbox) {
			run(t, sb, "echo one", nil)
			first := spareAfter(t, sb)
			if res := run(t, sb, "spin", nil); res.ErrorKind != wire.ErrKindTimeout {
				t.Fatalf("spin: %+v", res)
			}
			if spareAfter(t, sb) == first {
				t.Fatal("an instance stopped in the middle of its run was reused")
			}
			if res := run(t, sb, "counter", nil); res.Stdout != "1\n" {
				t.Fatalf("counter after the timeout: %q", res.Stdout)
			}
		}},
		{"a run that exited through proc_exit leaves a fresh instance", func(t *testing.T, sb *Sandbox) {
			run(t, sb, "echo one", nil)
			first := spareAfter(t, sb)
			if res := run(t, sb, "exit", nil); res.ExitCode != 7 {
				t.Fatalf("exit: %+v", res)
			}
			if spareAfter(t, sb) == first {
				t.Fatal("an instance that ended in proc_exit was reused")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newSnapSandbox(t, Limits{Timeout: 2 * time.Second}))
		})
	}
}
