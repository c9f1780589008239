package pycore

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/pca"
	"amlasandbox/gocore/wire"
)

// testGuestPath is the host package's small test guest (a plain wasip1
// command: "spin", "call METHOD PARAMS", "echo TEXT", ...), built once.
var testGuestPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pycoretest-")
	if err != nil {
		panic(err)
	}
	testGuestPath = filepath.Join(dir, "testguest.wasm")
	cmd := exec.Command("go", "build", "-o", testGuestPath, "../host/testdata/testguest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testAuthority signs PCAs for the tests' sandboxes.
func testAuthority(t testing.TB) *pca.Authority {
	t.Helper()
	a, err := pca.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testConfig is a sandbox config running the test guest, allowed every
// call, with a PCA granting patterns (nil: the default).
func testConfig(t testing.TB, patterns []string, caps string) sandboxConfig {
	t.Helper()
	a := testAuthority(t)
	token, err := a.Create(patterns, 3600, "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if caps == "" {
		caps = `[{"method_pattern": "**"}]`
	}
	return sandboxConfig{
		WasmPath:     testGuestPath,
		CacheDir:     t.TempDir(),
		PCA:          hex.EncodeToString(token),
		Trusted:      []string{a.PublicKeyHex()},
		Capabilities: json.RawMessage(caps),
		ToolsJSON:    `[{"name": "t", "description": "a tool"}]`,
		TimeoutS:     30,
		MemoryLimit:  64 << 20,
	}
}

func newTestSandbox(t testing.TB, cfg sandboxConfig) int64 {
	t.Helper()
	b, _ := json.Marshal(cfg)
	h, err := SandboxNew(string(b))
	if err != nil {
		t.Fatalf("SandboxNew: %v", err)
	}
	t.Cleanup(func() {
		if s := SandboxClose(h); s != "" {
			t.Errorf("SandboxClose: %s", s)
		}
	})
	return h
}

// wantKind checks that err (or a status) is the boundary error of kind.
func wantKind(t *testing.T, what string, errText string, kind errorKind) boundaryError {
	t.Helper()
	var be boundaryError
	if err := json.Unmarshal([]byte(errText), &be); err != nil {
		t.Fatalf("%s: error is not the boundary's JSON: %q", what, errText)
	}
	if be.Kind != kind {
		t.Fatalf("%s: kind %q (%s), want %q", what, be.Kind, be.Message, kind)
	}
	return be
}

func stepUntil(t *testing.T, h, run int64, kind string) wire.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out, err := SandboxStep(h, run, 100, true)
		if err != nil {
			t.Fatalf("SandboxStep(run %d): %v", run, err)
		}
		var ev wire.Event
		if err := json.Unmarshal([]byte(out), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Kind == kind {
			return ev
		}
		if ev.Kind == wire.EventDone {
			t.Fatalf("run %d ended while waiting for %q: %+v", run, kind, ev.Result)
		}
	}
	t.Fatalf("no %q event from run %d within 20 s", kind, run)
	return wire.Event{}
}

func TestRunIDsRefuseEveryRunButTheCurrentOne(t *testing.T) {
	h := newTestSandbox(t, testConfig(t, nil, ""))
	other := newTestSandbox(t, testConfig(t, nil, ""))

	if _, err := SandboxStep(h, 1, 10, true); err == nil {
		t.Fatal("step before any run: no error")
	} else {
		wantKind(t, "step before any run", err.Error(), kindNoRun)
	}

	old, err := SandboxStart(h, wire.LangShell, "spin", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := SandboxCancel(h, old); s != "" {
		t.Fatalf("SandboxCancel(current run): %s", s)
	}
	ev := stepUntil(t, h, old, wire.EventDone)
	if ev.Result.ErrorKind != wire.ErrKindCancelled {
		t.Fatalf("cancelled run ended with %q: %s", ev.Result.ErrorKind, ev.Result.Error)
	}

	cur, err := SandboxStart(h, wire.LangShell, `call mcp:t {"x":1}`, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if cur == old {
		t.Fatalf("a new run got the old run's id %d", cur)
	}
	otherRun, err := SandboxStart(other, wire.LangShell, "echo hi", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	stepUntil(t, other, otherRun, wire.EventDone)

	// Every operation with the replaced run's id (or another sandbox's) is
	// refused at once: a stale step must not wait for, or take, the
	// current run's request.
	for _, id := range []int64{old, otherRun, cur + 1000} {
		began := time.Now()
		_, err := SandboxStep(h, id, 5000, true)
		if err == nil {
			t.Fatalf("SandboxStep(run %d) on run %d: no error", id, cur)
		}
		be := wantKind(t, "stale step", err.Error(), kindStaleRun)
		if !strings.Contains(be.Message, "is not this sandbox's current run") {
			t.Errorf("stale step message: %q", be.Message)
		}
		if d := time.Since(began); d > time.Second {
			t.Errorf("a stale step took %v to be refused", d)
		}
		for what, errText := range map[string]string{
			"resume":       SandboxResume(h, id, 1, `"late"`),
			"resume error": SandboxResumeError(h, id, 1, "", "late"),
			"cancel":       SandboxCancel(h, id),
		} {
			wantKind(t, what, errText, kindStaleRun)
		}
		for what, f := range map[string]func() error{
			"last handed": func() error { _, err := SandboxLastHanded(h, id); return err },
			"take output": func() error { _, err := SandboxTakeOutput(h, id, "stdout"); return err },
			"result":      func() error { _, err := SandboxResult(h, id); return err },
		} {
			err := f()
			if err == nil {
				t.Fatalf("%s with run %d: no error", what, id)
			}
			wantKind(t, what, err.Error(), kindStaleRun)
		}
	}

	// The current run was not touched: its request is still there.
	req := stepUntil(t, h, cur, wire.EventRequest)
	if req.Method != "mcp:t" {
		t.Fatalf("request %+v", req)
	}
	if last, err := SandboxLastHanded(h, cur); err != nil || last != req.ID {
		t.Fatalf("SandboxLastHanded = %d, %v; want %d", last, err, req.ID)
	}
	if s := SandboxResume(h, cur, req.ID, `{"answer": 42}`); s != "" {
		t.Fatalf("SandboxResume: %s", s)
	}
	done := stepUntil(t, h, cur, wire.EventDone)
	if !strings.Contains(done.Result.Stdout, `ok {"answer":42}`) && !strings.Contains(done.Result.Stdout, `ok {"answer": 42}`) {
		t.Fatalf("stdout %q stderr %q", done.Result.Stdout, done.Result.Stderr)
	}
	out, err := SandboxResult(h, cur)
	if err != nil || !strings.Contains(out, "answer") {
		t.Fatalf("SandboxResult = %s, %v", out, err)
	}

	// A closed sandbox refuses its runs as closed.
	if s := SandboxClose(other); s != "" {
		t.Fatal(s)
	}
	_, err = SandboxStep(other, otherRun, 10, true)
	if err == nil {
		t.Fatal("step on a closed sandbox: no error")
	}
	wantKind(t, "closed", err.Error(), kindClosed)
}

func TestSandboxNewRefusesBadInputWithWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "hostname")
	if err := os.WriteFile(notWasm, []byte("myhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := testAuthority(t)
	for _, tt := range []struct {
		name   string
		change func(*sandboxConfig)
		kind   errorKind
		want   string
	}{
		{"missing wasm", func(c *sandboxConfig) { c.WasmPath = filepath.Join(dir, "nope.wasm") }, kindRuntime, "WASM file not found: " + filepath.Join(dir, "nope.wasm")},
		{"directory", func(c *sandboxConfig) { c.WasmPath = dir }, kindRuntime, dir + " is a directory"},
		{"not wasm", func(c *sandboxConfig) { c.WasmPath = notWasm }, kindRuntime, notWasm + " is not a WebAssembly module"},
		{"js not wasm", func(c *sandboxConfig) { c.JSWasmPath = notWasm }, kindRuntime, notWasm + " is not a WebAssembly module"},
		{"untrusted PCA", func(c *sandboxConfig) { c.Trusted = []string{other.PublicKeyHex()} }, kindRuntime, "Failed to create runtime: "},
		{"garbage PCA", func(c *sandboxConfig) { c.PCA = "00ff" }, kindRuntime, "Failed to create runtime: "},
		{"bad tools", func(c *sandboxConfig) { c.ToolsJSON = "{" }, kindInvalid, "tools_json is not a valid JSON list of tools"},
		{"bad capability", func(c *sandboxConfig) { c.Capabilities = json.RawMessage(`[{"method_pattern": "x", "kind": "other"}]`) }, kindRuntime, "Failed to create runtime: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, nil, "")
			tt.change(&cfg)
			b, _ := json.Marshal(cfg)
			_, err := SandboxNew(string(b))
			if err == nil {
				t.Fatal("accepted")
			}
			be := wantKind(t, tt.name, err.Error(), tt.kind)
			if !strings.Contains(be.Message, tt.want) {
				t.Errorf("message %q does not contain %q", be.Message, tt.want)
			}
		})
	}
	if _, err := SandboxNew("{"); err == nil {
		t.Error("config that is not JSON: accepted")
	} else {
		wantKind(t, "bad config", err.Error(), kindInvalid)
	}
}

func TestCheckWasmFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name string
		path string
		want string // "" = accepted
	}{
		{"empty module", write("ok.wasm", []byte("\x00asm\x01\x00\x00\x00")), ""},
		{"text", write("text", []byte("hello world")), "is not a WebAssembly module"},
		{"short", write("short", []byte("\x00as")), "is not a WebAssembly module"},
		{"empty file", write("empty", nil), "is not a WebAssembly module"},
		{"component", write("comp.wasm", []byte("\x00asm\x0d\x00\x01\x00")), "is a WebAssembly component"},
		{"version 2", write("v2.wasm", []byte("\x00asm\x02\x00\x00\x00")), "version 2"},
		{"directory", dir, "is a directory"},
		{"missing", filepath.Join(dir, "missing"), "WASM file not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkWasmFile(tt.path)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && err == nil:
				t.Fatal("accepted")
			case tt.want != "":
				be := err.(*boundaryError)
				if !strings.Contains(be.Message, tt.want) || !strings.Contains(be.Message, tt.path) {
					t.Fatalf("message %q: want %q and the path", be.Message, tt.want)
				}
			}
		})
	}
}

