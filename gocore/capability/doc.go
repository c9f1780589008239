// Package capability decides whether a tool call is allowed: method-name
// patterns, parameter constraints, constraint sets, method capabilities and
// the per-sandbox Policy with its call budgets (docs/capabilities.md).
//
// One capability type serves both versions of the Python API
// (docs/compatibility.md, D1-D4): its Kind says whether Python built a MethodCapability
// (0.1.7, keys "cap:method:<pattern>") or a ToolCallCap (0.2.8, keys
// "cap:tool-call:<pattern>"). Budgets are per pattern; each is reported
// under the key of the capability that set it and found by a key in either
// format. A Policy can also be narrowed to the patterns a PCA grants
// (SetGrants).
//
// The documented behaviour is that of a Python library, so this package
// reproduces Python semantics where they are visible: JSON is decoded the
// way Python's json.loads decodes it (ints stay ints, of any size; NaN and
// Infinity are accepted; objects keep their key order), values compare with
// Python equality (1 == 1.0 == True), and error messages embed Python repr()
// of values ('GBP', 5000.0, ['USD', 'EUR']).
//
// It must stay dependency-free: no cgo, no wasmtime, no import of the host
// package. Policy satisfies host.Authorizer structurally. Nothing here may
// crash on hostile input: parameter JSON of any nesting depth is walked
// without recursion, and every path a sandboxed script controls (method
// names, parameters) is bounded in time by its size.
package capability
