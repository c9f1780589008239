package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"amlasandbox/gocore/decl"
	"amlasandbox/gocore/toolcat"
	"amlasandbox/gocore/wire"
)

// The rule for which names a script may call is the host's, so it is the
// same for every guest and for any request a guest submits, whether a
// prelude built it or a script wrote it by hand: a request names a tool by
// its method, a non-empty string that is the method of one of the
// sandbox's tools (wire.ToolInfo.MethodOf). Anything else is answered by
// the host with an invalid_request error naming what was wrong, and never
// reaches the authorizer or the tool handler.

// toolMethods is the set of methods a script may call: one per tool of
// Config.Tools. nil when the embedder gave no tool list (Config.Tools is
// nil), where the authorizer alone decides; pycore always gives a list.
func toolMethods(tools []wire.ToolInfo) map[string]bool {
	if tools == nil {
		return nil
	}
	m := make(map[string]bool, len(tools))
	for _, t := range tools {
		m[t.MethodOf()] = true
	}
	return m
}

// rawRequest is a submitted request before its method is checked.
type rawRequest struct {
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
}

// decodeRequest reads a submitted request. A request that is not a JSON
// object is a decode error; one whose method is missing, null, not a
// string or empty decodes, and methodErr says what is wrong with it
// (req.Method is then "", or the string given).
func decodeRequest(raw []byte) (req wire.ToolRequest, methodErr, decodeErr error) {
	var rr rawRequest
	if err := json.Unmarshal(raw, &rr); err != nil {
		return req, nil, err
	}
	req.Params = rr.Params
	switch {
	case len(rr.Method) == 0 || string(rr.Method) == "null":
		return req, fmt.Errorf(`Invalid tool request: it names no tool (its "method" is missing)`), nil
	case rr.Method[0] != '"':
		return req, fmt.Errorf(`Invalid tool request: its "method" must be a tool's name as a string, not %s`, jsonKind(rr.Method[0])), nil
	}
	if err := json.Unmarshal(rr.Method, &req.Method); err != nil {
		return req, nil, err
	}
	if req.Method == "" {
		return req, fmt.Errorf(`Invalid tool request: its tool name ("method") is empty`), nil
	}
	return req, nil, nil
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// checkMethod refuses a method that is none of the sandbox's tools.
func (s *Sandbox) checkMethod(method string) error {
	if s.methods == nil || s.methods[method] {
		return nil
	}
	return fmt.Errorf("Unknown tool: %s is not one of this sandbox's tools", strconv.Quote(method))
}

// ToolInfoMount is where every guest process sees the sandbox's tool
// files, read-only: one file per tool, its whole wire.ToolInfo as JSON
// (and beside it its declarations, declFileExt),
// named by the tool's place in Config.Tools. It is the sandbox's first
// mount, so its WASI descriptor is wire.ToolInfoFD.
const ToolInfoMount = wire.ToolInfoMount

// declFileExt names the file beside a tool's info file (<n>.json) that
// holds its declarations, rendered once by the host (gocore/decl) for
// tools.describe in JavaScript and Python: the TypeScript declaration, a
// NUL byte, the Python stub (decl's text never holds a NUL). A tool has
// none past the budget (declarationBudget); a guest then shows its
// description and schema. The declarations are a file of their own so
// that what reads every tool's info (tools.search, tools.list, the
// shell's --list and --search) reads no more than before. (The shell's
// tool --describe renders its own with the same package: its text
// depends on no other tool.)
const declFileExt = ".decl"

// toolDeclarations are one tool's declarations, complete in themselves:
// TypeScript (JavaScript and TypeScript runs) and a Python stub.
type toolDeclarations struct {
	TypeScript string
	Python     string
}

// bytes is the content of a tool's declarations file.
func (d toolDeclarations) bytes() []byte {
	b := make([]byte, 0, len(d.TypeScript)+1+len(d.Python))
	b = append(b, d.TypeScript...)
	b = append(b, 0)
	return append(b, d.Python...)
}

// Bytes of declarations a sandbox's tool files may hold: declBase, and
// declPerInput for every byte of the tools' names, descriptions and
// schemas. A realistic tool's two declarations together are about 1.6
// times its description and schemas (gocore/decl/testdata/github.json);
// a schema whose types are inlined many times over (a $ref to an object
// that refers twice to the next, 60 deep) renders to a hundred times its
// size, at about 10 MB/s, so a server's tool list of such schemas would
// have the host render and write without bound. Past the budget, tools
// get no declaration in their file (tools.describe then shows their
// description and JSON Schema) and rendering stops: the time it takes is
// bounded by the size of the tool list.
const (
	declBase     = 8 << 20
	declPerInput = 2
)

// declarationBudget is the bytes of declarations tools' files may hold.
func declarationBudget(tools []wire.ToolInfo) int {
	n := 0
	for _, t := range tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema) + len(t.OutputSchema)
	}
	return declBase + declPerInput*n
}

