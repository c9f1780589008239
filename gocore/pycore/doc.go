// Package pycore is the one Go package built with gopy into the private
// Python extension amla_sandbox._core._pycore. Everything it exports crosses
// to Python, so it speaks only strings (JSON text), numbers, bools and int64
// handles and ids.
//
// Rules every export follows (boundary.go):
//   - it recovers from panics (a Go panic would abort the Python process);
//   - it never returns a bare error: gopy v0.4.10 leaks a C string per call
//     of such an export. An export that only acts returns a status string
//     ("" or the error); one that answers returns (value, error);
//   - its errors are JSON {"kind", "message"}, which the Python side maps to
//     the project's exceptions in one place (amla_sandbox/_core/__init__.py).
//
// A sandbox is one handle, made by one call (SandboxNew: guests, PCA,
// capability policy, cache, directory). Each run it starts has an id; the
// run operations take the id, and only the sandbox's current run answers.
//
// It holds no logic of its own beyond that: it decodes arguments, calls the
// host kernel, the compiled-guest cache or the capability engine, and
// encodes answers. It never lets a panic or a bare error cross to Python,
// never calls back into Python (Python pulls events and answers them), and
// no other Go package imports it.
package pycore
