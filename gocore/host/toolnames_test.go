package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

func TestDecodeRequestMethod(t *testing.T) {
	cases := []struct {
		raw, method, methodErr string
		decodeErr              bool
	}{
		{raw: `{"method":"mcp:echo","params":{}}`, method: "mcp:echo"},
		{raw: `{"params":{}}`, methodErr: `"method" is missing`},
		{raw: `{"method":null}`, methodErr: `"method" is missing`},
		{raw: `{"method":""}`, methodErr: `is empty`},
		{raw: `{"method":5}`, methodErr: "not a number"},
		{raw: `{"method":["a"]}`, methodErr: "not an array"},
		{raw: `{"method":{}}`, methodErr: "not an object"},
		{raw: `{"method":true}`, methodErr: "not a boolean"},
		{raw: `[1]`, decodeErr: true},
		{raw: `{"method":"a`, decodeErr: true},
	}
	for _, c := range cases {
		req, methodErr, decodeErr := decodeRequest([]byte(c.raw))
		if (decodeErr != nil) != c.decodeErr {
			t.Errorf("%s: decode error %v, want one: %v", c.raw, decodeErr, c.decodeErr)
			continue
		}
		if c.decodeErr {
			continue
		}
		if c.methodErr == "" {
			if methodErr != nil || req.Method != c.method {
				t.Errorf("%s: method %q, error %v; want %q", c.raw, req.Method, methodErr, c.method)
			}
		} else if methodErr == nil || !strings.Contains(methodErr.Error(), c.methodErr) {
			t.Errorf("%s: method error %v, want one saying %q", c.raw, methodErr, c.methodErr)
		}
	}
}

