package host

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

var testGuest, testSnapGuest *GuestModule

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hosttest-")
	if err != nil {
		panic(err)
	}
	wasm := filepath.Join(dir, "testguest.wasm")
	cmd := exec.Command("go", "build", "-o", wasm, "./testdata/testguest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		panic(string(out))
	}
	testGuest, err = LoadGuest(wasm, filepath.Join(dir, "cache", "guest.cwasm"))
	if err != nil {
		panic(err)
	}
	// The same guest as a snapshot of its reactor build, as the package's
	// guests are shipped: instances of it are reset between runs.
	reactor := filepath.Join(dir, "testguest-reactor.wasm")
	cmd = exec.Command("go", "build", "-buildmode=c-shared", "-o", reactor, "./testdata/testguest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		panic(string(out))
	}
	raw, err := os.ReadFile(reactor)
	if err != nil {
		panic(err)
	}
	snap, err := SnapshotGuest(raw)
	if err != nil {
		panic(err)
	}
	snapPath := filepath.Join(dir, "testguest-snapshot.wasm")
	if err := os.WriteFile(snapPath, snap, 0o644); err != nil {
		panic(err)
	}
	testSnapGuest, err = LoadGuest(snapPath, filepath.Join(dir, "cache", "snapshot.cwasm"))
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type denyList map[string]string

func (d denyList) Authorize(method string, _ json.RawMessage) error {
	if msg, ok := d[method]; ok {
		return errors.New(msg)
	}
	return nil
}

