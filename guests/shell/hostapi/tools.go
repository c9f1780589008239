package hostapi

import (
	"encoding/json"

	"amlasandbox/gocore/wire"
)

// Tools lets guest code call the tools the sandbox was given. Every call is
// checked by the host's capability engine before any handler runs; a denial
// comes back as a not-OK answer with the denial message.
type Tools interface {
	// List returns the registered tools in registration order.
	List() []wire.ToolInfo
	// Submit queues a call of method ("mcp:<tool name>") and returns its id
	// at once. Calls submitted together are seen by the host together.
	Submit(method string, params json.RawMessage) int64
	// Next blocks until the answer to one of ids is in and returns it.
	// Answers to other ids that arrive meanwhile are kept for later.
	Next(ids []int64) wire.ToolAnswer
}

// Call submits one call and waits for its answer.
func Call(t Tools, method string, params json.RawMessage) wire.ToolAnswer {
	id := t.Submit(method, params)
	return t.Next([]int64{id})
}

// FailureCode is the code of a failed answer: the host's (permission_denied,
// internal, invalid_request, cancelled), or internal when there is none
// (a failure inside the guest's own plumbing).
func FailureCode(a wire.ToolAnswer) string {
	if a.Code == "" {
		return wire.CodeInternal
	}
	return a.Code
}