// A sandbox with a tool list answers a call of any other method itself.
func TestUnknownMethodNeverReachesHandler(t *testing.T) {
	sb, err := NewSandbox(testGuest, Config{Tools: []wire.ToolInfo{{Name: "echo"}, {Name: "x", Method: "mcp:srv/x"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	seen := 0
	answer := func(ev wire.Event) (string, error) { seen++; return string(ev.Params), nil }
	cases := []struct{ code, want string }{
		{`call mcp:echo {"a":1}`, "ok {\"a\":1}\n"},
		{`call mcp:srv/x {}`, "ok {}\n"},
		{`call mcp:x {}`, "err Unknown tool: \"mcp:x\" is not one of this sandbox's tools\n"},
		{`call admin {}`, "err Unknown tool: \"admin\" is not one of this sandbox's tools\n"},
		{`call mcp:echo/../admin {}`, "err Unknown tool: \"mcp:echo/../admin\" is not one of this sandbox's tools\n"},
	}
	for _, c := range cases {
		if res := run(t, sb, c.code, answer); res.Stdout != c.want {
			t.Errorf("%s: got %q want %q", c.code, res.Stdout, c.want)
		}
	}
	if seen != 2 {
		t.Errorf("the handler saw %d requests, want 2", seen)
	}
}

// A run's input names the tools; each one's description and schema are in
// its file, which the guest reads on demand.
func TestGuestToolList(t *testing.T) {
	dir := t.TempDir()
	tools := []wire.ToolInfo{
		{Name: "a", Description: strings.Repeat("long ", 1000), InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "b.c", Method: "mcp:srv/c", JS: "forged", Py: "forged"},
	}
	names := [][3]string{{"a", "", "a"}, {"b_c", "b", "b.c"}}
	got, err := guestToolList(dir, tools)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if g.Name != tools[i].Name || g.Method != tools[i].Method || g.Description != "" || g.InputSchema != nil {
			t.Errorf("tool %d in the input: %+v", i, g)
		}
		if g.Info != ToolInfoMount+"/"+strconv.Itoa(i)+".json" {
			t.Errorf("tool %d: info %q", i, g.Info)
		}
		if g.JS != "" || g.NS != "" || g.Py != "" {
			t.Errorf("tool %d's names are in the input: %+v", i, g)
		}
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var full wire.ToolInfo
		if err := json.Unmarshal(b, &full); err != nil || full.Description != tools[i].Description ||
			string(full.InputSchema) != string(tools[i].InputSchema) || full.Method != tools[i].Method || full.JS != "" || full.Py != "" {
			t.Errorf("tool %d's file: %s (%v)", i, b, err)
		}
	}
	// The index gives each tool the names a script calls it by: the
	// host's (toolcat), never the embedder's.
	b, err := os.ReadFile(filepath.Join(dir, toolIndexName))
	if err != nil {
		t.Fatal(err)
	}
	var index []wire.ToolInfo
	if err := json.Unmarshal(b, &index); err != nil || len(index) != len(tools) {
		t.Fatalf("index %s: %v", b, err)
	}
	for i, e := range index {
		if e.Name != tools[i].Name || e.Info != got[i].Info || [3]string{e.JS, e.NS, e.Py} != names[i] {
			t.Errorf("index entry %d: %+v, want names %q", i, e, names[i])
		}
	}
	if got, err := guestToolList(filepath.Join(dir, "none"), nil); err != nil || got != nil {
		t.Errorf("no tools: %v, %v", got, err)
	}
}

// readDecl reads tool i's declarations file ("" and "" when it has none).
func readDecl(t *testing.T, dir string, i int) toolDeclarations {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+declFileExt))
	if os.IsNotExist(err) {
		return toolDeclarations{}
	}
	if err != nil {
		t.Fatal(err)
	}
	ts, py, ok := strings.Cut(string(b), "\x00")
	if !ok {
		t.Fatalf("tool %d's declarations have no NUL between the languages: %q", i, b)
	}
	return toolDeclarations{TypeScript: ts, Python: py}
}

// TestToolFileDeclarations: beside each tool's file, its declarations in
// TypeScript and Python, rendered by gocore/decl; its file has its output
// schema.
func TestToolFileDeclarations(t *testing.T) {
	dir := t.TempDir()
	tools := []wire.ToolInfo{
		{Name: "get_weather", Description: "The weather.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}`)},
		{Name: "srv.list", Method: "mcp:srv/list"},
	}
	if _, err := guestToolList(dir, tools); err != nil {
		t.Fatal(err)
	}
	want := []toolDeclarations{
		{TypeScript: "declare function get_weather(input: GetWeatherInput): Promise<GetWeatherOutput>;",
			Python: "async def get_weather(*, city: str) -> GetWeatherOutput:"},
		{TypeScript: "declare namespace srv {", Python: "class srv:"},
	}
	for i, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var f wire.ToolInfo
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if string(f.OutputSchema) != string(tools[i].OutputSchema) {
			t.Errorf("tool %d: output schema %s", i, f.OutputSchema)
		}
		d := readDecl(t, dir, i)
		for lang, pair := range map[string][2]string{"typescript": {d.TypeScript, w.TypeScript}, "python": {d.Python, w.Python}} {
			if !strings.Contains(pair[0], pair[1]) {
				t.Errorf("tool %d's %s declaration lacks %q:\n%s", i, lang, pair[1], pair[0])
			}
		}
	}
}

// TestToolFileDeclarationsAreBounded: tools whose schemas render to many
// times their size get declarations up to the budget only, the rest none.
func TestToolFileDeclarationsAreBounded(t *testing.T) {
	var defs []string
	for i := 0; i < 60; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, `"d60":{"type":"string"}`)
	bomb := json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`)
	var tools []wire.ToolInfo
	for i := 0; i < 100; i++ {
		tools = append(tools, wire.ToolInfo{Name: "t" + strconv.Itoa(i), InputSchema: bomb, OutputSchema: bomb})
	}
	dir := t.TempDir()
	if _, err := guestToolList(dir, tools); err != nil {
		t.Fatal(err)
	}
	total, with, without := 0, 0, 0
	for i := range tools {
		d := readDecl(t, dir, i)
		n := len(d.TypeScript) + len(d.Python)
		total += n
		if n > 0 {
			with++
		} else {
			without++
		}
	}
	if limit := declarationBudget(tools); total > limit {
		t.Errorf("the files hold %d bytes of declarations, over the budget of %d", total, limit)
	}
	if with == 0 || without == 0 {
		t.Errorf("%d tools with declarations, %d without: want some of each", with, without)
	}
}
