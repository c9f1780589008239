package capability

import "strings"

// Method-name patterns (docs/capabilities.md, "Patterns"). Both methods and patterns are split
// on "/" only; the empty string has zero segments. A segment that is
// exactly "**" matches zero or more segments, exactly "*" matches one
// segment, anything else matches itself (case-sensitive, byte for byte:
// no normalisation of "..", case or Unicode).

func segments(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "/")
}

// Match reports whether method is matched in full by pattern.
//
// It runs in O(len(method segments) × len(pattern segments)) time and
// O(len(method segments)) memory whatever the input, so a hostile method
// name cannot make it backtrack exponentially.
func Match(method, pattern string) bool {
	m := segments(method)
	p := segments(pattern)
	// next[i] = pattern[j+1:] matches m[i:], computed column by column
	// from the end of the pattern.
	next := make([]bool, len(m)+1)
	cur := make([]bool, len(m)+1)
	next[len(m)] = true
	for j := len(p) - 1; j >= 0; j-- {
		switch p[j] {
		case "**":
			// Zero or more segments: cur[i] = OR over k >= i of next[k].
			acc := false
			for i := len(m); i >= 0; i-- {
				acc = acc || next[i]
				cur[i] = acc
			}
		case "*":
			for i := 0; i <= len(m); i++ {
				cur[i] = i < len(m) && next[i+1]
			}
		default:
			for i := 0; i <= len(m); i++ {
				cur[i] = i < len(m) && m[i] == p[j] && next[i+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// PatternIsSubset decides whether every method matched by child is also
// matched by parent, with the reference's exact (conservative) procedure:
//
//  1. both empty → true; parent empty, child not → false;
//  2. parent head "**": last parent segment → true; else true iff
//     subset(child[i:], parent[1:]) for some i in 0..len(child);
//  3. child empty → false;
//  4. child head "**" → false;
//  5. child head "*": parent head "*" → subset(rest, rest), else false;
//  6. child head literal: parent head "*" or an equal literal →
//     subset(rest, rest), else false.
//
// The recursion is evaluated bottom-up (a pure function of the two
// suffix positions), so it needs no stack and no exponential search.
func PatternIsSubset(child, parent string) bool {
	c := segments(child)
	p := segments(parent)
	// next[i] = subset(c[i:], p[j+1:]); start with p[len(p):] = empty.
	next := make([]bool, len(c)+1)
	cur := make([]bool, len(c)+1)
	next[len(c)] = true // rule 1 (both empty); others false (parent empty)
	for j := len(p) - 1; j >= 0; j-- {
		last := j == len(p)-1
		switch {
		case p[j] == "**" && last:
			for i := range cur {
				cur[i] = true
			}
		case p[j] == "**":
			acc := false
			for i := len(c); i >= 0; i-- {
				acc = acc || next[i]
				cur[i] = acc
			}
		default:
			for i := 0; i <= len(c); i++ {
				switch {
				case i == len(c): // rule 3
					cur[i] = false
				case c[i] == "**": // rule 4
					cur[i] = false
				case c[i] == "*": // rule 5
					cur[i] = p[j] == "*" && next[i+1]
				default: // rule 6
					cur[i] = (p[j] == "*" || p[j] == c[i]) && next[i+1]
				}
			}
		}
		next, cur = cur, next
	}
	return next[0]
}
