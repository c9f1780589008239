package decl

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRender renders arbitrary schema text under an arbitrary tool name:
// it must not panic, must be deterministic, valid UTF-8 and bounded, and
// its Python docstrings must open and close in pairs.
func FuzzRender(f *testing.F) {
	f.Add("get_weather", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	f.Add("a.b-c", `{"$ref":"#","anyOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"allOf":[{"$ref":"#"}]}}}`)
	f.Add("x", `{"type":"object","properties":{"\"\"\"":{"description":"*/\"\"\"\\"}}}`)
	f.Fuzz(func(t *testing.T, name, schema string) {
		tools := []Tool{{Name: name, Description: schema, InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema)}}
		s := NewSet(tools)
		ts, py := s.TypeScript(), s.Python()
		again := NewSet(tools)
		if again.TypeScript() != ts || again.Python() != py {
			t.Fatal("not deterministic")
		}
		for _, out := range []string{ts, py} {
			if !utf8.ValidString(out) {
				t.Fatal("output is not valid UTF-8")
			}
			if len(out) > 64*len(schema)+64*len(name)+1<<20 {
				t.Fatalf("output of %d bytes for a schema of %d", len(out), len(schema))
			}
		}
		if n := tripleQuotes(py); n%2 != 0 {
			t.Fatalf("odd number (%d) of docstring delimiters:\n%s", n, py)
		}
		if at := strayCommentEnd(ts); at >= 0 {
			t.Fatalf("a comment closed early (byte %d):\n%s", at, ts)
		}
		for _, lang := range []string{"javascript", "python"} {
			if _, ok, err := s.Declaration(lang, name); err != nil || ok != (name != "") {
				t.Fatalf("Declaration(%s, %q) = %v, %v", lang, name, ok, err)
			}
		}
	})
}

// strayCommentEnd is the offset of a "*/" outside comments and string
// literals in TypeScript text (the mark of a comment its text closed
// early), or -1.
func strayCommentEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return i
			}
			i += 2 + end + 1
		case strings.HasPrefix(s[i:], "*/"):
			return i
		}
	}
	return -1
}

// tripleQuotes counts the unescaped runs of three double quotes.
func tripleQuotes(s string) int {
	n, run := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
			run = 0
		case '"':
			run++
			if run == 3 {
				n++
				run = 0
			}
		default:
			run = 0
		}
	}
	return n
}
