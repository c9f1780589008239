package applets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"amlasandbox/gocore/decl"
	"amlasandbox/gocore/toolcat"
	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
	"amlasandbox/guests/shell/hostcall"
)

const toolUsage = `tool NAME [--PARAM VALUE]... | tool NAME --json '{...}' | tool --list [PREFIX] | tool --help NAME | tool --search WORDS | tool --describe NAME [--json]`

// toolSchema is the part of a JSON Schema the tool applet uses.
type toolSchema struct {
	Type                 json.RawMessage        `json:"type"`
	Description          string                 `json:"description"`
	Properties           map[string]*toolSchema `json:"properties"`
	Required             []string               `json:"required"`
	Items                *toolSchema            `json:"items"`
	AnyOf                []*toolSchema          `json:"anyOf"`
	OneOf                []*toolSchema          `json:"oneOf"`
	Enum                 []json.RawMessage      `json:"enum"`
	Default              json.RawMessage        `json:"default"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
}

// typeName is the schema's main type: the first non-null of "type" (a
// string or a list), else of anyOf/oneOf; "" when unknown.
func (s *toolSchema) typeName() string {
	if s == nil {
		return ""
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		return one
	}
	var many []string
	if json.Unmarshal(s.Type, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	for _, alt := range append(append([]*toolSchema{}, s.AnyOf...), s.OneOf...) {
		if t := alt.typeName(); t != "" && t != "null" {
			return t
		}
	}
	return ""
}

// toolApplet calls one of the sandbox's tools (docs/shell.md, "The `tool` applet"). Flags become
// parameters, coerced with the tool's input schema; the call goes through
// the host's capability checks as "mcp:NAME", and its JSON result is
// printed on one line.
func toolApplet(p *Proc, args []string) int {
	var tools []wire.ToolInfo
	if p.Tools != nil {
		tools = p.Tools.List()
	}
	if len(args) < 2 {
		return p.usage("tool", "missing tool name", toolUsage)
	}
	switch args[1] {
	case "--list", "-l", "list":
		filter := ""
		if len(args) > 2 {
			filter = args[2]
		}
		return toolList(p, fullTools(toolcat.Unique(tools)), filter)
	case "--search", "-s", "search":
		return toolSearch(p, fullTools(tools), strings.Join(args[2:], " "))
	case "--describe", "describe":
		asJSON := false
		var names []string
		for _, a := range args[2:] {
			if a == "--json" {
				asJSON = true
				continue
			}
			names = append(names, a)
		}
		if len(names) < 1 {
			return p.usage("tool", "--describe needs a tool name", toolUsage)
		}
		t, ok := findTool(tools, names[0])
		if !ok {
			return unknownTool(p, tools, names[0])
		}
		if asJSON {
			return toolDescribe(p, fullTool(t))
		}
		return toolDeclaration(p, fullTool(t))
	case "--help", "-h", "help":
		if len(args) < 3 {
			fmt.Fprintf(p.Stdout, "usage: %s\n", toolUsage)
			return 0
		}
		t, ok := findTool(tools, args[2])
		if !ok {
			return unknownTool(p, tools, args[2])
		}
		return toolHelp(p, fullTool(t))
	}
	name := args[1]
	if strings.HasPrefix(name, "-") {
		return p.usage("tool", "unknown option '"+name+"'", toolUsage)
	}
	t, ok := findTool(tools, name)
	if !ok {
		return unknownTool(p, tools, name)
	}
	t = fullTool(t)
	if len(args) > 2 && (args[2] == "--help" || args[2] == "-h") {
		return toolHelp(p, t)
	}
	schema := parseToolSchema(t.InputSchema)
	params, err := toolParams(schema, args[2:])
	if err != nil {
		p.errorf("tool", "%s: %s", name, err)
		fmt.Fprintf(p.Stderr, "Run 'tool --help %s' for its parameters.\n", name)
		return 2
	}
	var missing []string
	for _, req := range schema.Required {
		if _, ok := params[req]; !ok {
			missing = append(missing, "--"+req)
		}
	}
	if len(missing) > 0 {
		p.errorf("tool", "%s: missing required parameter(s): %s", name, strings.Join(missing, ", "))
		fmt.Fprintf(p.Stderr, "Run 'tool --help %s' for its parameters.\n", name)
		return 2
	}
	body, err := json.Marshal(params)
	if err != nil {
		p.errorf("tool", "%s: encoding parameters: %s", name, err)
		return 1
	}
	ans := hostapi.Call(p.Tools, t.MethodOf(), body)
	if !ans.OK {
		// The reference's text: "tool: <name> failed: <code>: <message>".
		p.errorf("tool", "%s failed: %s: %s", name, hostapi.FailureCode(ans), ans.Error)
		return 1
	}
	result := ans.Result
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, result); err != nil {
		compact.Reset()
		compact.Write(result)
	}
	compact.WriteByte('\n')
	if _, err := p.Stdout.Write(compact.Bytes()); err != nil {
		return p.writeFailed("tool", err)
	}
	return 0
}

// findTool looks a tool up by its registered name.
func findTool(tools []wire.ToolInfo, name string) (wire.ToolInfo, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return wire.ToolInfo{}, false
}

// fullTool is t with its description and input schema, read from its
// info file when the run's input left them out (wire.ToolInfo.Info); t as
// it is when the file cannot be read.
func fullTool(t wire.ToolInfo) wire.ToolInfo {
	if t.Info == "" {
		return t
	}
	b, err := hostcall.ReadToolInfo(t.Info)
	if err != nil {
		return t
	}
	var full wire.ToolInfo
	if json.Unmarshal(b, &full) != nil || full.Name != t.Name {
		return t
	}
	full.Info = ""
	return full
}

// fullTools is fullTool of every tool: what listing and searching read.
func fullTools(tools []wire.ToolInfo) []wire.ToolInfo {
	out := make([]wire.ToolInfo, len(tools))
	for i, t := range tools {
		out[i] = fullTool(t)
	}
	return out
}

// unknownTool reports a name that is not a registered tool (status 127,
// like a command that is not found).
func unknownTool(p *Proc, tools []wire.ToolInfo, name string) int {
	if len(tools) == 0 {
		p.errorf("tool", "unknown tool '%s': no tools are available in this sandbox", name)
		return 127
	}
	p.errorf("tool", "unknown tool '%s' (run 'tool --list' to see the available tools)", name)
	return 127
}

// toolList prints the tools whose names start with filter: one per line,
// the name then its description.
func toolList(p *Proc, tools []wire.ToolInfo, filter string) int {
	var shown []wire.ToolInfo
	for _, t := range tools {
		if strings.HasPrefix(t.Name, filter) {
			shown = append(shown, t)
		}
	}
	if len(shown) == 0 {
		if filter == "" {
			p.errorf("tool", "no tools are available in this sandbox")
			return 0
		}
		p.errorf("tool", "no tools match '%s'", filter)
		return 1
	}
	width := 0
	for _, t := range shown {
		width = max(width, len(t.Name))
	}
	var b strings.Builder
	for _, t := range shown {
		desc := toolcat.FirstLine(t.Description)
		if desc == "" {
			b.WriteString(t.Name + "\n")
			continue
		}
		fmt.Fprintf(&b, "%-*s  %s\n", width, t.Name, desc)
	}
	if _, err := io.WriteString(p.Stdout, b.String()); err != nil {
		return p.writeFailed("tool", err)
	}
	return 0
}

// toolHelp describes one tool and its parameters.
func toolHelp(p *Proc, t wire.ToolInfo) int {
	schema := parseToolSchema(t.InputSchema)
	var b strings.Builder
	b.WriteString(t.Name + "\n")
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString("  " + strings.ReplaceAll(d, "\n", "\n  ") + "\n")
	}
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	// Required parameters first, each group in name order.
	sort.SliceStable(names, func(i, j int) bool { return required[names[i]] && !required[names[j]] })
	fmt.Fprintf(&b, "\nusage: tool %s", t.Name)
	for _, n := range names {
		ty := schema.Properties[n].typeName()
		if ty == "" {
			ty = "value"
		}
		if required[n] {
			fmt.Fprintf(&b, " --%s %s", n, strings.ToUpper(ty))
		} else {
			fmt.Fprintf(&b, " [--%s %s]", n, strings.ToUpper(ty))
		}
	}
	fmt.Fprintf(&b, "\n       tool %s --json '{...}'\n", t.Name)
	if len(names) == 0 {
		b.WriteString("\nparameters: none\n")
	} else {
		b.WriteString("\nparameters:\n")
		width := 0
		for _, n := range names {
			width = max(width, len(n)+2)
		}
		for _, n := range names {
			prop := schema.Properties[n]
			ty := prop.typeName()
			if ty == "" {
				ty = "string"
			}
			req := "optional"
			if required[n] {
				req = "required"
			}
			line := fmt.Sprintf("  %-*s  %-8s %s", width, "--"+n, ty, req)
			if d := toolcat.FirstLine(prop.Description); d != "" {
				line += "  " + d
			}
			if len(prop.Enum) > 0 {
				var vals []string
				for _, e := range prop.Enum {
					vals = append(vals, string(e))
				}
				line += "  (one of " + strings.Join(vals, ", ") + ")"
			}
			if len(prop.Default) > 0 {
				line += "  (default " + string(prop.Default) + ")"
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	if _, err := io.WriteString(p.Stdout, b.String()); err != nil {
		return p.writeFailed("tool", err)
	}
	return 0
}

// parseToolSchema reads an input schema; a missing or odd one is empty.
func parseToolSchema(raw json.RawMessage) *toolSchema {
	s := &toolSchema{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, s)
	}
	if s.Properties == nil {
		s.Properties = map[string]*toolSchema{}
	}
	return s
}

// toolDeclaration prints one tool's shell declaration (tool --describe):
// its usage, description, parameters and the shape of what it prints, by
// the renderer the host uses for the system prompt (gocore/decl).
func toolDeclaration(p *Proc, t wire.ToolInfo) int {
	text, _, err := decl.NewSet([]decl.Tool{decl.FromWire(t)}).Declaration(wire.LangShell, t.Name)
	if err != nil {
		p.errorf("tool", "%s: %s", t.Name, err)
		return 1
	}
	if _, err := io.WriteString(p.Stdout, text); err != nil {
		return p.writeFailed("tool", err)
	}
	return 0
}

// toolDescribe prints one tool as JSON: its name, the method its calls
// are checked as, its description and its input schema (tool --describe
// --json).
func toolDescribe(p *Proc, t wire.ToolInfo) int {
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	out, err := json.MarshalIndent(struct {
		Name        string          `json:"name"`
		Method      string          `json:"method"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}{t.Name, t.MethodOf(), t.Description, schema}, "", "  ")
	if err != nil {
		p.errorf("tool", "%s: its schema is not valid JSON: %s", t.Name, err)
		return 1
	}
	out = append(out, '\n')
	if _, err := p.Stdout.Write(out); err != nil {
		return p.writeFailed("tool", err)
	}
	return 0
}

