package decl

import (
	"strings"

	"amlasandbox/gocore/wire"
)

// Call is how a script in language calls the tool name: its function
// ("github.create_issue(input)", "github.create_issue(...)"), or
// callTool / call_tool with its registered name when it has none of its
// own; the tool applet's command line in the shell ("tool
// github.create_issue"); false when there is no such tool or no
// declarations for language.
func (s *Set) Call(language, name string) (string, bool) {
	t := s.byName[name]
	if t == nil {
		return "", false
	}
	switch language {
	case wire.LangJavaScript, wire.LangTypeScript:
		switch {
		case t.jsFn == "":
			return "callTool(" + quote(t.Name) + ", input)", true
		case t.jsNS == "":
			return t.jsFn + "(input)", true
		}
		return t.jsNS + "." + t.jsFn + "(input)", true
	case wire.LangPython:
		if t.pyPath == nil {
			return "call_tool(" + quote(t.Name) + ", {...})", true
		}
		return strings.Join(t.pyPath, ".") + "(...)", true
	case wire.LangShell:
		return "tool " + shellWord(t.Name), true
	}
	return "", false
}

// Summary is one line per tool for a prompt too small for every
// declaration: its call and the first line of its description, in the
// tools' order ("" for a language without declarations). A script asks
// for the rest with tools.describe(name).
func (s *Set) Summary(language string) string {
	var b strings.Builder
	for _, t := range s.tools {
		call, ok := s.Call(language, t.Name)
		if !ok {
			return ""
		}
		b.WriteString("- " + call)
		if first := firstLine(t.Description); first != "" {
			b.WriteString(": " + first)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// firstLine is the first non-blank line of text, on one line.
func firstLine(text string) string {
	for _, l := range cleanLines(text) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
