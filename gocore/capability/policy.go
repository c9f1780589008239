package capability

import (
	"encoding/json"
	"strings"
	"sync"
)

// Policy authorises the calls of one sandbox (§2.7): an ordered list of
// capabilities and a budget table keyed by capability key. It is safe for
// concurrent use; a decision and the budget it spends happen under one
// lock, so two concurrent calls cannot both spend the last unit.
//
// Policy satisfies the host package's Authorizer interface.
type Policy struct {
	mu        sync.Mutex
	caps      []MethodCapability
	remaining map[string]int64
}

// NewPolicy copies caps and builds the budget table: one entry per key of
// a limited capability, set by the last limited capability with that key.
// A negative max_calls is a budget of zero.
func NewPolicy(caps []MethodCapability) *Policy {
	p := &Policy{caps: append([]MethodCapability(nil), caps...), remaining: map[string]int64{}}
	for _, c := range caps {
		if c.MaxCalls != nil {
			p.remaining[c.Key()] = max(*c.MaxCalls, 0)
		}
	}
	return p
}

// SetCapabilities replaces the capability list; the budget table is kept
// as it is (keys it lacks are unlimited), as when Python code assigns
// Runtime._capabilities.
func (p *Policy) SetCapabilities(caps []MethodCapability) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.caps = append([]MethodCapability(nil), caps...)
}

// Capabilities returns a copy of the capability list.
func (p *Policy) Capabilities() []MethodCapability {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]MethodCapability(nil), p.caps...)
}

// Remaining returns the budget left for key; ok is false when the key has
// no budget (unknown or unlimited).
func (p *Policy) Remaining(key string) (n int64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok = p.remaining[key]
	return n, ok
}

// Counts returns a snapshot of the budget table.
func (p *Policy) Counts() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.remaining))
	for k, v := range p.remaining {
		out[k] = v
	}
	return out
}

// Authorize decides a call and, when it is allowed, spends one unit of
// the budget of the capability that allowed it. params is the call's JSON
// text; text that is not valid JSON, or JSON that is not an object, is a
// call whose every parameter is absent (§2.2.1).
func (p *Policy) Authorize(method string, params json.RawMessage) error {
	return p.decide(method, params, true)
}

// Check decides a call like Authorize without spending budget (can_call).
func (p *Policy) Check(method string, params json.RawMessage) error {
	return p.decide(method, params, false)
}

// AuthorizeValue and CheckValue take already decoded parameters.
func (p *Policy) AuthorizeValue(method string, params any) error {
	return p.decideValue(method, func() any { return mustNormalize(params) }, true)
}

// CheckValue is Check for decoded parameters.
func (p *Policy) CheckValue(method string, params any) error {
	return p.decideValue(method, func() any { return mustNormalize(params) }, false)
}

func (p *Policy) decide(method string, params json.RawMessage, consume bool) error {
	return p.decideValue(method, func() any {
		v, err := ParseJSON(params)
		if err != nil {
			return nil // not a dict: every parameter is absent
		}
		return v
	}, consume)
}

type constraintFailure struct {
	pattern string
	message string
	cause   error
}

// decideValue runs the procedure of §2.7. Params are decoded only if a
// capability with constraints matches.
func (p *Policy) decideValue(method string, load func() any, consume bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()

	var (
		params    any
		loaded    bool
		failures  []constraintFailure
		exhausted *CallLimitExceededError
	)
	for _, c := range p.caps {
		if !Match(method, c.MethodPattern) {
			continue
		}
		if len(c.Constraints) > 0 {
			if !loaded {
				params, loaded = load(), true
			}
			if err := c.Constraints.evaluate(params); err != nil {
				if _, ok := err.(ConstraintError); !ok {
					return err // unknown constraint type: a configuration error
				}
				failures = append(failures, constraintFailure{c.MethodPattern, err.Error(), err})
				continue
			}
		}
		key := c.Key()
		if left, tracked := p.remaining[key]; tracked {
			if left <= 0 {
				if exhausted == nil {
					var limit int64
					if c.MaxCalls != nil {
						limit = *c.MaxCalls
					}
					exhausted = &CallLimitExceededError{CapabilityKey: key, MaxCalls: limit}
				}
				continue
			}
			if consume {
				p.remaining[key] = left - 1
			}
		}
		return nil
	}

	switch {
	case exhausted != nil:
		return exhausted
	case len(failures) == 1:
		f := failures[0]
		return &CapabilityError{
			Message: "Method '" + method + "' matched pattern '" + f.pattern + "' but failed constraint check: " + f.message,
			Cause:   f.cause,
		}
	case len(failures) > 1:
		parts := make([]string, len(failures))
		for i, f := range failures {
			parts[i] = "'" + f.pattern + "': " + f.message
		}
		return &CapabilityError{
			Message: "Method '" + method + "' matched patterns but failed constraint checks: " + strings.Join(parts, "; "),
			Cause:   failures[0].cause,
		}
	}
	patterns := make([]string, len(p.caps))
	for i, c := range p.caps {
		patterns[i] = c.MethodPattern
	}
	return &CapabilityError{
		Message: "No capability authorizes method '" + method + "'. Available patterns: " + reprStrings(patterns),
	}
}
