package wire

// A guest's tools.search asks the host, which ranks the tools once for
// every guest (gocore/toolcat): the guest submits (tool_submit) a
// ToolRequest of method MethodToolSearch whose Params are a ToolSearch,
// and the host answers it at once, OK with a []ToolHit, best first. It is
// not a tool call: no capability is asked, it does not count against the
// run's tool calls and is not among the calls a run reports.
const MethodToolSearch = "tools_search"

// ToolSearch is what a guest searches the tools for: words, split on
// white space; "" matches every tool.
type ToolSearch struct {
	Query string `json:"query"`
}

// ToolHit is one tool found by a search: its registered name and the
// first line of its description.
type ToolHit struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}
