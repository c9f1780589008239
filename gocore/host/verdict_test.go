package host

import (
	"testing"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/wire"
)

// A run's record of each call names what granted it, or the check and
// rule that refused it, and the approver's decision.
func TestToolCallRecordsNameTheirVerdict(t *testing.T) {
	one := int64(1)
	pol := capability.NewPolicy([]capability.MethodCapability{
		{MethodPattern: "mcp:pay", RequiresApproval: true},
		{MethodPattern: "mcp:t", MaxCalls: &one},
	})
	sb := newTestSandbox(t, Limits{}, pol)
	tests := []struct {
		name, code string
		approve    bool
		want       wire.ToolCall
	}{
		{"allowed", `call mcp:t {}`, false, wire.ToolCall{OK: true, Grant: "mcp:t"}},
		{"budget spent", `call mcp:t {}`, false, wire.ToolCall{Check: capability.CheckMaxCalls, Rule: "cap:tool-call:mcp:t"}},
		{"no capability", `call other {}`, false, wire.ToolCall{Check: capability.CheckCapability}},
		{"approved", `call mcp:pay {}`, true, wire.ToolCall{OK: true, Grant: "mcp:pay", Approval: wire.ApprovalApproved}},
		{"not approved", `call mcp:pay {}`, false, wire.ToolCall{Check: checkApproval, Approval: wire.ApprovalRefused}},
	}
	for _, tc := range tests {
		r := startDurable(t, sb, RunOptions{Language: "shell", Code: tc.code, Approvals: ApprovalAsk})
		res := driveAll(t, r, (&counting{}).answer, func(wire.Event) bool { return tc.approve })
		if len(res.ToolCalls) != 1 {
			t.Fatalf("%s: %d calls recorded, want 1: %+v", tc.name, len(res.ToolCalls), res)
		}
		c := res.ToolCalls[0]
		if c.OK != tc.want.OK || c.Grant != tc.want.Grant || c.Check != tc.want.Check || c.Rule != tc.want.Rule || c.Approval != tc.want.Approval {
			t.Errorf("%s: recorded ok=%v grant=%q check=%q rule=%q approval=%q, want %+v",
				tc.name, c.OK, c.Grant, c.Check, c.Rule, c.Approval, tc.want)
		}
		if c.StartedMS < 0 || c.StartedMS+c.DurationMS > res.DurationMS+1 {
			t.Errorf("%s: call started at %v ms for %v ms, in a run of %v ms", tc.name, c.StartedMS, c.DurationMS, res.DurationMS)
		}
	}
	// Paused for approval: the call the run stopped on is recorded pending.
	r := startDurable(t, sb, RunOptions{Language: "shell", Code: `call mcp:pay {}`, Record: true, Approvals: ApprovalPause})
	res := driveAll(t, r, (&counting{}).answer, nil)
	if res.ErrorKind != ErrKindApproval || len(res.ToolCalls) != 1 {
		t.Fatalf("pause: %+v", res)
	}
	if c := res.ToolCalls[0]; c.Approval != wire.ApprovalPending || c.Grant != "mcp:pay" || c.Check != checkApproval {
		t.Errorf("paused call recorded as %+v", c)
	}
}