// toolSearch prints the tools that match the words of query, best first
// (tool --search), as the catalogue finds them (toolcat.Search): every
// word must be in a tool's name or description, ignoring case; one in the
// name counts more. At most 20 lines, then a count of the rest.
func toolSearch(p *Proc, tools []wire.ToolInfo, query string) int {
	if len(toolcat.Words(query)) == 0 {
		return p.usage("tool", "--search needs words to look for", toolUsage)
	}
	hits, err := toolcat.Search(tools, query, nil)
	if err != nil {
		return p.usage("tool", "--search: "+err.Error(), toolUsage)
	}
	if len(hits) == 0 {
		p.errorf("tool", "no tool matches '%s' (tool --list shows them all)", query)
		return 1
	}
	const most = 20
	width := 0
	for k, h := range hits {
		if k < most {
			width = max(width, len(h.Name))
		}
	}
	var b strings.Builder
	for k, h := range hits {
		if k == most {
			fmt.Fprintf(&b, "... and %d more (use more words)\n", len(hits)-most)
			break
		}
		fmt.Fprintf(&b, "%-*s  %s\n", width, h.Name, h.Description)
	}
	if _, err := io.WriteString(p.Stdout, b.String()); err != nil {
		return p.writeFailed("tool", err)
	}
	return 0
}

