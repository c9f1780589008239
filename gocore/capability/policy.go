package capability

import (
	"encoding/json"
	"strings"
	"sync"
)

// Policy authorises the calls of one sandbox (docs/capabilities.md, "Budgets"): an ordered list of
// capabilities and a budget table. It is safe for concurrent use; a
// decision and the budget it spends happen under one lock, so two
// concurrent calls cannot both spend the last unit.
//
// Budgets are kept per pattern, so a "method" and a "tool-call"
// capability with the same pattern share one counter (docs/compatibility.md, D4).
// Each budget is reported under the key of the last limited capability
// with its pattern (the one that set the counter), and looked up by a key
// in either format.
//
// Policy satisfies the host package's Authorizer interface.
type Policy struct {
	mu      sync.Mutex
	caps    []MethodCapability
	budgets map[string]*budget // by pattern
	order   []string           // patterns, in the order their budgets were created
	grants  []string           // PCA-granted patterns; nil: no PCA restriction
}

type budget struct {
	left int64
	key  string // the reported key
}

// Count is one row of the budget table: a key in its reported format and
// the calls left.
type Count struct {
	Key       string
	Remaining int64
}

// NewPolicy copies caps and builds the budget table: one entry per
// pattern of a limited capability, set by the last limited capability
// with that pattern. A negative max_calls is a budget of zero.
func NewPolicy(caps []MethodCapability) *Policy {
	p := &Policy{caps: append([]MethodCapability(nil), caps...), budgets: map[string]*budget{}}
	for _, c := range caps {
		if c.MaxCalls == nil {
			continue
		}
		b, ok := p.budgets[c.MethodPattern]
		if !ok {
			b = &budget{}
			p.budgets[c.MethodPattern] = b
			p.order = append(p.order, c.MethodPattern)
		}
		b.left, b.key = max(*c.MaxCalls, 0), c.Key()
	}
	return p
}

// SetCapabilities replaces the capability list; the budget table is kept
// as it is (patterns it lacks are unlimited), as when Python code assigns
// Runtime._capabilities.
func (p *Policy) SetCapabilities(caps []MethodCapability) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.caps = append([]MethodCapability(nil), caps...)
}

// SetCapabilitiesBudgeted replaces the capability list, as
// SetCapabilities does, and gives each pattern of a limited capability
// that the budget table lacks a budget of its max_calls (set by the last
// limited capability with that pattern, as NewPolicy does). Budgets the
// table has are kept: calls spent stay spent, whatever the new list says.
func (p *Policy) SetCapabilitiesBudgeted(caps []MethodCapability) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.caps = append([]MethodCapability(nil), caps...)
	fresh := map[string]bool{}
	for _, c := range caps {
		if c.MaxCalls == nil {
			continue
		}
		b, ok := p.budgets[c.MethodPattern]
		if !ok {
			b = &budget{}
			p.budgets[c.MethodPattern] = b
			p.order = append(p.order, c.MethodPattern)
			fresh[c.MethodPattern] = true
		}
		if fresh[c.MethodPattern] {
			b.left, b.key = max(*c.MaxCalls, 0), c.Key()
		}
	}
}

// SetGrants restricts the policy to the methods a PCA grants: when
// patterns is non-nil, a call whose method matches none of them is denied
// before any capability is consulted. nil lifts the restriction; an
// empty, non-nil list denies every call.
func (p *Policy) SetGrants(patterns []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if patterns == nil {
		p.grants = nil
		return
	}
	p.grants = append([]string{}, patterns...)
}

// Capabilities returns a copy of the capability list.
func (p *Policy) Capabilities() []MethodCapability {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]MethodCapability(nil), p.caps...)
}

// Remaining returns the budget left for key, which may be in either
// format ("cap:method:<p>" or "cap:tool-call:<p>"); ok is false when the
// key has no budget (unknown, unlimited or not a key at all).
func (p *Policy) Remaining(key string) (n int64, ok bool) {
	pattern, isKey := PatternOfKey(key)
	if !isKey {
		return 0, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.budgets[pattern]
	if !ok {
		return 0, false
	}
	return b.left, true
}

// Counts returns a snapshot of the budget table in capability-list order,
// each budget under its reported key.
func (p *Policy) Counts() []Count {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Count, len(p.order))
	for i, pattern := range p.order {
		b := p.budgets[pattern]
		out[i] = Count{Key: b.key, Remaining: b.left}
	}
	return out
}

