//go:build unix

package decl

import (
	"syscall"
	"testing"
	"time"
)

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRender100Budget fails when rendering the declarations of 100 tools
// in both languages costs more than the 10 ms. It counts the
// process's CPU time (garbage collection included), not the wall clock,
// so that other work on a shared machine does not decide it.
func TestRender100Budget(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	tools := loadTools(t, "github")[:100]
	NewSet(tools).Python() // warm up
	const runs = 50
	start := cpuTime(t)
	for i := 0; i < runs; i++ {
		s := NewSet(tools)
		_ = s.TypeScript()
		_ = s.Python()
	}
	per := (cpuTime(t) - start) / runs
	t.Logf("rendering 100 tools (TypeScript and Python): %v of CPU time each", per)
	if per > 10*time.Millisecond {
		t.Errorf("rendering 100 tools took %v of CPU time, more than 10 ms", per)
	}
}