// toolParams turns the flags after the tool name into its parameters.
func toolParams(schema *toolSchema, args []string) (map[string]any, error) {
	params := map[string]any{}
	fromFlags := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || a == "--" {
			return nil, fmt.Errorf("unexpected argument '%s' (parameters are given as --NAME VALUE)", a)
		}
		flag, val, hasVal := strings.Cut(a[2:], "=")
		if flag == "json" {
			if !hasVal {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("--json needs a JSON object")
				}
				i++
				val = args[i]
			}
			var obj map[string]any
			dec := json.NewDecoder(strings.NewReader(val))
			dec.UseNumber()
			if err := dec.Decode(&obj); err != nil || obj == nil {
				return nil, fmt.Errorf("--json needs a JSON object, got %s", preview(val))
			}
			for k, v := range obj {
				if !fromFlags[k] {
					params[k] = v
				}
			}
			continue
		}
		name, prop := schemaProperty(schema, flag)
		ty := prop.typeName()
		if !hasVal {
			next := i+1 < len(args) && !(strings.HasPrefix(args[i+1], "--") && len(args[i+1]) > 2)
			switch {
			case ty == "boolean" && (!next || !isBoolText(args[i+1])):
				params[name], fromFlags[name] = true, true
				continue
			case !next && strings.HasPrefix(flag, "no-"):
				if n, pr := schemaProperty(schema, flag[3:]); pr.typeName() == "boolean" {
					params[n], fromFlags[n] = false, true
					continue
				}
				fallthrough
			case !next:
				return nil, fmt.Errorf("--%s needs a value", flag)
			}
			i++
			val = args[i]
		}
		v, err := coerce(prop, val)
		if err != nil {
			return nil, fmt.Errorf("--%s: %s", flag, err)
		}
		if ty == "array" {
			if prev, ok := params[name].([]any); ok && fromFlags[name] {
				// Repeated flags build the array.
				if arr, ok := v.([]any); ok {
					v = append(prev, arr...)
				}
			}
		}
		params[name], fromFlags[name] = v, true
	}
	return params, nil
}

