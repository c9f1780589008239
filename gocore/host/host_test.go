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
)

var testGuest *GuestModule

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
func drive(t *testing.T, r *Run, answer func(Event) (string, error)) Result {
	t.Helper()
	for {
		ev := r.Next()
		switch ev.Kind {
		case "done":
			return r.Result()
		case "request":
			res, err := answer(ev)
			if err != nil {
				r.ResumeError(ev.ID, err.Error())
			} else if err := r.Resume(ev.ID, res); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func run(t *testing.T, sb *Sandbox, code string, answer func(Event) (string, error)) Result {
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
	answer := func(ev Event) (string, error) {
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
	var reqs []Event
	for len(reqs) < 10 {
		ev := r.Next()
		if ev.Kind != "request" {
			t.Fatalf("got %+v before all 10 requests", ev)
		}
		reqs = append(reqs, ev)
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
	if res.ErrorKind != ErrKindTimeout {
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
	res := run(t, sb, `call mcp:slow {}`, func(Event) (string, error) {
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
	if res.ErrorKind != ErrKindMemory {
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
