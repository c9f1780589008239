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
// measure after the run, which the next run reports; the files are kept.
func TestDiskQuotaWrites(t *testing.T) {
	cases := []struct {
		name, code string
		want       string // in the run's stdout
		bypass     bool   // the next run must say the files are over the quota
	}{
		{"asks", "qfill /workspace/f", "No space left on device", false},
		{"within", "write /workspace/small hello", "", false},
		{"bypass write", "fill /workspace/f", "wrote 16777216", true},
		{"bypass truncate", "truncate /workspace/t 100000000", "truncated", true},
	}
	const quota = 1 << 20
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := newTestSandbox(t, Limits{DiskQuota: quota}, nil)
			res := run(t, sb, c.code, nil)
			if res.ErrorKind != "" || !strings.Contains(res.Stdout, c.want) {
				t.Fatalf("got %+v, want %q", res, c.want)
			}
			if !c.bypass {
				if used := diskUsage(sb.Root()); used > quota {
					t.Fatalf("the files take %d bytes under a quota of %d", used, quota)
				}
				return
			}
			waitFound(t, sb)
			next := run(t, sb, "echo next", nil)
			if !strings.Contains(next.Stderr, "Disk quota exceeded") || !strings.Contains(next.Stderr, "found after the previous run") {
				t.Fatalf("the next run does not say the files are over the quota: %+v", next)
			}
			if res := run(t, sb, "qfill /workspace/more", nil); !strings.Contains(res.Stdout, "No space left on device") {
				t.Fatalf("a write after the excess was found: %+v", res)
			}
		})
	}
}

// waitFound waits for the measure after a run to note an excess.
func waitFound(t *testing.T, sb *Sandbox) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		sb.disk.mu.Lock()
		found := sb.disk.found != ""
		sb.disk.mu.Unlock()
		if found {
			return
		}
	}
	t.Fatal("the measure after the run found nothing over the quota")
}

// TestDiskCheckAfterRun: when the files are over the quota after a run
// that asked for room (here: put there by the host, standing in for a
// write the guest did not ask for), that run fails and says so; the files
// are kept.
func TestDiskCheckAfterRun(t *testing.T) {
	sb := newTestSandbox(t, Limits{DiskQuota: 256 << 10}, nil)
	if res := run(t, sb, "echo quiet", nil); res.ErrorKind != "" {
		t.Fatalf("a run that writes nothing: %+v", res)
	}
	big := filepath.Join(sb.Root(), "workspace", "big")
	if err := os.WriteFile(big, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	res := run(t, sb, "qfill /workspace/x", nil)
	if res.ErrorKind != wire.ErrKindRuntime || !strings.Contains(res.Error, "Disk quota exceeded") || !strings.Contains(res.Error, "disk_quota=262144") {
		t.Fatalf("got %+v", res)
	}
	if _, err := os.Stat(big); err != nil {
		t.Fatalf("the file over the quota was removed: %v", err)
	}
	os.Remove(big)
	if res := run(t, sb, "qfill /workspace/x", nil); res.ErrorKind != "" {
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
	sb := newTestSandbox(t, Limits{MemoryLimit: 16 << 20, Timeout: 2 * time.Minute}, nil)
	r, err := sb.Start("shell", "bigcalls 16 1024", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	// Answer nothing until the script waits, so every request it made is
	// outstanding at once.
	var held []int64
	deadline := time.Now().Add(2 * time.Minute)
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
	if !strings.Contains(res.Stdout, "Tool request refused") || !strings.Contains(res.Stdout, "memory_limit=16777216") {
		t.Fatalf("got %+v", res)
	}
	var ok int
	if _, err := fmtSscanOK(res.Stdout, &ok); err != nil || ok < 1 || ok > 12 {
		t.Fatalf("%d requests of 1 MiB were granted under 16 MiB: %q", ok, res.Stdout)
	}
}

func fmtSscanOK(s string, ok *int) (int, error) {
	return fmt.Sscanf(s, "ok=%d", ok)
}

// TestMemoryLimitBelowTheGuestsOwnMemory: a memory limit under the memory
// a guest starts with fails the run with an error naming memory_limit and
// the size needed, not the engine's page count.
func TestMemoryLimitBelowTheGuestsOwnMemory(t *testing.T) {
	min := testGuest.initialMemory()
	if min <= 1<<20 {
		t.Fatalf("the test guest starts with %d bytes of memory: too little to test", min)
	}
	sb := newTestSandbox(t, Limits{MemoryLimit: 1 << 20}, nil)
	res := run(t, sb, "echo x", nil)
	want := fmt.Sprintf("memory_limit is 1 MiB, below the %s of memory the shell guest", mib(min))
	if !strings.Contains(res.Error, want) || res.Stdout != "" {
		t.Fatalf("error %q, want it to contain %q (%+v)", res.Error, want, res)
	}
}
