package decl

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"amlasandbox/gocore/wire"
)

// Tool is a tool as the host knows it: its registered name (dotted for a
// tool of a mounted MCP server: "github.create_issue"), its description,
// the JSON Schema of its input and, for an MCP tool that has one, of its
// output. The JSON names are those of wire.ToolInfo and MCP's tools/list.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// FromWire is the Tool of a registered tool's wire.ToolInfo.
func FromWire(t wire.ToolInfo) Tool {
	return Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
}

// Set is a sandbox's tools, placed as the guests place them. Tools are
// kept in the given order; a repeated name keeps its first tool (as the
// guests do). Each tool's schemas are converted when it is first
// rendered. A Set is safe for concurrent use.
type Set struct {
	tools  []*tool
	byName map[string]*tool
}

type tool struct {
	Tool
	// jsNS is the tool's JavaScript namespace ("" for none) and jsFn its
	// function's name in it (or the global's); jsFn is "" when the tool is
	// reached through callTool only.
	jsNS, jsFn string
	// pyPath is the tool's Python path ("github", "create_issue"); nil
	// when it is reached through call_tool only.
	pyPath []string

	once     sync.Once
	in, out  *converted
	hasOut   bool
	noSchema bool
}

// NewSet places tools.
func NewSet(tools []Tool) *Set {
	s := &Set{byName: map[string]*tool{}}
	for _, t := range tools {
		if t.Name == "" || s.byName[t.Name] != nil {
			continue
		}
		tl := &tool{Tool: t}
		s.tools = append(s.tools, tl)
		s.byName[t.Name] = tl
	}
	s.placeJS()
	s.placePython()
	return s
}

// placeJS gives each tool its JavaScript name as the prelude does: every
// tool first asks for the global jsName(name) (the first one keeps it;
// builtins and the prelude's globals are never replaced); a dotted tool is
// then declared in the namespace named by the part before its first dot,
// which exists only where no global took that name.
func (s *Set) placeJS() {
	globals := map[string]bool{}
	for _, t := range s.tools {
		id := jsName(t.Name)
		if globals[id] || jsGlobals[id] {
			continue
		}
		globals[id] = true
		if !strings.Contains(t.Name, ".") && jsIdent(id) {
			t.jsFn = id
		}
	}
	members := map[string]map[string]bool{}
	for _, t := range s.tools {
		dot := strings.IndexByte(t.Name, '.')
		if dot <= 0 || dot == len(t.Name)-1 {
			if dot >= 0 {
				t.jsFn = ""
			}
			continue
		}
		ns, member := jsName(t.Name[:dot]), jsName(t.Name[dot+1:])
		if globals[ns] || jsGlobals[ns] || jsYielding[ns] || !jsIdent(ns) || !jsIdent(member) {
			continue
		}
		if members[ns] == nil {
			members[ns] = map[string]bool{}
		}
		if members[ns][member] {
			continue
		}
		members[ns][member] = true
		t.jsNS, t.jsFn = ns, member
	}
}

// placePython gives each tool its Python path as the prelude does: every
// dot is a level of namespace, "-", ":" and "/" become "_", and a path
// with a part that is no identifier, or whose first part would hide a
// builtin or one of the sandbox's helpers, has none (call_tool reaches
// it). The stubs add two rules of their own: a path that is also a
// namespace of other tools, and a first part that is a name the stubs
// import from typing, are reached through call_tool.
func (s *Set) placePython() {
	paths := map[string]*tool{}
	for _, t := range s.tools {
		parts := strings.Split(t.Name, ".")
		ok := true
		for i, p := range parts {
			parts[i] = pyName(p)
			if !pyIdent(parts[i]) {
				ok = false
			}
		}
		root := parts[0]
		switch {
		case !ok:
		case root == "tools" && len(parts) > 1:
		case pyHelpers[root] || pyTyping[root] || (pyBuiltins[root] && !pyYielding[root]):
		default:
			key := strings.Join(parts, ".")
			if paths[key] == nil {
				paths[key] = t
				t.pyPath = parts
			}
		}
	}
	// A path that is also a namespace of other tools (a prefix of their
	// paths) cannot be a function of the stubs as well.
	prefixes := map[string]bool{}
	for key := range paths {
		for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
			prefixes[key[:i]] = true
		}
	}
	for key, t := range paths {
		if prefixes[key] {
			t.pyPath = nil
		}
	}
}

