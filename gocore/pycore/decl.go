package pycore

import (
	"encoding/json"
	"strconv"
	"strings"

	"amlasandbox/gocore/decl"
	"amlasandbox/gocore/wire"
)

// The declarations of a sandbox's tools (SandboxTool.get_tool_declarations
// and the system prompt), rendered from the tool list Python registers
// (ToolDefinition.to_dict(), a JSON list of wire.ToolInfo) by the same
// renderer the host uses for the guests' tool files, so that the prompt
// and tools.describe show the same text. Neither needs a sandbox.

// declSet reads a tool list and checks the language.
func declSet(toolsJSON, language string) (*decl.Set, error) {
	known := false
	for _, l := range decl.Languages() {
		known = known || l == language
	}
	if !known {
		return nil, newError(kindInvalid, "no declarations for language %s (there are for %s)",
			strconv.Quote(language), strings.Join(decl.Languages(), ", "))
	}
	var tools []wire.ToolInfo
	if err := json.Unmarshal([]byte(toolsJSON), &tools); err != nil {
		return nil, newError(kindInvalid, "tools_json is not a valid JSON list of tools: %v", err)
	}
	in := make([]decl.Tool, len(tools))
	for i, t := range tools {
		in[i] = decl.FromWire(t)
	}
	return decl.NewSet(in), nil
}

// RenderDeclarations is the declarations of the tools of toolsJSON for
// language ("javascript" or "typescript": TypeScript; "python": Python
// stubs; "shell": the tool applet's usage): of every tool when namesJSON
// is "" or "null", else of the tools a JSON list of names gives, in the
// tools' order (a name that is no tool is an invalid error).
func RenderDeclarations(toolsJSON, language, namesJSON string) (out string, err error) {
	defer guard(&err)
	set, err := declSet(toolsJSON, language)
	if err != nil {
		return "", err
	}
	if s := strings.TrimSpace(namesJSON); s == "" || s == "null" {
		return set.Declarations(language)
	}
	var names []string
	if err := json.Unmarshal([]byte(namesJSON), &names); err != nil {
		return "", newError(kindInvalid, "names must be a list of tool names: %v", err)
	}
	text, missing, err := set.Some(language, names)
	if err != nil {
		return "", err
	}
	if len(missing) > 0 {
		quoted := make([]string, len(missing))
		for i, m := range missing {
			quoted[i] = strconv.Quote(m)
		}
		return "", newError(kindInvalid, "no tool named %s in this sandbox (its tools: %d)", strings.Join(quoted, ", "), set.Len())
	}
	return text, nil
}

// RenderToolSummary is one line per tool of toolsJSON for language: how a
// script calls it and the first line of its description (the prompt of
// a large tool set).
func RenderToolSummary(toolsJSON, language string) (out string, err error) {
	defer guard(&err)
	set, err := declSet(toolsJSON, language)
	if err != nil {
		return "", err
	}
	return set.Summary(language), nil
}
