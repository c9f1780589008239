// Package decl renders the declarations of a sandbox's tools: from each
// tool's JSON Schema (its inputSchema, and an MCP tool's outputSchema when
// it has one) a TypeScript declaration for JavaScript and TypeScript
// scripts and a Python stub for Python scripts, so an agent is shown the
// exact call it can write ("github.create_issue(input: CreateIssueInput):
// Promise<unknown>", "async def create_issue(*, owner: str, ...) -> Any").
// The host decides the text once; the system prompt, tools.describe in
// each guest, tool --describe and SandboxTool.get_tool_declarations show it.
//
// How a tool is reached follows the guests' own rules (the JavaScript and
// Python preludes): in JavaScript the part of a dotted name before the
// first dot is a namespace ("declare namespace github { function
// create_issue(...) }"), in Python every dot is a level of namespace
// ("class github:" holding "@staticmethod async def create_issue"). A tool
// that its guest cannot give a name of its own (the name is no identifier,
// is a reserved word or builtin, or an earlier tool took it) is declared as
// an overload of callTool / call_tool, by which every tool is reachable.
//
// In Python, a tool whose parameters all are identifiers takes keyword-only
// arguments (required ones first, defaults only where the schema gives a
// JSON literal that fits the type); a tool with a parameter that is not an
// identifier, or is a keyword, takes the whole input as one positional dict
// typed by a TypedDict in the functional syntax, which the guest accepts
// the same way.
//
// The output is deterministic (the same tools give the same bytes) and is
// valid for tsc --strict and pyright --strict whatever the schemas say.
//
// It must never fail, hang or grow without bound on a schema: a schema that
// is not JSON, too deep, too large, cyclic or refers where it cannot be
// followed renders as unknown (Any) with a note saying why. It must never
// import the host (wasmtime, cgo) or a guest, never do I/O, and never
// follow a $ref outside the schema it is in (no network, no files).
package decl