// declarationsOf renders the declarations of every tool, by name.
func declarationsOf(tools []wire.ToolInfo) func(name string) toolDeclarations {
	in := make([]decl.Tool, len(tools))
	for i, t := range tools {
		in[i] = decl.FromWire(t)
	}
	set := decl.NewSet(in)
	return func(name string) toolDeclarations {
		var d toolDeclarations
		d.TypeScript, _, _ = set.Declaration(wire.LangTypeScript, name)
		d.Python, _, _ = set.Declaration(wire.LangPython, name)
		return d
	}
}

// guestToolList writes one file per tool into dir and returns the list a
// run's Input carries: each tool's name and method, and the guest path of
// its file. The index file (toolIndexName), which JavaScript and Python
// runs get instead, adds the names a script calls each tool by
// (toolcat.Annotate); the shell, which names tools as registered, is not
// given them. A run's input then grows with the number of tools, not with
// the size of their descriptions, schemas and declarations, which a guest
// reads only when a script asks for them.
func guestToolList(dir string, tools []wire.ToolInfo) ([]wire.ToolInfo, error) {
	if len(tools) == 0 {
		return tools, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tool files: %w", err)
	}
	declarations := declarationsOf(tools)
	budget := declarationBudget(tools)
	out := make([]wire.ToolInfo, len(tools))
	for i, t := range tools {
		t.JS, t.NS, t.Py = "", "", "" // the host's to decide (toolcat)
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		name := strconv.Itoa(i) + ".json"
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, fmt.Errorf("tool files: %w", err)
		}
		if budget > 0 {
			d := declarations(t.Name)
			budget -= len(d.TypeScript) + len(d.Python)
			if budget >= 0 && !strings.ContainsRune(d.TypeScript, 0) {
				if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)+declFileExt), d.bytes(), 0o600); err != nil {
					return nil, fmt.Errorf("tool files: %w", err)
				}
			}
		}
		out[i] = wire.ToolInfo{Name: t.Name, Method: t.Method, Info: ToolInfoMount + "/" + name}
	}
	b, err := json.Marshal(toolcat.Annotate(out))
	if err != nil {
		return nil, fmt.Errorf("tool index: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, toolIndexName), b, 0o600); err != nil {
		return nil, fmt.Errorf("tool files: %w", err)
	}
	return out, nil
}

// SetTools replaces the sandbox's tools (a live sandbox's add_tools and
// remove_tools): the methods a script may call, the list the next run's
// Input carries, and the tool files guests read. The capability policy is
// not touched. It is refused while a run is in progress, whose guests see
// the tools they started with.
func (s *Sandbox) SetTools(tools []wire.ToolInfo) error {
	if tools == nil {
		tools = []wire.ToolInfo{} // a list: a method no tool has is refused
	}
	if err := s.lockIdle("set tools"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	dir := filepath.Join(s.base, "tools")
	// Files of the old list are removed first: a tool's file is named by
	// its place in the list, so none may be left to a later tool. The
	// directory itself stays (and exists even with no tools): instances
	// made before hold it open as a preopened directory.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("set tools: %w", err)
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("set tools: listing the old tool files: %w", err)
	}
	for _, e := range old {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("set tools: removing the old tool files: %w", err)
		}
	}
	guestTools, err := guestToolList(dir, tools)
	if err != nil {
		return fmt.Errorf("set tools: %w", err)
	}
	mounted := len(s.cfg.Mounts) > 0 && s.cfg.Mounts[0].Guest == ToolInfoMount
	remount := len(guestTools) > 0 && !mounted
	if remount {
		// The first mount, as NewSandbox places it; instances made
		// before lack it.
		s.cfg.Mounts = append([]Mount{{Host: dir, Guest: ToolInfoMount}}, s.cfg.Mounts...)
	}
	s.refreshInstances(remount)
	s.cfg.Tools = tools
	s.methods = toolMethods(tools)
	s.guestTools = guestTools
	return nil
}
