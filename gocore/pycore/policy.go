package pycore

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// A sandbox's capability policy, as the Python Runtime reads and changes
// it: the same Policy decides the script's calls and can_call, so both
// spend one budget table.

// SandboxCheckCall decides a call without spending budget: "" when
// allowed, else why not (a closed sandbox allows nothing).
func SandboxCheckCall(h int64, method, paramsJSON string) (out string) {
	defer func() {
		if p := recover(); p != nil {
			out = fmt.Sprintf("internal error (Go panic): %v", p)
		}
	}()
	e, ok := sandboxes.get(h)
	if !ok {
		return host.ErrClosed.Error()
	}
	if err := e.policy.Check(method, json.RawMessage(paramsJSON)); err != nil {
		return err.Error()
	}
	return ""
}

// SandboxSetCapabilities replaces the capability list (a JSON list of
// capability dicts); budgets are kept. It returns a status.
func SandboxSetCapabilities(h int64, capsJSON string) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		caps, err := capability.ParseCapabilities([]byte(capsJSON))
		if err != nil {
			return newError(kindInvalid, "capabilities: %v", err)
		}
		e.policy.SetCapabilities(caps)
		return nil
	})
}

// SandboxRemaining is the budget left for key (in either format,
// "cap:method:<p>" or "cap:tool-call:<p>"), or -1 when the key has no
// budget (unknown or unlimited) or the sandbox is closed.
func SandboxRemaining(h int64, key string) (n int64) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	e, err := sandboxOf(h)
	if err != nil {
		return -1
	}
	left, tracked := e.policy.Remaining(key)
	if !tracked {
		return -1
	}
	return left
}

// SandboxCounts is the budget table as a JSON object {key: remaining}, in
// capability-list order, each key in its capability's own format ("{}"
// for a closed sandbox).
func SandboxCounts(h int64) (out string) {
	defer func() {
		if recover() != nil {
			out = "{}"
		}
	}()
	e, err := sandboxOf(h)
	if err != nil {
		return "{}"
	}
	return countsJSON(e.policy.Counts())
}

// countsJSON writes counts as a JSON object, keeping their order.
func countsJSON(counts []capability.Count) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range counts {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(c.Key)
		b.Write(k)
		b.WriteString(": ")
		b.WriteString(strconv.FormatInt(c.Remaining, 10))
	}
	b.WriteByte('}')
	return b.String()
}

// SandboxSetCapabilitiesBudgeted replaces the capability list of sandbox
// h and gives each new limited pattern its budget (budgets already kept
// stay as they are); it returns a status.
func SandboxSetCapabilitiesBudgeted(h int64, capsJSON string) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		caps, err := capability.ParseCapabilities([]byte(capsJSON))
		if err != nil {
			return newError(kindInvalid, "capabilities: %v", err)
		}
		e.policy.SetCapabilitiesBudgeted(caps)
		return nil
	})
}

// SandboxSetTools replaces the sandbox's tools with toolsJSON (a JSON list
// of tools, as SandboxNew's tools_json); it returns a status. The
// capability policy is unchanged. Refused while a run is in progress.
func SandboxSetTools(h int64, toolsJSON string) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		var tools []wire.ToolInfo
		if err := json.Unmarshal([]byte(toolsJSON), &tools); err != nil {
			return newError(kindInvalid, "tools_json is not a valid JSON list of tools: %v", err)
		}
		return e.sb.SetTools(tools)
	})
}
