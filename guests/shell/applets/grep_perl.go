package applets

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/dlclark/regexp2/syntax"
)

// grep -P: Perl-compatible patterns on a backtracking engine (regexp2, in
// its RE2-compatible mode so \d and \w are ASCII as in GNU grep 3.8 and
// (?P<name>...) works). Lookahead, lookbehind (any length), atomic groups,
// back-references, lazy quantifiers and \K are what Go's RE2 lacks and
// scripts use -P for. regexp2 has no \K, so \K becomes an empty named
// group whose position is where the reported match starts; \Q...\E is
// quoted here too. Possessive quantifiers (a++) and a few rarer PCRE
// forms are not supported and fail to compile with regexp2's message.

// perlKGroup names the group that stands for \K.
const perlKGroup = "amlaK"

// translatePCRE rewrites the PCRE forms regexp2 lacks: \K outside a
// bracket expression and \Q...\E. It reports whether \K occurred, and
// refuses possessive quantifiers, which regexp2 would misreport.
func translatePCRE(pat string) (string, bool, error) {
	var b strings.Builder
	hasK := false
	inClass := false
	// quant is true right after a quantifier (*, +, ?, {n,m}).
	quant := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		wasQuant := quant
		quant = false
		if !inClass {
			switch {
			case c == '+' && wasQuant:
				return "", false, fmt.Errorf("possessive quantifiers (%s) are not supported: write an atomic group such as (?>a+)", pat[max(0, i-2):i+1])
			case c == '?' && wasQuant:
				// The lazy marker: "a+?" is one quantifier.
				b.WriteByte(c)
				continue
			case c == '*' || c == '+' || c == '}' || c == '?' && b.Len() > 0 && !strings.HasSuffix(b.String(), "("):
				quant = true
			}
		}
		switch {
		case c == '\\' && i+1 < len(pat):
			d := pat[i+1]
			switch {
			case d == 'Q':
				end := strings.Index(pat[i+2:], `\E`)
				lit := pat[i+2:]
				next := len(pat)
				if end >= 0 {
					lit = pat[i+2 : i+2+end]
					next = i + 2 + end + 2
				}
				if inClass {
					for _, r := range lit {
						if strings.ContainsRune(`\]^-[`, r) {
							b.WriteByte('\\')
						}
						b.WriteRune(r)
					}
				} else {
					b.WriteString(regexp2.Escape(lit))
				}
				i = next - 1
			case d == 'K' && !inClass:
				b.WriteString("(?<" + perlKGroup + ">)")
				hasK = true
				i++
			default:
				b.WriteByte(c)
				b.WriteByte(d)
				i++
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' first in the class (after an optional '^') is literal.
			if i+1 < len(pat) && pat[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pat) && pat[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '[' && inClass && i+1 < len(pat) && pat[i+1] == ':':
			// [:alpha:] inside a class.
			end := strings.Index(pat[i:], ":]")
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(pat[i : i+end+2])
			i += end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), hasK, nil
}

// perlMatcher compiles the one pattern grep -P takes (GNU grep refuses
// several) into a lineMatcher honouring -i -w -x and, for -o, \K.
func (o *grepOptions) perlMatcher() (lineMatcher, error) {
	if len(o.patterns) != 1 {
		return nil, fmt.Errorf("the -P option only supports a single pattern")
	}
	expr, hasK, err := translatePCRE(o.patterns[0])
	if err != nil {
		return nil, fmt.Errorf("invalid Perl regular expression '%s': %s", o.patterns[0], err)
	}
	if o.wholeWord {
		expr = `(?<!\w)(?:` + expr + `)(?!\w)`
	}
	if o.wholeLine {
		expr = `^(?:` + expr + `)$`
	}
	opts := regexp2.RegexOptions(regexp2.RE2)
	if o.icase {
		opts |= regexp2.IgnoreCase
	}
	re, err := regexp2.Compile(expr, opts)
	if err != nil {
		reason := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			reason = string(se.Code)
			if len(se.Args) > 0 {
				reason = fmt.Sprintf(reason, se.Args...)
			}
		}
		return nil, fmt.Errorf("invalid Perl regular expression '%s': %s", o.patterns[0], reason)
	}
	if !o.only {
		hit := [][]int{{0, 0}}
		return func(line string) [][]int {
			ok, err := re.MatchRunes([]rune(line))
			if err != nil || !ok {
				return nil
			}
			return hit
		}, nil
	}
	return func(line string) [][]int {
		runes := []rune(line)
		// offsets[k] is the byte offset of rune k (an invalid byte is one
		// rune, U+FFFD, as the conversion above makes it).
		offsets := make([]int, 0, len(runes)+1)
		for i := range line {
			offsets = append(offsets, i)
		}
		offsets = append(offsets, len(line))
		var found [][]int
		m, err := re.FindRunesMatch(runes)
		for m != nil && err == nil {
			start, end := m.Index, m.Index+m.Length
			if hasK {
				if g := m.GroupByName(perlKGroup); g != nil && len(g.Captures) > 0 {
					start = g.Captures[len(g.Captures)-1].Index
				}
			}
			if start > end {
				start = end
			}
			found = append(found, []int{offsets[start], offsets[end]})
			m, err = re.FindNextMatch(m)
		}
		return found
	}, nil
}