// schemaProperty finds the property a flag names: exactly, or with '-' read
// as '_' (--user-id for user_id).
func schemaProperty(schema *toolSchema, flag string) (string, *toolSchema) {
	if p, ok := schema.Properties[flag]; ok {
		return flag, p
	}
	alt := strings.ReplaceAll(flag, "-", "_")
	if p, ok := schema.Properties[alt]; ok {
		return alt, p
	}
	return flag, nil
}

func isBoolText(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "1", "0", "on", "off":
		return true
	}
	return false
}

// coerce converts a flag value to the property's type.
func coerce(prop *toolSchema, val string) (any, error) {
	switch prop.typeName() {
	case "integer":
		if _, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64); err != nil {
			if f, ferr := strconv.ParseFloat(strings.TrimSpace(val), 64); ferr == nil && f == float64(int64(f)) {
				return json.Number(strconv.FormatInt(int64(f), 10)), nil
			}
			return nil, fmt.Errorf("expected an integer, got %s", preview(val))
		}
		return json.Number(strings.TrimSpace(val)), nil
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || !json.Valid([]byte(strings.TrimSpace(val))) {
			if err == nil {
				return f, nil
			}
			return nil, fmt.Errorf("expected a number, got %s", preview(val))
		}
		return json.Number(strings.TrimSpace(val)), nil
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(val)) {
		case "true", "yes", "1", "on":
			return true, nil
		case "false", "no", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("expected true or false, got %s", preview(val))
	case "array":
		var arr []any
		dec := json.NewDecoder(strings.NewReader(val))
		dec.UseNumber()
		if strings.HasPrefix(strings.TrimSpace(val), "[") {
			if err := dec.Decode(&arr); err != nil {
				return nil, fmt.Errorf("expected a JSON array, got %s", preview(val))
			}
			return arr, nil
		}
		// A single item: coerce it by the item schema.
		item, err := coerce(prop.Items, val)
		if err != nil {
			return nil, err
		}
		return []any{item}, nil
	case "object":
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(val))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, fmt.Errorf("expected a JSON object, got %s", preview(val))
		}
		return obj, nil
	case "null":
		return nil, nil
	}
	return val, nil
}

// preview quotes a value for an error message, shortened.
func preview(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return "'" + s + "'"
}
