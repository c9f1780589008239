package decl

import (
	"encoding/json"
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

// TestShell checks the tool applet's usage the shell declarations give.
func TestShell(t *testing.T) {
	cases := []struct {
		name, in, out string
		want          []string
	}{
		{"get_weather", `{"type":"object","properties":{"units":{"type":"string","enum":["c","f"],"default":"c"},"city":{"type":"string","description":"The city."}},"required":["city"]}`,
			`{"type":"object","properties":{"temp":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}},"required":["temp"]}`,
			[]string{"tool get_weather --city STRING [--units c|f]\n    Does it.\n    --city STRING  The city.\n    --units c|f  Default: \"c\".\n",
				"    Prints JSON: {temp: number, tags?: string[]}\n"}},
		{"no schema", ``, ``, []string{"tool 'no schema'\n    Does it.\n"}},
		{"odd.member", `{"type":"object","properties":{"a b":{"type":"integer"}}}`, ``,
			[]string{"tool odd.member --json '{...}'\n", "    --json: {\"a b\"?: number}\n"}},
		{"list", `{"type":"array","items":{"type":"integer"}}`, ``,
			[]string{"tool list --json '{...}'\n", "    --json: number[]\n"}},
		{"kinds", `{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"},"o":{"type":"object"},"l":{"type":"array"},"u":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"additionalProperties":{"type":"string"}}`, ``,
			[]string{"tool kinds [--n INTEGER] [--x NUMBER] [--b BOOLEAN] [--o OBJECT] [--l ARRAY] [--u VALUE] [--NAME VALUE]...\n"}},
	}
	for _, c := range cases {
		tl := Tool{Name: c.name, Description: "Does it.", InputSchema: json.RawMessage(c.in), OutputSchema: json.RawMessage(c.out)}
		got, ok, err := NewSet([]Tool{tl}).Declaration(wire.LangShell, c.name)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.name, ok, err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, got)
			}
		}
		if c.out == "" && strings.Contains(got, "Prints JSON") {
			t.Errorf("%s: an output without a schema:\n%s", c.name, got)
		}
	}
}

// TestShellOutputIsBounded keeps a huge output type to one short line.
func TestShellOutputIsBounded(t *testing.T) {
	var props []string
	for i := 0; i < 500; i++ {
		props = append(props, `"member_`+strings.Repeat("x", i%40)+string(rune('a'+i%26))+`":{"type":"string"}`)
	}
	out := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	got := NewSet([]Tool{{Name: "big", OutputSchema: json.RawMessage(out)}}).Shell()
	for _, l := range strings.Split(got, "\n") {
		if len(l) > maxShellType+200 {
			t.Fatalf("a line of %d bytes:\n%.300s", len(l), l)
		}
	}
	if !strings.Contains(got, "...") {
		t.Errorf("the cut type has no ...:\n%s", got)
	}
}

// TestSome renders some tools of a set, placed as in the whole set.
func TestSome(t *testing.T) {
	s := NewSet(loadTools(t, "github"))
	names := s.Names()
	text, missing, err := s.Some(wire.LangTypeScript, []string{names[3], "nope", names[1]})
	if err != nil || len(missing) != 1 || missing[0] != "nope" {
		t.Fatalf("Some = %v, %v", missing, err)
	}
	want, _ := s.Declarations(wire.LangJavaScript)
	if text == "" || len(text) >= len(want) {
		t.Fatalf("Some gave %d bytes of %d", len(text), len(want))
	}
	if _, _, err := s.Some("cobol", nil); err == nil {
		t.Error("Some(cobol) gave no error")
	}
}
