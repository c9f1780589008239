package hostapi

import (
	"encoding/json"
	"errors"
	"sync"

	"amlasandbox/gocore/wire"
)

// Fake is an in-process Tools for native tests: Handler answers each call
// when it is awaited. Submitted requests are recorded in Calls.
type Fake struct {
	ToolList []wire.ToolInfo
	// Handler returns the JSON result or an error message for one call.
	Handler func(method string, params json.RawMessage) (json.RawMessage, error)

	mu      sync.Mutex
	nextID  int64
	pending map[int64]wire.ToolRequest
	// Calls records every submitted request in order.
	Calls []wire.ToolRequest
	// Batches records how many requests were pending each time Next was
	// entered, so tests can check that calls issued together were queued together.
	Batches []int
}

func (f *Fake) List() []wire.ToolInfo { return f.ToolList }

func (f *Fake) Submit(method string, params json.RawMessage) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil {
		f.pending = map[int64]wire.ToolRequest{}
	}
	f.nextID++
	req := wire.ToolRequest{Method: method, Params: params}
	f.pending[f.nextID] = req
	f.Calls = append(f.Calls, req)
	return f.nextID
}

// CodedError lets a Fake handler fail with a code other than internal,
// e.g. wire.CodePermissionDenied to stand for a capability denial.
type CodedError struct {
	Code    string
	Message string
}

func (e *CodedError) Error() string { return e.Message }

func (f *Fake) Next(ids []int64) wire.ToolAnswer {
	f.mu.Lock()
	f.Batches = append(f.Batches, len(f.pending))
	var id int64
	var req wire.ToolRequest
	for _, want := range ids {
		if r, ok := f.pending[want]; ok {
			id, req = want, r
			delete(f.pending, want)
			break
		}
	}
	f.mu.Unlock()
	if id == 0 {
		return wire.ToolAnswer{Error: "no such pending call"}
	}
	if f.Handler == nil {
		return wire.ToolAnswer{ID: id, Code: wire.CodeInternal, Error: "No handler for tool call: " + req.Method}
	}
	res, err := f.Handler(req.Method, req.Params)
	if err != nil {
		code := wire.CodeInternal
		var coded *CodedError
		if errors.As(err, &coded) {
			code = coded.Code
		}
		return wire.ToolAnswer{ID: id, Code: code, Error: err.Error()}
	}
	return wire.ToolAnswer{ID: id, OK: true, Result: res}
}
