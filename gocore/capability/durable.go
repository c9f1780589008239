package capability

import (
	"encoding/json"
	"strings"
)

// What durable sessions need of a Policy: the budgets a snapshot carries,
// restoring them without ever granting more, and whether an allowed call
// needs a human's approval.

// BudgetsLeft returns the calls left per budget, each under its reported
// key ("cap:tool-call:<pattern>" or "cap:method:<pattern>").
func (p *Policy) BudgetsLeft() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.budgets))
	for _, pattern := range p.order {
		b := p.budgets[pattern]
		out[b.key] = b.left
	}
	return out
}

// CapBudgets lowers each budget named in left (by key, in either format)
// to at most the value given, so restoring a snapshot never grants more
// calls than it had left. A key whose pattern this policy does not limit
// gets a budget of its own with that value: the snapshot's limit holds
// even where the new capabilities are unlimited. A key that is not a
// budget key at all is ignored. Negative values count as zero.
func (p *Policy) CapBudgets(left map[string]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, n := range left {
		pattern, ok := PatternOfKey(key)
		if !ok {
			continue
		}
		n = max(n, 0)
		b, tracked := p.budgets[pattern]
		if !tracked {
			p.budgets[pattern] = &budget{left: n, key: key}
			p.order = append(p.order, pattern)
			continue
		}
		b.left = min(b.left, n)
	}
}

// AuthorizeCall is Authorize that also tells whether the capability that
// allowed the call requires approval before its handler runs. The budget
// is spent at the check, approved or not: approval narrows what a
// capability allows, it never adds calls.
func (p *Policy) AuthorizeCall(method string, params json.RawMessage) (needsApproval bool, err error) {
	c, err := p.decideCap(method, func() any {
		v, err := ParseJSON(params)
		if err != nil {
			return nil
		}
		return v
	}, true, "")
	if err != nil {
		return false, err
	}
	return c.RequiresApproval, nil
}

// AuthorizeExplicit is AuthorizeCall restricted to the capabilities whose
// method pattern starts with prefix, literally: a call of a kind that only
// an explicit grant may open (an HTTP request, prefix "http/") is never
// allowed by a pattern that matches everything, such as "**" or "*/**".
// It reports whether any capability has such a pattern.
func (p *Policy) AuthorizeExplicit(prefix, method string, params json.RawMessage) (needsApproval, explicit bool, err error) {
	p.mu.Lock()
	for _, c := range p.caps {
		if strings.HasPrefix(c.MethodPattern, prefix) {
			explicit = true
			break
		}
	}
	p.mu.Unlock()
	if !explicit {
		return false, false, nil
	}
	c, err := p.decideCap(method, func() any {
		v, err := ParseJSON(params)
		if err != nil {
			return nil
		}
		return v
	}, true, prefix)
	if err != nil {
		return false, true, err
	}
	return c.RequiresApproval, true, nil
}

// ExplicitPatterns are the method patterns of the capabilities that start
// with prefix, literally, in order.
func (p *Policy) ExplicitPatterns(prefix string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, c := range p.caps {
		if strings.HasPrefix(c.MethodPattern, prefix) {
			out = append(out, c.MethodPattern)
		}
	}
	return out
}
