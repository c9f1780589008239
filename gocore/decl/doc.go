// Package decl renders the declarations of a sandbox's tools: from each
// tool's JSON Schema (its inputSchema, and an MCP tool's outputSchema when
// it has one) a TypeScript declaration for JavaScript and TypeScript
// scripts and a Python stub for Python scripts, so an agent is shown the
// exact call it can write. The host decides the text once; the system
// prompt, tools.describe in each guest, tool --describe and
// SandboxTool.get_tool_declarations show it.
//
// NewSet places a tool set; Set.TypeScript and Set.Python are the whole
// set as a .d.ts and a .pyi block, Set.Declaration one tool's (complete in
// itself), Set.Summary one line per tool for a prompt that names many
// tools (the rest on demand), Set.Call how a script calls one tool.
//
// # Names
//
// How a tool is reached follows the tool catalogue (gocore/toolcat), whose
// names the guests show: in JavaScript the part of a dotted name before
// the first dot is a namespace, so "github.create_issue" is "declare namespace github {
// function create_issue(input: CreateIssueInput): Promise<unknown>; }" and
// "stripe.charges.create" is stripe.charges_create; in Python every dot is
// a level of namespace, a class holding static methods ("class stripe:" /
// "class charges:" / "async def create"). "-", ":" and "/" become "_". A
// tool the guest cannot give a name of its own (its name is no identifier,
// is a reserved word, a builtin or the sandbox's own global, or an earlier
// tool took it; in Python also a name that is a namespace of other tools)
// is declared as an overload of callTool / call_tool, by which every tool
// is reachable. Types are named for the tool: <Name>Input, <Name>Output,
// <Name><Def> for a recursive $defs entry; Python's TypedDicts add the
// path of the member they type (GithubCreateIssueInputMilestone).
//
// # Python signatures
//
// A tool whose input is an object whose member names all are identifiers
// takes keyword-only arguments, required ones first; an optional one shows
// its default when the schema gives a JSON literal that fits its type, else
// "= ..."; other members (additionalProperties) come as **kwargs. A tool
// with a member name that is no identifier, a keyword or starts with "__"
// takes its whole input as one positional dict, typed by a TypedDict in the
// functional syntax (the guest accepts a dict the same way), and so does a
// tool whose input is no object. Tools are "async def", as the guest's
// calls can be awaited; the result is Any (TypeScript: unknown) without an
// output schema (a bare dict would be wrong for a list or a string, and
// pyright --strict refuses a bare dict). Python has no intersection type:
// allOf of objects merges into one object, other intersections take their
// first part. Parameter and member documentation goes in the docstring's
// Args section and attribute docstrings.
//
// # What it must never do
//
// Fail, hang or grow without bound on a schema: a schema that is not JSON,
// too deep, too large, cyclic, or refers where it cannot be followed
// renders as unknown (Any) with a note in the tool's documentation saying
// why. Write text that tsc --strict or pyright --strict rejects, whatever
// the names and descriptions hold (documentation cannot close its comment
// or docstring). Depend on map order (the same tools give the same bytes).
// Import the host (wasmtime, cgo) or a guest, do I/O, or follow a $ref
// outside the schema it is in (no network, no files).
package decl
