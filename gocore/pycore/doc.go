// Package pycore is the one Go package built with gopy into the private
// Python module amla_sandbox._core.pycore. Everything it exports crosses to
// Python, so it speaks only strings (JSON text), numbers, bools and int64
// handles, and every exported function recovers from panics (a Go panic
// would abort the Python process).
//
// It holds no logic of its own: it decodes arguments, calls the host kernel
// or the capability engine, and encodes answers.
package pycore
