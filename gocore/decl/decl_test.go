package decl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"amlasandbox/gocore/wire"
)

func one(name, schema string) *Set {
	return NewSet([]Tool{{Name: name, Description: "Does it.", InputSchema: json.RawMessage(schema)}})
}

// TestSchemas checks what each construct of JSON Schema renders as.
func TestSchemas(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		ts, py []string
	}{
		{"issue example", `{"type":"object","properties":{"city":{"type":"string","description":"The city."},"units":{"type":"string","enum":["c","f"],"default":"c"}},"required":["city"]}`,
			[]string{"type GetWeatherInput = {\n  /** The city. */\n  city: string;\n  /** Default: \"c\". */\n  units?: \"c\" | \"f\";\n};", "declare function get_weather(input: GetWeatherInput): Promise<unknown>;"},
			[]string{`async def get_weather(*, city: str, units: Literal["c", "f"] = "c") -> Any:`, "    Args:\n        city: The city.\n"}},
		{"required first", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"boolean"}},"required":["b"]}`,
			[]string{"a?: number;", "b: boolean;"},
			[]string{"(*, b: bool, a: int = ...)"}},
		{"nullable both ways", `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":"integer","nullable":true}}}`,
			[]string{"a?: string | null;", "b?: number | null;"},
			[]string{"a: str | None = ...", "b: int | None = ..."}},
		{"nested object", `{"type":"object","properties":{"m":{"type":"object","properties":{"due":{"type":"string","format":"date"}},"required":["due"]}}}`,
			[]string{"m?: {\n    /** Format: date. */\n    due: string;\n  };"},
			[]string{"class GetWeatherInputM(TypedDict):\n    due: str\n    \"\"\"Format: date.\"\"\"", "m: GetWeatherInputM = ..."}},
		{"array of unions", `{"type":"object","properties":{"l":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}}`,
			[]string{"l?: (string | number)[];"},
			[]string{"l: list[str | int] = ..."}},
		{"enum of numbers and null", `{"type":"object","properties":{"e":{"enum":[1,2,null]},"f":{"enum":[0.5]}}}`,
			[]string{"e?: 1 | 2 | null;", "f?: 0.5;"},
			[]string{"e: Literal[1, 2] | None = ...", "f: float = ..."}},
		{"allOf merges objects", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"string"}}}]}`,
			[]string{"type GetWeatherInput = {\n  a: string;\n  b?: string;\n};"},
			[]string{"(*, a: str, b: str = ...)"}},
		{"allOf of others intersects", `{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"$ref":"#/$defs/o"}]}},"$defs":{"o":{"type":"object","properties":{"k":{"type":"string"}}}}}`,
			[]string{"x?: string & {\n    k?: string;\n  };"},
			[]string{"x: str = ..."}},
		{"additionalProperties", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"number"}},"p":{"type":"object","patternProperties":{"^a":{"type":"string"}}}}}`,
			[]string{"m?: Record<string, number>;", "p?: Record<string, string>;"},
			[]string{"m: dict[str, float] = ...", "p: dict[str, str] = ..."}},
		{"recursive ref", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
			[]string{"type GetWeatherNode = {\n  kids?: GetWeatherNode[];\n};", "root?: GetWeatherNode;"},
			[]string{"class GetWeatherNode(TypedDict):\n    kids: NotRequired[list[GetWeatherNode]]", "root: GetWeatherNode = ..."}},
		{"non-recursive ref inlined", `{"type":"object","properties":{"a":{"$ref":"#/definitions/s"}},"definitions":{"s":{"type":"string","description":"From the def."}}}`,
			[]string{"/** From the def. */\n  a?: string;"},
			[]string{"a: str = ...", "a: From the def."}},
		{"unresolvable ref", `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`,
			[]string{"a?: unknown;", `Note (input): $ref "other.json#/x" could not be followed`},
			[]string{"a: Any = ...", `Note (input): $ref "other.json#/x" could not be followed`}},
		{"keys that are no identifiers", `{"type":"object","properties":{"my-key":{"type":"string"},"if":{"type":"integer"}},"required":["my-key"]}`,
			[]string{`"my-key": string;`, "if?: number;"},
			[]string{`GetWeatherInput = TypedDict("GetWeatherInput", {` + "\n" + `    "my-key": str,` + "\n" + `    "if": NotRequired[int],`, "async def get_weather(params: GetWeatherInput, /) -> Any:"}},
		{"escapes", `{"type":"object","properties":{"a":{"type":"string","description":"ends */ here and \"\"\" there\""}}}`,
			[]string{`/** ends *\/ here and """ there" */`},
			[]string{`a: ends */ here and ""\" there\"`}},
		{"defaults that fit only", `{"type":"object","properties":{"a":{"type":"integer","default":"x"},"b":{"type":"integer","default":2},"c":{"type":"object","default":{}}}}`,
			[]string{"a?: number;"},
			[]string{"a: int = ...", "b: int = 2", "c: dict[str, Any] = ..."}},
		{"not JSON", `{"type":`,
			[]string{"type GetWeatherInput = unknown;", "the schema could not be read"},
			[]string{"**kwargs", "the schema could not be read"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := one("get_weather", c.schema)
			ts, py := s.TypeScript(), s.Python()
			for _, w := range c.ts {
				if !strings.Contains(ts, w) {
					t.Errorf("TypeScript lacks %q:\n%s", w, ts)
				}
			}
			for _, w := range c.py {
				if !strings.Contains(py, w) {
					t.Errorf("Python lacks %q:\n%s", w, py)
				}
			}
		})
	}
}

