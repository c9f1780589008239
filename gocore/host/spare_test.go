package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/gocore/workerpool"
)

// spareOf waits for the run that just ended to leave a spare (it is made
// after the result is out) and returns its language ("" if none came).
func spareOf(sb *Sandbox) string {
	for i := 0; i < 200; i++ {
		sb.spareMu.Lock()
		sp := sb.spare
		sb.spareMu.Unlock()
		if sp != nil {
			return sp.language
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ""
}

func TestSpareInstance(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a finished run leaves a spare of its language, the next run takes it", func(t *testing.T) {
			sb := newTestSandbox(t, Limits{}, nil)
			if res := run(t, sb, "echo one", nil); res.Stdout != "one\n" {
				t.Fatalf("first run: %+v", res)
			}
			if got := spareOf(sb); got != "shell" {
				t.Fatalf("spare after a shell run: %q, want shell", got)
			}
			first := sb.spare
			if res := run(t, sb, "echo two", nil); res.Stdout != "two\n" || res.ExitCode != 0 {
				t.Fatalf("second run: %+v", res)
			}
			spareOf(sb)
			if sb.spare == first {
				t.Fatal("the second run's spare is the first one: it was not taken")
			}
		}},
		{"a run after a memory-limit failure starts clean", func(t *testing.T) {
			sb := newTestSandbox(t, Limits{MemoryLimit: 64 << 20}, nil)
			if res := run(t, sb, "alloc", nil); res.ErrorKind != wire.ErrKindMemory {
				t.Fatalf("alloc: %+v", res)
			}
			spareOf(sb)
			if res := run(t, sb, "echo ok", nil); res.Stdout != "ok\n" || res.ExitCode != 0 {
				t.Fatalf("run after the limit: %+v", res)
			}
		}},
		{"close drops the spare and removes the directory", func(t *testing.T) {
			sb := newTestSandbox(t, Limits{}, nil)
			run(t, sb, "echo one", nil)
			if spareOf(sb) == "" {
				t.Fatal("no spare after a run")
			}
			if err := sb.Close(); err != nil {
				t.Fatal(err)
			}
			if sb.spare != nil {
				t.Fatal("Close left the spare")
			}
			if _, err := os.Stat(sb.base); !os.IsNotExist(err) {
				t.Fatalf("the sandbox directory is still there after Close: %v", err)
			}
		}},
		{"a closed sandbox makes no spare", func(t *testing.T) {
			sb := newTestSandbox(t, Limits{}, nil)
			r, err := sb.Start("shell", "echo one", "", false, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := sb.Close(); err != nil {
				t.Fatal(err)
			}
			r.WaitDone()
			time.Sleep(50 * time.Millisecond)
			sb.spareMu.Lock()
			defer sb.spareMu.Unlock()
			if sb.spare != nil {
				t.Fatal("a spare was made for a closed sandbox")
			}
			if _, err := os.Stat(sb.base); !os.IsNotExist(err) {
				t.Fatalf("the sandbox directory came back after Close: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// Compiling a guest on a run's first use of it does not count against the
// run's timeout.
func TestCompileIsNotRunTime(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "fresh.cwasm") // not loaded yet: compiled on first use
	sb, err := NewSandbox(nil, Config{
		Limits:  Limits{Timeout: 500 * time.Millisecond},
		Sources: map[string]GuestSource{wire.LangShell: {WasmPath: testGuest.WasmPath, CachePath: cache}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	start := time.Now()
	res := run(t, sb, "echo compiled", nil)
	if res.Stdout != "compiled\n" || res.ErrorKind != "" {
		t.Fatalf("first run (compiling took part of %s): %+v", time.Since(start), res)
	}
	if time.Since(start) < 500*time.Millisecond {
		t.Logf("compiling took under the timeout (%s); the test proves little on this machine", time.Since(start))
	}
}

// TestIdleSparesAreReleased: at most the bound of sandboxes keep a spare,
// the ones used last; a spare unused for the idle time goes; a sandbox
// whose spare went still runs.
func TestIdleSparesAreReleased(t *testing.T) {
	workerpool.SetSpareBounds(2, time.Hour)
	defer workerpool.SetSpareBounds(workerpool.DefaultMaxSpares, workerpool.DefaultSpareIdle)
	sbs := make([]*Sandbox, 4)
	for i := range sbs {
		sbs[i] = newTestSandbox(t, Limits{}, nil)
		if res := run(t, sbs[i], "echo x", nil); res.Stdout != "x\n" {
			t.Fatalf("run %d: %+v", i, res)
		}
		spareOf(sbs[i])
	}
	has := func(sb *Sandbox) bool {
		sb.spareMu.Lock()
		defer sb.spareMu.Unlock()
		return sb.spare != nil
	}
	for i, want := range []bool{false, false, true, true} {
		if has(sbs[i]) != want {
			t.Fatalf("sandbox %d has a spare: %v, want %v", i, has(sbs[i]), want)
		}
	}
	if res := run(t, sbs[0], "echo back", nil); res.Stdout != "back\n" {
		t.Fatalf("a sandbox whose spare was released: %+v", res)
	}
	spareOf(sbs[0])
	if !has(sbs[0]) || has(sbs[2]) {
		t.Fatal("the sandbox used last did not get the spare of the one used least recently")
	}
	workerpool.SetSpareBounds(2, 50*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for (has(sbs[0]) || has(sbs[3])) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if has(sbs[0]) || has(sbs[3]) {
		t.Fatal("idle spares were kept past the idle time")
	}
	if res := run(t, sbs[3], "echo still", nil); res.Stdout != "still\n" {
		t.Fatalf("after its spare idled out: %+v", res)
	}
}