func TestSandboxPolicyBindings(t *testing.T) {
	h := newTestSandbox(t, testConfig(t, []string{"mcp:a", "mcp:b"},
		`[{"method_pattern": "mcp:b", "max_calls": 2, "kind": "method"}, {"method_pattern": "mcp:a", "max_calls": 1}, {"method_pattern": "**"}]`))
	if got, want := SandboxCounts(h), `{"cap:method:mcp:b": 2, "cap:tool-call:mcp:a": 1}`; got != want {
		t.Errorf("SandboxCounts = %s, want %s", got, want)
	}
	for _, tt := range []struct {
		key  string
		want int64
	}{
		{"cap:method:mcp:b", 2}, {"cap:tool-call:mcp:b", 2},
		{"cap:method:mcp:a", 1}, {"cap:tool-call:mcp:a", 1},
		{"cap:tool-call:**", -1}, {"mcp:a", -1},
	} {
		if got := SandboxRemaining(h, tt.key); got != tt.want {
			t.Errorf("SandboxRemaining(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
	// The PCA grants only mcp:a and mcp:b, whatever the capabilities allow.
	if got, want := SandboxCheckCall(h, "mcp:c", "{}"), "PCA does not grant method 'mcp:c'. Granted patterns: ['mcp:a', 'mcp:b']"; got != want {
		t.Errorf("SandboxCheckCall = %q, want %q", got, want)
	}
	if got := SandboxCheckCall(h, "mcp:a", "{}"); got != "" {
		t.Errorf("SandboxCheckCall(granted) = %q", got)
	}
	if s := SandboxSetCapabilities(h, `[{"method_pattern": "mcp:b"}]`); s != "" {
		t.Fatal(s)
	}
	if got := SandboxCheckCall(h, "mcp:a", "{}"); got == "" {
		t.Error("SandboxCheckCall after narrowing the capabilities: still allowed")
	}
	wantKind(t, "bad capabilities", SandboxSetCapabilities(h, `[{"method_pattern": "x", "kind": "other"}]`), kindInvalid)
	wantKind(t, "closed", SandboxSetCapabilities(-5, "[]"), kindClosed)
	if got := SandboxCheckCall(-5, "mcp:a", "{}"); got != "Sandbox not initialized" {
		t.Errorf("SandboxCheckCall on a closed handle = %q", got)
	}
	if got := SandboxRemaining(-5, "cap:method:mcp:b"); got != -1 {
		t.Errorf("SandboxRemaining on a closed handle = %d", got)
	}
}
