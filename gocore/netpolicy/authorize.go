package netpolicy

import (
	"strconv"
	"strings"

	"amlasandbox/gocore/capability"
)

// Decision is an allowed request: the rule that allowed it and whether
// that rule asks for a human's approval before the request is made.
type Decision struct {
	Rule            *Rule
	RequireApproval bool
}

// Authorize decides a prepared request by the allow rules, in order: the
// first rule that matches it (verb, scheme, host, port, path), whose
// constraints hold and whose max_calls is not spent allows it and spends
// one call of that rule's budget. Nothing matching is a refusal by the
// "allow" check; matching rules whose constraints fail, by "constraint"
// (naming the first such rule and the failed constraint); matching rules
// that are all spent, by "max_calls". Requests allowed here may be
// executed; others never are.
func (p *Policy) Authorize(r *Prepared) (*Decision, error) {
	if r == nil || r.policy != p {
		return nil, refuse(CheckNotAllowed, "", "", "the request was not prepared by this policy")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var (
		failed    *Refusal
		exhausted *Refusal
	)
	for i, rule := range p.Rules {
		if !rule.matches(r) {
			continue
		}
		if err := rule.Constraints.Evaluate(r.params); err != nil {
			if failed == nil {
				failed = refuse(CheckConstraint, rule.Text, r.URL, constraintReason(err))
			}
			continue
		}
		if rule.MaxCalls != nil && p.used[i] >= *rule.MaxCalls {
			if exhausted == nil {
				exhausted = refuse(CheckMaxCalls, rule.Text, r.URL,
					"the rule's max_calls ("+strconv.FormatInt(*rule.MaxCalls, 10)+") is spent")
			}
			continue
		}
		p.used[i]++
		r.rule = rule
		r.authorized.Store(true)
		return &Decision{Rule: rule, RequireApproval: rule.RequireApproval}, nil
	}
	switch {
	case failed != nil:
		return nil, failed
	case exhausted != nil:
		return nil, exhausted
	}
	return nil, refuse(CheckAllow, "", r.Verb+" "+r.URL, "no rule allows this request; rules: "+p.ruleList())
}

func constraintReason(err error) string {
	if _, unknown := err.(*capability.UnknownTypeError); unknown {
		return "the rule has a constraint of unknown type: " + err.Error()
	}
	return err.Error()
}

func (p *Policy) ruleList() string {
	if len(p.Rules) == 0 {
		return "none (the allow list is empty)"
	}
	var b strings.Builder
	for i, r := range p.Rules {
		if i == 8 {
			b.WriteString(", ... (" + strconv.Itoa(len(p.Rules)-8) + " more)")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strings.TrimPrefix(r.Text, "allow["+strconv.Itoa(i)+"] "))
	}
	return b.String()
}

// CallsLeft is what is left of each rule's max_calls, in rule order; -1
// for a rule without a budget.
func (p *Policy) CallsLeft() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int64, len(p.Rules))
	for i, r := range p.Rules {
		if r.MaxCalls == nil {
			out[i] = -1
		} else {
			out[i] = max(*r.MaxCalls-p.used[i], 0)
		}
	}
	return out
}

// Permit marks a prepared request allowed by a grant outside the policy's
// rules (a capability of the sandbox whose method pattern names HTTP
// explicitly, which the host checks), so that Executor.Do will make it.
// The floor's checks on the request itself have passed in Prepare; the
// address, secret and limit checks still apply in Do.
func (p *Policy) Permit(r *Prepared) error {
	if r == nil || r.policy != p {
		return refuse(CheckNotAllowed, "", "", "the request was not prepared by this policy")
	}
	r.authorized.Store(true)
	return nil
}

// RuleBudgetPrefix starts the key under which a rule's max_calls budget
// travels in snapshots and journals, next to the capabilities' budgets:
// "net:" followed by the rule's Text ("allow[0] GET https://h/**").
const RuleBudgetPrefix = "net:"

// RuleBudgets is the calls left of each rule with a max_calls, by key.
func (p *Policy) RuleBudgets() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int64{}
	for i, r := range p.Rules {
		if r.MaxCalls != nil {
			out[RuleBudgetPrefix+r.Text] = max(*r.MaxCalls-p.used[i], 0)
		}
	}
	return out
}

// CapRuleBudgets lowers each rule's calls left to at most the value left
// gives under its key (RuleBudgets), so a restored snapshot never grants
// more calls than it had left. Other keys are ignored; a rule the map does
// not name keeps its budget.
func (p *Policy) CapRuleBudgets(left map[string]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, r := range p.Rules {
		if r.MaxCalls == nil {
			continue
		}
		if n, ok := left[RuleBudgetPrefix+r.Text]; ok {
			p.used[i] = max(p.used[i], *r.MaxCalls-max(n, 0))
		}
	}
}