// Authorize decides a call and, when it is allowed, spends one unit of
// the budget of the capability that allowed it. params is the call's JSON
// text; text that is not valid JSON, or JSON that is not an object, is a
// call whose every parameter is absent (docs/capabilities.md, "Parameter paths").
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

// decideValue runs the procedure of docs/capabilities.md, "Budgets". Params are decoded only if a
// capability with constraints matches.
func (p *Policy) decideValue(method string, load func() any, consume bool) error {
	_, err := p.decideCap(method, load, consume, "")
	return err
}

// decideCap is decideValue that also returns the capability that allowed
// the call (nil when it was refused). With a non-empty prefix only the
// capabilities whose method pattern starts with prefix, literally, are
// tried (explicit grants: see AuthorizeExplicit).
func (p *Policy) decideCap(method string, load func() any, consume bool, prefix string) (*MethodCapability, error) {
	p.mu.Lock()
	defer p.mu.Unlock()

	if p.grants != nil && !matchesAny(method, p.grants) {
		return nil, &CapabilityError{
			Message: "PCA does not grant method '" + method + "'. Granted patterns: " + reprStrings(p.grants),
			Check:   CheckPCA,
		}
	}

	var (
		params    any
		loaded    bool
		failures  []constraintFailure
		exhausted *CallLimitExceededError
	)
	for _, c := range p.caps {
		if !strings.HasPrefix(c.MethodPattern, prefix) || !Match(method, c.MethodPattern) {
			continue
		}
		if len(c.Constraints) > 0 {
			if !loaded {
				params, loaded = load(), true
			}
			if err := c.Constraints.evaluate(params); err != nil {
				if _, ok := err.(ConstraintError); !ok {
					return nil, err // unknown constraint type: a configuration error
				}
				failures = append(failures, constraintFailure{c.MethodPattern, err.Error(), err})
				continue
			}
		}
		if b, tracked := p.budgets[c.MethodPattern]; tracked {
			if b.left <= 0 {
				if exhausted == nil {
					var limit int64
					if c.MaxCalls != nil {
						limit = *c.MaxCalls
					}
					// The exhausted capability's own key, whichever
					// capability's key the budget is reported under.
					exhausted = &CallLimitExceededError{CapabilityKey: c.Key(), MaxCalls: limit}
				}
				continue
			}
			if consume {
				b.left--
			}
		}
		return &c, nil
	}

	switch {
	case exhausted != nil:
		return nil, exhausted
	case len(failures) == 1:
		f := failures[0]
		return nil, &CapabilityError{
			Message: "Method '" + method + "' matched pattern '" + f.pattern + "' but failed constraint check: " + f.message,
			Cause:   f.cause,
			Check:   CheckConstraint,
			Pattern: f.pattern,
		}
	case len(failures) > 1:
		parts := make([]string, len(failures))
		for i, f := range failures {
			parts[i] = "'" + f.pattern + "': " + f.message
		}
		return nil, &CapabilityError{
			Message: "Method '" + method + "' matched patterns but failed constraint checks: " + strings.Join(parts, "; "),
			Cause:   failures[0].cause,
			Check:   CheckConstraint,
			Pattern: failures[0].pattern,
		}
	}
	patterns := make([]string, 0, len(p.caps))
	for _, c := range p.caps {
		if strings.HasPrefix(c.MethodPattern, prefix) {
			patterns = append(patterns, c.MethodPattern)
		}
	}
	return nil, &CapabilityError{
		Message: "No capability authorizes method '" + method + "'. Available patterns: " + reprStrings(patterns),
		Check:   CheckCapability,
	}
}

func matchesAny(method string, patterns []string) bool {
	for _, pat := range patterns {
		if Match(method, pat) {
			return true
		}
	}
	return false
}