// prepare converts the tool's schemas once.
func (t *tool) prepare() {
	t.once.Do(func() {
		t.noSchema = len(strings.TrimSpace(string(t.InputSchema))) == 0 || strings.TrimSpace(string(t.InputSchema)) == "null"
		if t.noSchema {
			t.in = &converted{t: &typ{kind: kObject, hint: "Input"}}
		} else {
			t.in = convertSchema(string(t.InputSchema), "Input")
		}
		out := strings.TrimSpace(string(t.OutputSchema))
		t.hasOut = out != "" && out != "null"
		if t.hasOut {
			t.out = convertSchema(out, "Output")
		}
	})
}

// notes are the tool's notes about its schemas, for its documentation.
func (t *tool) notes() []string {
	var n []string
	for _, s := range t.in.notes {
		n = append(n, "Note (input): "+s+".")
	}
	if t.out != nil {
		for _, s := range t.out.notes {
			n = append(n, "Note (output): "+s+".")
		}
	}
	return n
}

// doc is the tool's description and notes.
func (t *tool) doc() string {
	parts := []string{strings.TrimSpace(t.Description)}
	parts = append(parts, t.notes()...)
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

// Names are the tools' registered names, in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name
	}
	return names
}

// Len is the number of tools.
func (s *Set) Len() int { return len(s.tools) }

// Languages with declarations, as named by wire.
var languages = []string{wire.LangJavaScript, wire.LangTypeScript, wire.LangPython, wire.LangShell}

// Languages are the languages Declarations takes: "javascript" and
// "typescript" (the same TypeScript declarations), "python" and "shell".
func Languages() []string { return append([]string(nil), languages...) }

// render renders tools in language; false for a language without
// declarations.
func (s *Set) render(language string, tools []*tool) (string, bool) {
	switch language {
	case wire.LangJavaScript, wire.LangTypeScript:
		return s.typeScript(tools), true
	case wire.LangPython:
		return s.python(tools), true
	case wire.LangShell:
		return s.shell(tools), true
	}
	return "", false
}

func unknownLanguage(language string) error {
	return fmt.Errorf("no declarations for language %q (there are for %s)", language, strings.Join(languages, ", "))
}

// Declarations are the declarations of every tool for a run's language:
// TypeScript for JavaScript and TypeScript, Python stubs for Python, the
// tool applet's usage for the shell.
func (s *Set) Declarations(language string) (string, error) {
	out, ok := s.render(language, s.tools)
	if !ok {
		return "", unknownLanguage(language)
	}
	return out, nil
}

// Declaration is one tool's declaration for a run's language, complete in
// itself; false when there is no tool of that name.
func (s *Set) Declaration(language, name string) (string, bool, error) {
	if _, ok := s.render(language, nil); !ok {
		return "", false, unknownLanguage(language)
	}
	t := s.byName[name]
	if t == nil {
		return "", false, nil
	}
	out, _ := s.render(language, []*tool{t})
	return out, true, nil
}

// Some are the declarations of the named tools, in the set's order, as
// one block placed as in the whole set (a name that is no tool is left
// out); the names that are no tool are returned too.
func (s *Set) Some(language string, names []string) (string, []string, error) {
	if _, ok := s.render(language, nil); !ok {
		return "", nil, unknownLanguage(language)
	}
	want := map[string]bool{}
	var missing []string
	for _, n := range names {
		if s.byName[n] == nil {
			missing = append(missing, n)
			continue
		}
		want[n] = true
	}
	var tools []*tool
	for _, t := range s.tools {
		if want[t.Name] {
			tools = append(tools, t)
		}
	}
	out, _ := s.render(language, tools)
	return out, missing, nil
}

// TypeScript is the declarations of every tool as a .d.ts block.
func (s *Set) TypeScript() string { return s.typeScript(s.tools) }

// Python is the declarations of every tool as a .pyi block.
func (s *Set) Python() string { return s.python(s.tools) }

// Shell is the tool applet's usage of every tool.
func (s *Set) Shell() string { return s.shell(s.tools) }