func newTestSandbox(t *testing.T, lim Limits, auth Authorizer) *Sandbox {
	t.Helper()
	sb, err := NewSandbox(testGuest, Config{Limits: lim, Authorizer: auth})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// drive answers every request with answer(method, params) and returns the result.
func drive(t *testing.T, r *Run, answer func(wire.Event) (string, error)) wire.Result {
	t.Helper()
	for {
		ev := r.Step(time.Second, true)
		switch ev.Kind {
		case wire.EventDone:
			if ev.Result == nil {
				t.Fatal("done event without a result")
			}
			return *ev.Result
		case wire.EventRequest:
			res, err := answer(ev)
			if err != nil {
				r.ResumeError(ev.ID, wire.CodeInternal, err.Error())
			} else if err := r.Resume(ev.ID, res); err != nil {
				t.Fatal(err)
			}
		case wire.EventWaiting:
			t.Fatalf("script waits on %v, which drive answered already", ev.IDs)
		}
	}
}

func run(t *testing.T, sb *Sandbox, code string, answer func(wire.Event) (string, error)) wire.Result {
	t.Helper()
	r, err := sb.Start("shell", code, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	return drive(t, r, answer)
}

func TestOutputAndExit(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	res := run(t, sb, "echo héllo 🎉", nil)
	if res.Stdout != "héllo 🎉\n" || res.Stderr != "to stderr\n" || res.ExitCode != 0 || res.ErrorKind != "" {
		t.Fatalf("got %+v", res)
	}
	if res := run(t, sb, "exit", nil); res.ExitCode != 7 || res.ErrorKind != "" {
		t.Fatalf("exit: got %+v", res)
	}
	if res := run(t, sb, "exit200", nil); res.ExitCode != 200 || res.ErrorKind != "" {
		t.Fatalf("exit200: got %+v", res)
	}
}

func TestToolCalls(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, denyList{"mcp:secret": "No capability authorizes method 'mcp:secret'"})
	seen := 0
	answer := func(ev wire.Event) (string, error) {
		seen++
		if ev.Method == "mcp:fail" {
			return "", errors.New("boom")
		}
		return string(ev.Params), nil
	}
	cases := []struct{ code, want string }{
		{`call mcp:echo {"a":1}`, "ok {\"a\":1}\n"},
		{`call mcp:fail {}`, "err boom\n"},
		{`call mcp:secret {}`, "err No capability authorizes method 'mcp:secret'\n"},
	}
	for _, c := range cases {
		if res := run(t, sb, c.code, answer); res.Stdout != c.want {
			t.Errorf("%s: got %q want %q", c.code, res.Stdout, c.want)
		}
	}
	if seen != 2 {
		t.Errorf("python saw %d requests, want 2 (the denied one must never reach it)", seen)
	}
}

func TestBatchQueuedTogether(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	r, err := sb.Start("shell", "batch", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []wire.Event
	for len(reqs) < 10 {
		ev := r.Step(time.Second, true)
		if ev.Kind != wire.EventRequest {
			t.Fatalf("got %+v before all 10 requests", ev)
		}
		reqs = append(reqs, ev)
	}
	// All ten are handed out and the guest blocks: the run says so
	// instead of blocking the driver.
	if ev := r.Step(2*time.Second, true); ev.Kind != wire.EventWaiting || len(ev.IDs) != 10 {
		t.Fatalf("after taking 10 requests: %+v", ev)
	}
	for i := len(reqs) - 1; i >= 0; i-- { // answer in reverse
		r.Resume(reqs[i].ID, "null")
	}
	res := drive(t, r, nil)
	if len(res.ToolCalls) != 10 || strings.Count(res.Stdout, " ") != 10 {
		t.Fatalf("got %+v", res)
	}
}

func TestTimeoutThenUsable(t *testing.T) {
	sb := newTestSandbox(t, Limits{Timeout: 300 * time.Millisecond}, nil)
	start := time.Now()
	res := run(t, sb, "spin", nil)
	if res.ErrorKind != wire.ErrKindTimeout {
		t.Fatalf("got %+v", res)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("timeout took %s", d)
	}
	if res := run(t, sb, "echo again", nil); res.Stdout != "again\n" {
		t.Fatalf("after timeout: %+v", res)
	}
}

func TestTimeBlockedOnPythonDoesNotCount(t *testing.T) {
	sb := newTestSandbox(t, Limits{Timeout: 200 * time.Millisecond}, nil)
	res := run(t, sb, `call mcp:slow {}`, func(wire.Event) (string, error) {
		time.Sleep(500 * time.Millisecond)
		return `"late"`, nil
	})
	if res.ErrorKind != "" || res.Stdout != "ok \"late\"\n" {
		t.Fatalf("got %+v", res)
	}
}

func TestMemoryLimitThenUsable(t *testing.T) {
	sb := newTestSandbox(t, Limits{MemoryLimit: 64 << 20}, nil)
	res := run(t, sb, "alloc", nil)
	if res.ErrorKind != wire.ErrKindMemory {
		t.Fatalf("got %+v", res)
	}
	if strings.Contains(res.Stderr, "goroutine") {
		t.Fatalf("runtime trace leaked into stderr: %q", res.Stderr)
	}
	if res := run(t, sb, "echo again", nil); res.Stdout != "again\n" {
		t.Fatalf("after OOM: %+v", res)
	}
}

func TestFilesPersistAndConfined(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	run(t, sb, "write /workspace/a.txt kept", nil)
	if res := run(t, sb, "read /workspace/a.txt", nil); res.Stdout != "kept\n" {
		t.Fatalf("got %+v", res)
	}
	if res := run(t, sb, "write /etc.txt x", nil); !strings.Contains(res.Stdout, "error:") {
		t.Fatalf("write to read-only root: %+v", res)
	}
	if res := run(t, sb, "read /workspace/../../../../etc/passwd", nil); !strings.Contains(res.Stdout, "error:") {
		t.Fatalf("traversal: %+v", res)
	}
	other := newTestSandbox(t, Limits{}, nil)
	if res := run(t, other, "read /workspace/a.txt", nil); !strings.Contains(res.Stdout, "error:") {
		t.Fatalf("file leaked into another sandbox: %+v", res)
	}
	root := sb.Root()
	sb.Close()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("directory survived Close: %v", err)
	}
}

func TestOutputCapped(t *testing.T) {
	var c cappedBuffer
	c.max = 4
	c.Write([]byte("abcdef"))
	if got := c.String(); !strings.HasPrefix(got, "abcd\n[output truncated") {
		t.Fatalf("got %q", got)
	}
}

func TestCorruptCacheIsRecompiled(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "c.cwasm")
	os.WriteFile(cache, []byte("not a module"), 0o644)
	g, err := LoadGuest(testGuest.WasmPath, cache)
	if err != nil || g.FromCache {
		t.Fatalf("corrupt cache: %v fromCache=%v", err, g != nil && g.FromCache)
	}
	if st, err := os.Stat(cache); err != nil || st.Size() < 1000 {
		t.Fatalf("cache not rewritten: %v", err)
	}
}

