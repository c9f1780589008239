// Package typescript turns a TypeScript script into JavaScript the
// sandbox's JavaScript guest (QuickJS-NG) runs, with esbuild's transform
// API: types are stripped; enums, namespaces, parameter properties and
// decorators are lowered; ES2023 syntax is kept as it is.
//
// The script runs as the body of an async function (the guest wraps it),
// so top-level await and top-level return both work. The output keeps each
// statement on the line it had in the source, and where it can its column
// too (layout.go), so the guest's stack traces point at the user's own
// lines without a source map at run time.
//
// Input is checked against MaxSourceBytes and MaxNesting before esbuild
// sees it: esbuild's parser recurses once per level of nesting, and a
// 100,000-deep expression costs it hundreds of megabytes of stack.
//
// It never runs the script, never reads or writes a file and never calls
// Python or a guest: source text comes in and JavaScript text (or an error
// naming the line) goes out. It never imports the host (wasmtime, cgo).
package typescript
