package capability

import "strings"

// Subsumes reports whether c (the parent) admits at least everything other
// (the child) admits, by the reference's rules (docs/capabilities.md, "Subsumption"), applied in this order:
//
//  1. both and: every part of c subsumes some part of other;
//  2. both or: every alternative of other is subsumed by some of c's;
//  3. c has a non-empty param field, other and: c subsumes any part;
//  4. c has a non-empty param field, other or: c subsumes every part;
//  5. otherwise both param names must be non-empty and equal, and the pair
//     of types must be one of the same-parameter rules.
//
// Rule 5 includes eq-versus-ordering pairs (eq ⊇ lt iff parent.value <
// child.value, ...), which the reference has and which is not a sound
// subsumption; it is reproduced as documented.
func (c Constraint) Subsumes(other Constraint) bool {
	switch {
	case c.Type == TypeAnd && other.Type == TypeAnd:
		for _, p := range c.Constraints {
			if !subsumesAny(p, other.Constraints) {
				return false
			}
		}
		return true
	case c.Type == TypeOr && other.Type == TypeOr:
		for _, ch := range other.Constraints {
			if !anySubsumes(c.Constraints, ch) {
				return false
			}
		}
		return true
	case c.Param != "" && other.Type == TypeAnd:
		return subsumesAny(c, other.Constraints)
	case c.Param != "" && other.Type == TypeOr:
		for _, ch := range other.Constraints {
			if !c.Subsumes(ch) {
				return false
			}
		}
		return true
	}

	pn, pok := c.ParamName()
	cn, cok := other.ParamName()
	if !pok || !cok || pn == "" || cn == "" || pn != cn {
		return false
	}
	pv, cv := mustNormalize(c.Value), mustNormalize(other.Value)
	switch c.Type {
	case TypeLT:
		return other.Type == TypeLT && lessOrEqual(cv, pv)
	case TypeLE:
		return (other.Type == TypeLE || other.Type == TypeEQ) && lessOrEqual(cv, pv)
	case TypeGT:
		return other.Type == TypeGT && lessOrEqual(pv, cv)
	case TypeGE:
		return (other.Type == TypeGE || other.Type == TypeEQ) && lessOrEqual(pv, cv)
	case TypeEQ:
		switch other.Type {
		case TypeEQ:
			return pyEqual(pv, cv)
		case TypeLT:
			return strictLess(pv, cv)
		case TypeLE:
			return lessOrEqual(pv, cv)
		case TypeGT:
			return strictLess(cv, pv)
		case TypeGE:
			return lessOrEqual(cv, pv)
		}
		return false
	case TypeNE:
		return other.Type == TypeNE && pyEqual(pv, cv)
	case TypeIn:
		return other.Type == TypeIn && allIn(other.Values, c.Values)
	case TypeNotIn:
		return other.Type == TypeNotIn && allIn(c.Values, other.Values)
	case TypeStartsWith:
		return other.Type == TypeStartsWith && strings.HasPrefix(other.Prefix, c.Prefix)
	case TypeEndsWith:
		return other.Type == TypeEndsWith && strings.HasSuffix(other.Suffix, c.Suffix)
	case TypeContains:
		return other.Type == TypeContains && strings.Contains(other.Substring, c.Substring)
	case TypeExists:
		return other.Type == TypeExists
	case TypeNotExists:
		return other.Type == TypeNotExists
	}
	return false
}

// subsumesAny: p subsumes at least one of cs.
func subsumesAny(p Constraint, cs []Constraint) bool {
	for _, ch := range cs {
		if p.Subsumes(ch) {
			return true
		}
	}
	return false
}

// anySubsumes: at least one of ps subsumes ch.
func anySubsumes(ps []Constraint, ch Constraint) bool {
	for _, p := range ps {
		if p.Subsumes(ch) {
			return true
		}
	}
	return false
}

// allIn: every element of sub equals some element of super.
func allIn(sub, super []any) bool {
	for _, v := range sub {
		if !containsValue(super, v) {
			return false
		}
	}
	return true
}