func TestSleepCountsAgainstTimeout(t *testing.T) {
	sb := newTestSandbox(t, Limits{Timeout: 300 * time.Millisecond}, nil)
	start := time.Now()
	res := run(t, sb, "sleep 8000", nil)
	if res.ErrorKind != wire.ErrKindTimeout {
		t.Fatalf("got %+v", res)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a sleeping script outlived its timeout: %s", d)
	}
	roomy := newTestSandbox(t, Limits{Timeout: 10 * time.Second}, nil)
	if res := run(t, roomy, "sleep 10", nil); res.Stdout != "slept\n" || res.ErrorKind != "" {
		t.Fatalf("short sleep: %+v", res)
	}
}

func TestCancel(t *testing.T) {
	for _, code := range []string{"spin", "sleep 60000", `call mcp:never {}`} {
		t.Run(code, func(t *testing.T) {
			sb := newTestSandbox(t, Limits{}, nil)
			r, err := sb.Start("shell", code, "", false, false)
			if err != nil {
				t.Fatal(err)
			}
			if ev := r.Step(100*time.Millisecond, true); ev.Kind == wire.EventDone {
				t.Fatalf("ended early: %+v", ev)
			}
			start := time.Now()
			r.Cancel()
			res := r.Result()
			if d := time.Since(start); d > 200*time.Millisecond {
				t.Fatalf("cancel took %s", d)
			}
			if res.ErrorKind != wire.ErrKindCancelled {
				t.Fatalf("got %+v", res)
			}
			if res := run(t, sb, "echo again", nil); res.Stdout != "again\n" {
				t.Fatalf("after cancel: %+v", res)
			}
		})
	}
}