// TestNames checks how each tool is reached, as the guests place them.
func TestNames(t *testing.T) {
	tools := []Tool{
		{Name: "github.create_issue"}, {Name: "get-weather"}, {Name: "class"}, {Name: "Math"},
		{Name: "print"}, {Name: "stripe.charges.create"}, {Name: "a b"}, {Name: "tools.search"},
		{Name: "x.y"}, {Name: "x_y"}, {Name: "github.create_issue"}, {Name: ""},
	}
	s := NewSet(tools)
	want := []struct{ name, js, py string }{
		{"github.create_issue", "declare namespace github {\n  type CreateIssueInput = Record<string, unknown>;\n  function create_issue(", "class github:\n    @staticmethod\n    async def create_issue("},
		{"get-weather", "declare function get_weather(", "async def get_weather("},
		{"class", `callTool(name: "class"`, `call_tool(name: Literal["class"]`},
		{"Math", `callTool(name: "Math"`, "async def Math("},
		{"print", `callTool(name: "print"`, `call_tool(name: Literal["print"]`},
		{"stripe.charges.create", "declare namespace stripe {\n  type ChargesCreateInput", "class stripe:\n    class charges:\n        @staticmethod\n        async def create("},
		{"a b", `callTool(name: "a b"`, `call_tool(name: Literal["a b"]`},
		{"tools.search", `declare function callTool(name: "tools.search"`, `call_tool(name: Literal["tools.search"]`},
		{"x.y", "declare namespace x {", "class x:"},
		{"x_y", `callTool(name: "x_y"`, "async def x_y("},
	}
	if got := strings.Join(s.Names(), ","); got != "github.create_issue,get-weather,class,Math,print,stripe.charges.create,a b,tools.search,x.y,x_y" {
		t.Fatalf("Names() = %s (a repeated or empty name must be dropped)", got)
	}
	for _, w := range want {
		js, ok, err := s.Declaration(wire.LangJavaScript, w.name)
		if err != nil || !ok || !strings.Contains(js, w.js) {
			t.Errorf("TypeScript of %q lacks %q (%v %v):\n%s", w.name, w.js, ok, err, js)
		}
		py, ok, err := s.Declaration(wire.LangPython, w.name)
		if err != nil || !ok || !strings.Contains(py, w.py) {
			t.Errorf("Python of %q lacks %q (%v %v):\n%s", w.name, w.py, ok, err, py)
		}
	}
	if _, ok, err := s.Declaration(wire.LangPython, "nope"); ok || err != nil {
		t.Errorf("Declaration of an unknown tool = %v, %v; want false, nil", ok, err)
	}
	if _, err := s.Declarations("ruby"); err == nil || !strings.Contains(err.Error(), `"ruby"`) {
		t.Errorf("Declarations(ruby) error = %v; want one naming the language", err)
	}
	if _, _, err := s.Declaration("cobol", "x.y"); err == nil {
		t.Error("Declaration(cobol) gave no error")
	}
}

func TestFromWireAndOutput(t *testing.T) {
	w := wire.ToolInfo{Name: "n", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), Method: "mcp:s/n"}
	tl := FromWire(w)
	if tl.Name != "n" || tl.Description != "d" || string(tl.InputSchema) != string(w.InputSchema) {
		t.Fatalf("FromWire = %+v", tl)
	}
	var fromJSON Tool
	if err := json.Unmarshal([]byte(`{"name":"n","description":"d","inputSchema":{},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}`), &fromJSON); err != nil {
		t.Fatal(err)
	}
	s := NewSet([]Tool{fromJSON})
	if ts := s.TypeScript(); !strings.Contains(ts, "type NOutput = {\n  ok: boolean;\n};") || !strings.Contains(ts, "Promise<NOutput>") {
		t.Errorf("output schema not rendered:\n%s", ts)
	}
	if py := s.Python(); !strings.Contains(py, "-> NOutput:") {
		t.Errorf("output schema not rendered:\n%s", py)
	}
}

// TestDeterministic renders the same tools many times: the same bytes.
func TestDeterministic(t *testing.T) {
	tools := loadTools(t, "edge")
	first := NewSet(tools)
	ts, py := first.TypeScript(), first.Python()
	for i := 0; i < 20; i++ {
		s := NewSet(tools)
		if s.TypeScript() != ts || s.Python() != py {
			t.Fatal("the same tools rendered differently")
		}
	}
	if first.TypeScript() != ts {
		t.Fatal("rendering a Set twice differs")
	}
}

func deepProps(levels int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
}

