package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

// TestDiskQuotaWrites: a guest that asks the quota before writing is
// refused at it; one that writes through WASI without asking (standing
// in for a guest library that opens files itself) is caught by the host's
// measure after the run, which fails the run and keeps the files.
func TestDiskQuotaWrites(t *testing.T) {
	cases := []struct {
		name, code string
		kind, want string // the run's error kind; in stdout or the error
	}{
		{"asks", "qfill /workspace/f", "", "No space left on device"},
		{"within", "write /workspace/small hello", "", ""},
		{"bypass write", "fill /workspace/f", wire.ErrKindRuntime, "Disk quota exceeded"},
		{"bypass truncate", "truncate /workspace/t 100000000", wire.ErrKindRuntime, "Disk quota exceeded"},
	}
	const quota = 1 << 20
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := newTestSandbox(t, Limits{DiskQuota: quota}, nil)
			res := run(t, sb, c.code, nil)
			if res.ErrorKind != c.kind || !strings.Contains(res.Stdout+res.Error, c.want) {
				t.Fatalf("got %+v, want %q", res, c.want)
			}
			if used := diskUsage(sb.Root()); c.kind == "" && used > quota {
				t.Fatalf("the files take %d bytes under a quota of %d", used, quota)
			}
		})
	}
}

// TestDiskCheckAfterRun: when the files are over the quota after a run
// that wrote (here: put there by the host, standing in for a write the
// gates missed), the run fails and says so; the files are kept.
func TestDiskCheckAfterRun(t *testing.T) {
	sb := newTestSandbox(t, Limits{DiskQuota: 256 << 10}, nil)
	if res := run(t, sb, "echo quiet", nil); res.ErrorKind != "" {
		t.Fatalf("a run that writes nothing: %+v", res)
	}
	big := filepath.Join(sb.Root(), "workspace", "big")
	if err := os.WriteFile(big, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	res := run(t, sb, "write /workspace/x hi", nil)
	if res.ErrorKind != wire.ErrKindRuntime || !strings.Contains(res.Error, "Disk quota exceeded") || !strings.Contains(res.Error, "disk_quota=262144") {
		t.Fatalf("got %+v", res)
	}
	if _, err := os.Stat(big); err != nil {
		t.Fatalf("the file over the quota was removed: %v", err)
	}
	os.Remove(big)
	if res := run(t, sb, "write /workspace/x hi", nil); res.ErrorKind != "" {
		t.Fatalf("after the file went: %+v", res)
	}
}

// TestNestedMemory: a run's processes share memory_limit.
func TestNestedMemory(t *testing.T) {
	cases := []struct {
		name, code string
		limit      int64
		kind       string // the run's error kind
		want       string // in stdout or error
	}{
		{"three fit", "holdspawn 40 holdspawn 40 holdspawn 40 echo deep", 256 << 20, "", "deep"},
		{"grandchild refused", "holdspawn 40 holdspawn 40 echo deep", 96 << 20, "", "a child process needs at least"},
		{"child over", "holdspawn 40 alloc", 96 << 20, wire.ErrKindMemory, "together needed more than memory_limit=100663296"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := newTestSandbox(t, Limits{MemoryLimit: c.limit}, nil)
			res := run(t, sb, c.code, nil)
			if res.ErrorKind != c.kind || !strings.Contains(res.Stdout+res.Error, c.want) {
				t.Fatalf("got %+v", res)
			}
			if res.PeakMemoryBytes > c.limit {
				t.Fatalf("peak %d over the limit %d", res.PeakMemoryBytes, c.limit)
			}
			if c.name == "three fit" && res.PeakMemoryBytes < 120<<20 {
				t.Fatalf("peak %d does not count the three processes", res.PeakMemoryBytes)
			}
		})
	}
}

// TestOutstandingRequests: params of requests not yet answered are
// charged against memory_limit; past it a request is refused, and the
// script hears why.
func TestOutstandingRequests(t *testing.T) {
	sb := newTestSandbox(t, Limits{MemoryLimit: 64 << 20}, nil)
	r, err := sb.Start("shell", "bigcalls 40 8192", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	// Answer nothing until the script waits, so every request it made is
	// outstanding at once.
	var held []int64
	deadline := time.Now().Add(20 * time.Second)
	var res wire.Result
	for time.Now().Before(deadline) {
		ev := r.Step(time.Second, true)
		if ev.Kind == wire.EventRequest {
			held = append(held, ev.ID)
			continue
		}
		if ev.Kind == wire.EventWaiting {
			for _, id := range held {
				r.Resume(id, "true")
			}
			held = nil
			continue
		}
		if ev.Kind == wire.EventDone {
			res = *ev.Result
			break
		}
	}
	if !strings.Contains(res.Stdout, "Tool request refused") || !strings.Contains(res.Stdout, "memory_limit=67108864") {
		t.Fatalf("got %+v", res)
	}
	var ok int
	if _, err := fmtSscanOK(res.Stdout, &ok); err != nil || ok < 1 || ok > 7 {
		t.Fatalf("%d requests of 8 MiB were granted under 64 MiB: %q", ok, res.Stdout)
	}
}

func fmtSscanOK(s string, ok *int) (int, error) {
	return fmt.Sscanf(s, "ok=%d", ok)
}