func TestCloseDuringSleepIsQuick(t *testing.T) {
	sb, err := NewSandbox(testGuest, Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sb.Start("shell", "sleep 60000", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Step(100*time.Millisecond, true)
	start := time.Now()
	sb.Close()
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Fatalf("close took %s", d)
	}
}

func TestStepReportsBusy(t *testing.T) {
	sb := newTestSandbox(t, Limits{Timeout: 500 * time.Millisecond}, nil)
	r, err := sb.Start("shell", "spin", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if ev := r.Step(20*time.Millisecond, true); ev.Kind != wire.EventBusy {
		t.Fatalf("got %+v", ev)
	}
	r.Cancel()
	r.WaitDone()
}

func TestPayloadRefusedBeforePython(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	cases := []struct{ params, want string }{
		{`{"\ud800":1}`, "err Invalid payload JSON: a lone surrogate"},
		{strings.Repeat("[", 600) + strings.Repeat("]", 600), "err Invalid payload JSON: nested more than 500"},
		{`{"n":` + strings.Repeat("7", 5000) + `}`, "err Invalid payload JSON: a number of 5000"},
	}
	for _, c := range cases {
		res := run(t, sb, "call mcp:echo "+c.params, func(wire.Event) (string, error) {
			t.Errorf("Python was handed %s", c.params[:20])
			return "null", nil
		})
		if !strings.HasPrefix(res.Stdout, c.want) {
			t.Errorf("%.20s: got %q want prefix %q", c.params, res.Stdout, c.want)
		}
		if len(res.ToolCalls) != 1 || len(res.ToolCalls[0].Params) > 400 || res.ToolCalls[0].Code != wire.CodeInvalidRequest {
			t.Errorf("%.20s: record %+v", c.params, res.ToolCalls)
		}
	}
}

func TestToolCallsPerRunCapped(t *testing.T) {
	sb := newTestSandbox(t, Limits{MaxToolCalls: 3}, nil)
	r, err := sb.Start("shell", "batch", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	res := drive(t, r, func(wire.Event) (string, error) { return "null", nil })
	if res.ErrorKind != wire.ErrKindRuntime || res.Error != "Execution exceeded maximum steps (3)" {
		t.Fatalf("got %+v", res)
	}
}

type panicky struct{}

func (panicky) Authorize(string, json.RawMessage) error { panic("bug in the authorizer") }

func TestHostFunctionPanicEndsRunNotProcess(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, panicky{})
	res := run(t, sb, `call mcp:x {}`, nil)
	if res.ErrorKind != wire.ErrKindRuntime || !strings.Contains(res.Error, "tool_submit") || !strings.Contains(res.Error, "bug in the authorizer") {
		t.Fatalf("got %+v", res)
	}
	if strings.Contains(res.Error, "\n") {
		t.Fatalf("error carries a backtrace: %q", res.Error)
	}
}

func TestSpawnChildProcess(t *testing.T) {
	sb := newTestSandbox(t, Limits{}, nil)
	res := run(t, sb, "spawn echo from-child", nil)
	if res.Stdout != "child exit=0 out=\"from-child\\n\" err=\"to stderr\\n\" error=\"\"\n" {
		t.Fatalf("got %q", res.Stdout)
	}
	res = run(t, sb, "nest 0", nil)
	if !strings.Contains(res.Stdout, "nesting limit reached") || res.ExitCode != 126 {
		t.Fatalf("nesting: %+v", res)
	}
	start := time.Now()
	sbT := newTestSandbox(t, Limits{Timeout: 300 * time.Millisecond}, nil)
	if res := run(t, sbT, "spawn spin", nil); res.ErrorKind != wire.ErrKindTimeout || time.Since(start) > time.Second {
		t.Fatalf("child spin: %+v after %s", res, time.Since(start))
	}
	sbM := newTestSandbox(t, Limits{MemoryLimit: 64 << 20}, nil)
	if res := run(t, sbM, "spawn alloc", nil); res.ErrorKind != wire.ErrKindMemory {
		t.Fatalf("child alloc: %+v", res)
	}
}

func TestDiskQuota(t *testing.T) {
	sb := newTestSandbox(t, Limits{DiskQuota: 64 << 10}, nil)
	r := sb.disk
	if !r.charge(16 << 10) {
		t.Fatal("16 KiB refused under a 64 KiB quota")
	}
	if r.charge(1 << 20) {
		t.Fatal("1 MiB granted under a 64 KiB quota")
	}
	// Deletions are seen when the quota re-measures before refusing.
	os.WriteFile(filepath.Join(sb.Root(), "workspace", "big"), make([]byte, 40<<10), 0o600)
	time.Sleep(rewalkEvery)
	if r.charge(40 << 10) {
		t.Fatal("granted past the quota with a 40 KiB file present")
	}
	os.Remove(filepath.Join(sb.Root(), "workspace", "big"))
	time.Sleep(rewalkEvery)
	if !r.charge(40 << 10) {
		t.Fatal("refused after the file was removed")
	}
}

// TestSnapshotReactorGuest: the test guest built as a reactor and
// snapshotted after its set-up runs scripts like the command build does,
// each run on a fresh instance.
func TestSnapshotReactorGuest(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "reactor.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", wasm, "./testdata/testguest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(string(out))
	}
	raw, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := SnapshotGuest(raw)
	if err != nil {
		t.Fatal(err)
	}
	snapPath := filepath.Join(dir, "snap.wasm")
	os.WriteFile(snapPath, snap, 0o644)
	g, err := LoadGuest(snapPath, "")
	if err != nil {
		t.Fatal(err)
	}
	if !g.reactor {
		t.Fatal("the snapshot is not entered as a reactor")
	}
	sb, err := NewSandbox(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for i := 0; i < 2; i++ {
		if res := run(t, sb, "echo snap", nil); res.Stdout != "snap\n" || res.ExitCode != 0 {
			t.Fatalf("run %d: %+v", i, res)
		}
	}
	if res := run(t, sb, `call mcp:echo {"a":1}`, func(ev wire.Event) (string, error) { return string(ev.Params), nil }); res.Stdout != "ok {\"a\":1}\n" {
		t.Fatalf("tool call: %+v", res)
	}
	if res := run(t, sb, "exit200", nil); res.ExitCode != 200 {
		t.Fatalf("exit status: %+v", res)
	}
}
