package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

// TestGoOutOfMemoryFarFromLimit: a Go guest whose runtime cannot grow its
// heap for one large block ran out of memory, though it holds far less
// than the limit; it ends as a memory error naming the limit, without the
// runtime's dump, and the sandbox stays usable.
func TestGoOutOfMemoryFarFromLimit(t *testing.T) {
	sb := newTestSandbox(t, Limits{MemoryLimit: 64 << 20}, nil)
	res := run(t, sb, "bigalloc 80", nil)
	if res.ErrorKind != wire.ErrKindMemory || !strings.Contains(res.Error, "memory_limit=67108864") {
		t.Fatalf("got %+v", res)
	}
	if res.PeakMemoryBytes >= 56<<20 {
		t.Fatalf("peak %d: the guest was near the limit, so this does not test the far case", res.PeakMemoryBytes)
	}
	if strings.Contains(res.Stderr+res.Error, "goroutine") {
		t.Fatalf("runtime dump leaked: %+v", res)
	}
	if res := run(t, sb, "bigalloc 8", nil); res.ErrorKind != "" || res.Stdout != "allocated 8\n" {
		t.Fatalf("after the out-of-memory run: %+v", res)
	}
}

func TestGoOutOfMemoryLog(t *testing.T) {
	cases := []struct {
		name, log string
		want      bool
	}{
		{"grow failed", "runtime: out of memory: cannot allocate 83886080-byte block (4194304 in use)\nfatal error: out of memory\n\ngoroutine 1 [running]:\n", true},
		{"stack", "fatal error: out of memory (stackalloc)\n", true},
		{"runtime prefix", "fatal error: runtime: out of memory\n", true},
		{"other fatal error", "fatal error: all goroutines are asleep - deadlock!\n", false},
		{"panic naming memory", "panic: out of memory\n", false},
		{"not at line start", "echo fatal error: out of memory\n", false},
		{"empty", "", false},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.WriteFile(p, []byte(c.log), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := goOutOfMemory(p); got != c.want {
				t.Fatalf("goOutOfMemory(%q) = %v, want %v", c.log, got, c.want)
			}
		})
	}
	if goOutOfMemory(filepath.Join(dir, "missing")) {
		t.Fatal("a missing log said out of memory")
	}
}
