package capability

// ConstraintSet is the AND of its constraints, checked in order.
// The empty set admits everything.
type ConstraintSet []Constraint

// Evaluate returns the first constraint's error, or nil.
func (s ConstraintSet) Evaluate(params any) error {
	p, err := Normalize(params)
	if err != nil {
		return err
	}
	return s.evaluate(p)
}

func (s ConstraintSet) evaluate(params any) error {
	for _, c := range s {
		if err := c.evaluate(params); err != nil {
			return err
		}
	}
	return nil
}

// Subsumes reports whether s (the parent) admits everything child admits,
// by the documented rule: a child constraint none of whose params any
// parent constraint references is accepted (children may constrain new
// params); otherwise a simple child constraint needs a parent constraint
// with the same param name that subsumes it, and a composite one needs
// any parent constraint that subsumes it.
//
// As documented, a child that omits a parent's constraint is still
// accepted, so this is not a soundness check on its own.
func (s ConstraintSet) Subsumes(child ConstraintSet) bool {
	for _, cc := range child {
		if !s.referencesAny(cc.ReferencedParams()) {
			continue
		}
		name, simple := cc.ParamName()
		found := false
		for _, p := range s {
			if simple && name != "" {
				if pn, ok := p.ParamName(); !ok || pn != name {
					continue
				}
			}
			if p.Subsumes(cc) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (s ConstraintSet) referencesAny(params []string) bool {
	want := make(map[string]bool, len(params))
	for _, p := range params {
		want[p] = true
	}
	for _, c := range s {
		for _, r := range c.ReferencedParams() {
			if want[r] {
				return true
			}
		}
	}
	return false
}
