package jsrt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"amlasandbox/gocore/guest/hostapi"
	"amlasandbox/gocore/wire"
)

// syncBuffer is a goroutine-safe output buffer that also counts writes.
type syncBuffer struct {
	mu     sync.Mutex
	b      strings.Builder
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// result is what one run produced.
type result struct {
	stdout, stderr string
	exit           int
	fake           *hostapi.Fake
	root           string
}

// runOpt adjusts the Options and the fake of a test run.
type runOpt func(*Options, *hostapi.Fake)

// newRoot makes a sandbox-like root: empty "/", writable workspace and tmp.
func newRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"workspace", "tmp"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// runJS runs code with a Fake whose tools are the test tools below.
func runJS(t testing.TB, code string, opts ...runOpt) result {
	t.Helper()
	var stdout, stderr syncBuffer
	fake := &hostapi.Fake{ToolList: testTools, Handler: testHandler}
	o := Options{Stdout: &stdout, Stderr: &stderr, Tools: fake, Root: newRoot(t)}
	for _, f := range opts {
		f(&o, fake)
	}
	if o.Tools == hostapi.Tools(fake) && o.ToolList == nil {
		o.ToolList = fake.ToolList
	}
	exit := Run(code, o)
	return result{stdout: stdout.String(), stderr: stderr.String(), exit: exit, fake: fake, root: o.Root}
}

func withRoot(root string) runOpt { return func(o *Options, _ *hostapi.Fake) { o.Root = root } }

func withNoTools() runOpt {
	return func(o *Options, _ *hostapi.Fake) { o.Tools = nil; o.ToolList = testTools }
}

func withTools(list []wire.ToolInfo) runOpt {
	return func(o *Options, f *hostapi.Fake) { f.ToolList = list; o.ToolList = list }
}

func withHandler(h func(method string, params json.RawMessage) (json.RawMessage, error)) runOpt {
	return func(_ *Options, f *hostapi.Fake) { f.Handler = h }
}

func withShell(sh func(cmd, stdin string) (string, string, int)) runOpt {
	return func(o *Options, _ *hostapi.Fake) { o.Shell = sh }
}

func withMaxCallStack(n int) runOpt {
	return func(o *Options, _ *hostapi.Fake) { o.MaxCallStack = n }
}

var testTools = []wire.ToolInfo{
	{Name: "math.add", Description: "Add two numbers", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)},
	{Name: "math.multiply", Description: "Multiply two numbers"},
	{Name: "greet", Description: "Greet someone"},
	{Name: "get_user", Description: "Get a user"},
	{Name: "stripe.charge", Description: "Create a charge"},
	{Name: "api_call", Description: "Call an API"},
	{Name: "echo", Description: "Return the params"},
	{Name: "fail", Description: "Always fails"},
	{Name: "big", Description: "Return a big string"},
	{Name: "weather/current", Description: "Current weather"},
	{Name: "my-tool", Description: "Dashes"},
}

// testHandler implements the test tools like the Python examples do.
func testHandler(method string, params json.RawMessage) (json.RawMessage, error) {
	var p map[string]interface{}
	_ = json.Unmarshal(params, &p)
	num := func(k string) float64 { f, _ := p[k].(float64); return f }
	switch method {
	case "mcp:math.add":
		return json.Marshal(map[string]float64{"result": num("a") + num("b")})
	case "mcp:math.multiply":
		return json.Marshal(map[string]float64{"result": num("a") * num("b")})
	case "mcp:greet":
		return json.Marshal("Hello, " + p["name"].(string) + "!")
	case "mcp:get_user":
		return json.RawMessage(`{"id":1,"name":"Alice","roles":["admin","user"]}`), nil
	case "mcp:echo":
		return params, nil
	case "mcp:fail":
		return nil, errors.New("Tool 'mcp:fail' failed: boom\nParameters: {}")
	case "mcp:big":
		return json.Marshal(strings.Repeat("x", int(num("n"))))
	}
	return json.RawMessage(`{"ok":true}`), nil
}
