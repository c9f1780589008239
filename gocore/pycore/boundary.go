package pycore

import (
	"encoding/json"
	"errors"
	"fmt"

	"amlasandbox/gocore/host"
)

// Errors cross to Python as JSON text {"kind": ..., "message": ...}:
//
//   - an export whose only job is to act returns a status string, "" on
//     success and the error's JSON otherwise. None returns a bare error:
//     gopy v0.4.10 hands a bare error's C string to Python without ever
//     freeing it (about 32 bytes per call, success or not), while a string
//     result is freed after Python copies it;
//   - an export that returns (T, error) keeps that shape (gopy frees its
//     error text); the error's text is the same JSON, which gopy raises as
//     RuntimeError.
//
// Python turns the kind into the project's exception in one place
// (amla_sandbox/_core/__init__.py, _raise); the message is shown as it is.

// errorKind says what went wrong, for Python to pick the exception.
type errorKind string

const (
	kindClosed   errorKind = "closed"    // the handle was closed (or never existed)
	kindNoRun    errorKind = "no_run"    // the sandbox has not started a run
	kindStaleRun errorKind = "stale_run" // the run id is not the sandbox's current run
	kindInvalid  errorKind = "invalid"   // an argument is malformed (Python: ValueError)
	kindOverflow errorKind = "overflow"  // a number is out of range (Python: OverflowError)
	kindRuntime  errorKind = "runtime"   // the operation failed (Python: amla_sandbox.RuntimeError)
	kindInternal errorKind = "internal"  // a Go panic: a bug
)

// boundaryError is an error as Python receives it.
type boundaryError struct {
	Kind    errorKind `json:"kind"`
	Message string    `json:"message"`
}

func (e *boundaryError) Error() string {
	b, err := json.Marshal(e)
	if err != nil { // cannot happen for two strings; keep the message anyway
		return fmt.Sprintf(`{"kind": %q, "message": %q}`, kindInternal, e.Message)
	}
	return string(b)
}

func newError(kind errorKind, format string, args ...any) *boundaryError {
	return &boundaryError{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// crossing gives err the shape Python receives: a *boundaryError as it is,
// a closed sandbox as kindClosed, anything else as kindRuntime.
func crossing(err error) error {
	if err == nil {
		return nil
	}
	var be *boundaryError
	if errors.As(err, &be) {
		return be
	}
	if errors.Is(err, host.ErrClosed) {
		return &boundaryError{Kind: kindClosed, Message: err.Error()}
	}
	return &boundaryError{Kind: kindRuntime, Message: err.Error()}
}

// guard is deferred by every export that can fail: a panic becomes a
// kindInternal error (a Go panic would abort the Python process) and any
// error is put in the shape Python receives.
func guard(err *error) {
	if p := recover(); p != nil {
		*err = newError(kindInternal, "internal error (Go panic): %v", p)
		return
	}
	*err = crossing(*err)
}

// status runs f for an export that returns a status string: "" when f
// succeeds, else the error as Python receives it.
func status(f func() error) string {
	var err error
	func() {
		defer guard(&err)
		err = f()
	}()
	if err == nil {
		return ""
	}
	return err.Error()
}
