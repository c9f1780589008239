package wire

import "encoding/json"

// Kinds of Event: what a run tells its driver (Python) when asked for its
// next step.
const (
	// EventRequest is a tool call for the driver to answer by id.
	EventRequest = "request"
	// EventOutput is a chunk of output (only when streaming was asked for).
	EventOutput = "output"
	// EventWaiting means the script is blocked on the answers to IDs, all
	// of which the driver has already been handed.
	EventWaiting = "waiting"
	// EventBusy means nothing happened within the step's timeout: the
	// script is computing (or sleeping).
	EventBusy = "busy"
	// EventDone carries the finished run's Result.
	EventDone = "done"
)

// Event is one answer to "what next?" about a run.
type Event struct {
	Kind   string          `json:"kind"`
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Stream string          `json:"stream,omitempty"` // "stdout" or "stderr"
	Data   string          `json:"data,omitempty"`
	IDs    []int64         `json:"ids,omitempty"`
	Result *Result         `json:"result,omitempty"`
	// OutputApart says the Result's Stdout and Stderr were left out of
	// this event, to be fetched as they are (not as JSON text), which
	// saves escaping and re-parsing megabytes of output.
	OutputApart bool `json:"output_apart,omitempty"`
}

// Kinds of a failed Result.
const (
	ErrKindTimeout   = "timeout"   // the run's time budget ran out
	ErrKindMemory    = "memory"    // a guest needed more than its memory limit
	ErrKindCancelled = "cancelled" // the driver cancelled the run (or closed the sandbox)
	ErrKindRuntime   = "runtime"   // anything else that ended the run abnormally
)

// ToolCall records one tool call of a run. Params is the call's JSON when
// it is small, otherwise a JSON string previewing it (ParamsTruncated).
type ToolCall struct {
	ID              int64           `json:"id"`
	Method          string          `json:"method"`
	Params          json.RawMessage `json:"params"`
	ParamsTruncated bool            `json:"params_truncated,omitempty"`
	OK              bool            `json:"ok"`
	Code            string          `json:"code,omitempty"`
	Error           string          `json:"error,omitempty"`
	DurationMS      float64         `json:"duration_ms"`
	// StartedMS is when the script made the call, in milliseconds from
	// the run's start.
	StartedMS float64 `json:"started_ms"`
	// Grant names what allowed the call: the method pattern of the
	// capability, or the text of the network policy's allow rule (empty
	// when it was refused before or by the grant).
	Grant string `json:"grant,omitempty"`
	// Check names what refused the call ("capability", "constraint",
	// "max_calls", "pca", "approval", "request", "memory_limit", or a
	// network policy check), and Rule the rule it applied when there is
	// one (a capability pattern or key, a network rule's text). Empty for
	// a call the host let through (its handler may still have failed it).
	Check string `json:"check,omitempty"`
	Rule  string `json:"rule,omitempty"`
	// Approval is the approver's decision on a call whose grant requires
	// one (Approval*); empty when it requires none.
	Approval string `json:"approval,omitempty"`
}

// Approval decisions on a call (ToolCall.Approval).
const (
	ApprovalApproved   = "approved"    // the approver allowed it
	ApprovalRefused    = "refused"     // the approver refused it
	ApprovalNoApprover = "no_approver" // it requires approval and nobody can give it
	ApprovalPending    = "pending"     // the run paused on it (a durable run's token)
)

// Result is a finished run.
type Result struct {
	Stdout          string     `json:"stdout"`
	Stderr          string     `json:"stderr"`
	ExitCode        int        `json:"exit_code"`
	DurationMS      float64    `json:"duration_ms"`
	PeakMemoryBytes int64      `json:"peak_memory_bytes"`
	ToolCalls       []ToolCall `json:"tool_calls"`
	// ReturnValue is the script's value as JSON (FnReturnValue); absent
	// when it gave none, or the run failed.
	ReturnValue json.RawMessage `json:"return_value,omitempty"`
	ErrorKind   string          `json:"error_kind,omitempty"`
	Error       string          `json:"error,omitempty"`
	// StateReset is set when the sandbox keeps its interpreters' state
	// (keep_state) and this run's instance was discarded: it ended by a
	// trap, the memory limit, a timeout or a cancellation, so the next run
	// of its language starts fresh. Stderr ends with a line saying so.
	StateReset bool `json:"state_reset,omitempty"`
}