// TestHostileSchemas: deep, huge, exponential and cyclic schemas render
// quickly, to a bounded size, with a note, and never crash or hang.
func TestHostileSchemas(t *testing.T) {
	var dag strings.Builder
	dag.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&dag, `"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}},`, i, i+1, i+1)
	}
	dag.WriteString(`"d40":{"type":"string"}}}`)
	wide := `{"type":"object","properties":{` + strings.Repeat(`"p":{"type":"string"},`, 50000) + `"q":{}}}`
	cases := []struct{ name, schema, note string }{
		{"nested past the parser's limit", strings.Repeat("[", 100000), "nested deeper"},
		{"nested past the depth cap", deepProps(60), "nests deeper than 32 levels"},
		{"exponential refs", dag.String(), "more than 4096 parts"},
		{"ref to itself", `{"type":"object","properties":{"x":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/x"}}}`, "refers to itself"},
		{"ref loop", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, "refers to itself"},
		{"union with itself", `{"anyOf":[{"$ref":"#"},{"type":"string"}]}`, ""},
		{"root is a ref to root", `{"$ref":"#"}`, "refers to itself"},
		{"too big", `{"description":"` + strings.Repeat("x", maxJSONBytes) + `"}`, "more than the"},
		{"many members", wide, ""},
		{"bad pointer", `{"type":"object","properties":{"a":{"$ref":"#/properties/%zz"},"b":{"$ref":"#/items/9"},"c":{"$ref":"#x"}}}`, "could not be followed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan [2]string, 1)
			go func() {
				s := one("t", c.schema)
				done <- [2]string{s.TypeScript(), s.Python()}
			}()
			select {
			case out := <-done:
				for _, text := range out {
					if len(text) > 4<<20 {
						t.Errorf("output of %d bytes", len(text))
					}
					if !strings.Contains(text, c.note) {
						t.Errorf("output lacks the note %q:\n%.2000s", c.note, text)
					}
				}
			case <-time.After(5 * time.Second):
				t.Fatal("rendering did not end within 5 s")
			}
		})
	}
}

// TestDocText checks the escaping of documentation and literals directly.
func TestDocText(t *testing.T) {
	var b strings.Builder
	pyDoc(&b, "", `a """ b \ c"`)
	if got, want := b.String(), `"""a ""\" b \\ c\""""`+"\n"; got != want {
		t.Errorf("pyDoc = %q, want %q", got, want)
	}
	b.Reset()
	pyDoc(&b, "", `ends with an escaped quote \"`)
	if got, want := b.String(), `"""ends with an escaped quote \\\""""`+"\n"; got != want {
		t.Errorf("pyDoc = %q, want %q", got, want)
	}
	b.Reset()
	jsDoc(&b, "", "x */ y\u0000\r\nz")
	if got, want := b.String(), "/**\n * x *\\/ y\\u0000\n * z\n */\n"; got != want {
		t.Errorf("jsDoc = %q, want %q", got, want)
	}
	if got, want := quote("a\"\\\n\u2028\x01"), `"a\"\\\n\u2028\u0001"`; got != want {
		t.Errorf("quote = %s, want %s", got, want)
	}
	if v, err := parseJSON(`"\ud83d\ude00 \ud800 \xff"`); err == nil || v != nil {
		// \x is no JSON escape
	} else if !strings.Contains(err.Error(), "valid escape") {
		t.Errorf("parse error = %v", err)
	}
	v, err := parseJSON(`"\ud83d\ude00 \ud800x"`)
	if err != nil || v.str != "😀 \ufffdx" || !utf8.ValidString(v.str) {
		t.Errorf("surrogates: %q, %v", v.str, err)
	}
}

func TestSummary(t *testing.T) {
	s := NewSet([]Tool{
		{Name: "github.create_issue", Description: "\n  Create an issue.\nMore."},
		{Name: "get-weather", Description: "Weather."},
		{Name: "a b"},
		{Name: "stripe.charges.create", Description: "Charge."},
	})
	wantJS := "- github.create_issue(input): Create an issue.\n- get_weather(input): Weather.\n- callTool(\"a b\", input)\n- stripe.charges_create(input): Charge.\n"
	if got := s.Summary(wire.LangJavaScript); got != wantJS {
		t.Errorf("JavaScript summary:\n%s\nwant:\n%s", got, wantJS)
	}
	wantPy := "- github.create_issue(...): Create an issue.\n- get_weather(...): Weather.\n- call_tool(\"a b\", {...})\n- stripe.charges.create(...): Charge.\n"
	if got := s.Summary(wire.LangPython); got != wantPy {
		t.Errorf("Python summary:\n%s\nwant:\n%s", got, wantPy)
	}
	wantSh := "- tool github.create_issue: Create an issue.\n- tool get-weather: Weather.\n- tool 'a b'\n- tool stripe.charges.create: Charge.\n"
	if got := s.Summary(wire.LangShell); got != wantSh {
		t.Errorf("shell summary:\n%s\nwant:\n%s", got, wantSh)
	}
	if got := s.Summary("ruby"); got != "" {
		t.Errorf("ruby summary = %q, want none", got)
	}
	if _, ok := s.Call(wire.LangPython, "nope"); ok {
		t.Error("Call of an unknown tool")
	}
}
