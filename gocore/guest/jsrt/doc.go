// Package jsrt runs JavaScript inside the WASM guest: goja, our own event
// loop, and the prelude that gives scripts their globals (API.md §3.2,
// §3.6, §4): console, fs, shell, one async function per tool, listTools,
// getToolInfo, __tools__, callTool, timers, and polyfills for what goja
// lacks (deviation #8).
//
// A run is Run(code, Options). The code becomes the body of an immediately
// invoked async function; tool calls are submitted to a hostapi.Tools the
// moment a script makes them and waited for only when the script has
// nothing else to do, so calls issued together reach the host together;
// the run ends when the script's promise has settled and nothing it
// started (a tool call, a timeout) is still pending.
//
// What a script sees, and the choices made where the spec is silent:
//
//   - Output: console.log/info/debug write stdout, error/warn/trace stderr,
//     one write per call. Objects print Node-like ({ a: 1, b: [ 1, 2 ] });
//     the exact shape is not a contract. The resolved value prints once:
//     strings raw, everything else as compact JSON. An uncaught error
//     prints "<Name>: <message>" and a Node-style stack ("    at f
//     (script.js:3:5)", user line numbers, at most 10 frames).
//   - Syntax errors print "SyntaxError: <message> (line L, column C)" with
//     the source line and a caret, positions in the user's code. What goja
//     cannot parse (async generators, for await, import) gets a message
//     that says so and what to write instead.
//   - Timers run in real time and in due order. Once the script's promise
//     has settled, only pending tool calls and ref'd timeouts keep the run
//     going; intervals do not (a forgotten setInterval would otherwise run
//     until the host's timeout).
//   - Rejections nobody handled by the end of the run are printed as
//     "Uncaught (in promise) ..." and make the exit status 1, as do errors
//     thrown by timer callbacks; a script whose promise can never settle
//     ends with a message and status 1.
//   - Tools: see JSName and the tools section of prelude.js for names and
//     collisions (the first tool registered keeps an identifier; prelude
//     globals and builtins are never shadowed; callTool reaches all).
//   - fs calls return Promises and fail with Node's error codes and
//     messages; relative paths resolve against /workspace; the *Sync names
//     throw and say which call to await instead. stat().isFile and
//     isDirectory are boolean properties (API.md pins it).
//   - Deep recursion throws a catchable RangeError (recursion.go).
//
// The package never decides what a script may do. Tool calls are checked
// by the host's capability engine, files are confined by WASI preopens,
// time and memory are limited by the host. Here we only make those
// outcomes look like JavaScript.
//
// Everything runs on the caller's goroutine. Tests run natively with
// hostapi.Fake and a temporary directory as Options.Root; the same tests
// pass when the test binary is built for wasip1 and run under wasmtime.
package jsrt
