package applets

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// regexSyntax selects how a pattern is read by grep and sed.
type regexSyntax int

const (
	basicRE    regexSyntax = iota // POSIX BRE with GNU extensions (\| \+ \?)
	extendedRE                    // POSIX ERE (grep -E, sed -E)
)

// toRE2 translates a POSIX regular expression into Go's RE2 syntax:
// BRE's \( \) \{ \} \| \+ \? become operators and their bare forms
// literals; \< and \> become \b; bracket expressions keep POSIX meaning
// (a backslash inside brackets is literal). Back-references have no RE2
// equivalent and are reported as errors.
func toRE2(pat string, syn regexSyntax) (string, error) {
	var b strings.Builder
	// atStart is true where '*' is literal and '^' an anchor in a BRE.
	atStart := true
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		wasStart := atStart
		atStart = false
		switch c {
		case '\\':
			if i+1 == len(pat) {
				return "", fmt.Errorf("trailing backslash (\\)")
			}
			i++
			d := pat[i]
			switch {
			case d >= '1' && d <= '9':
				return "", fmt.Errorf("back-references (\\%c) are not supported", d)
			case d == '<' || d == '>':
				b.WriteString(`\b`)
			case d == '`':
				b.WriteString(`\A`)
			case d == '\'':
				b.WriteString(`\z`)
			case syn == basicRE && strings.IndexByte("(){}|+?", d) >= 0:
				b.WriteByte(d)
				atStart = d == '(' || d == '|'
			case strings.IndexByte("wWsSbB", d) >= 0:
				b.WriteByte('\\')
				b.WriteByte(d)
			case d == 'n':
				b.WriteString(`\n`)
			case d == 't':
				b.WriteString(`\t`)
			default:
				b.WriteString(regexp.QuoteMeta(string(d)))
			}
		case '[':
			end, class, err := bracketExpr(pat, i)
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i = end
		case '*':
			if wasStart {
				b.WriteString(`\*`)
			} else {
				b.WriteByte('*')
			}
		case '^':
			if syn == basicRE && !wasStart {
				b.WriteString(`\^`)
			} else {
				b.WriteByte('^')
				atStart = true
			}
		case '$':
			if syn == basicRE && i+1 < len(pat) && !strings.HasPrefix(pat[i+1:], `\)`) && !strings.HasPrefix(pat[i+1:], `\|`) {
				b.WriteString(`\$`)
			} else {
				b.WriteByte('$')
			}
		case '(', ')', '|', '+', '?', '{', '}':
			if syn == basicRE {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			switch c {
			case '(', '|':
				atStart = true
			case '+', '?':
				if wasStart {
					b.WriteByte('\\')
				}
			case '{':
				if wasStart || !validInterval(pat[i:]) {
					b.WriteByte('\\')
				}
			case '}':
				// A '}' that closes no interval is a literal.
				if !closesInterval(pat[:i]) {
					b.WriteByte('\\')
				}
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// validInterval reports whether s starts with a POSIX interval {n}, {n,} or
// {n,m}.
func validInterval(s string) bool {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return false
	}
	body := s[1:end]
	lo, hi, comma := strings.Cut(body, ",")
	if !isDigits(lo) {
		return false
	}
	return !comma || hi == "" || isDigits(hi)
}

// closesInterval reports whether the text before a '}' ends with a valid
// interval opening.
func closesInterval(before string) bool {
	open := strings.LastIndexByte(before, '{')
	return open >= 0 && validInterval(before[open:]+"}")
}

// bracketExpr converts the bracket expression starting at pat[i] == '['.
// It returns the index of its closing ']' and the RE2 class.
func bracketExpr(pat string, i int) (end int, class string, err error) {
	var b strings.Builder
	b.WriteByte('[')
	j := i + 1
	if j < len(pat) && pat[j] == '^' {
		b.WriteByte('^')
		j++
	}
	first := true
	for ; j < len(pat); j++ {
		c := pat[j]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return j, b.String(), nil
		case c == ']':
			b.WriteString(`\]`)
		case c == '[' && j+1 < len(pat) && (pat[j+1] == ':' || pat[j+1] == '=' || pat[j+1] == '.'):
			kind := pat[j+1]
			close := strings.Index(pat[j+2:], string(kind)+"]")
			if close < 0 {
				return 0, "", fmt.Errorf("unterminated character class")
			}
			name := pat[j+2 : j+2+close]
			if kind == ':' {
				b.WriteString("[:" + name + ":]")
			} else {
				b.WriteString(regexp.QuoteMeta(name))
			}
			j += close + 3
		case c == '\\' || c == '[':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		first = false
	}
	return 0, "", fmt.Errorf("unmatched [, [^, [:, [., or [=")
}

// compileRE compiles a POSIX pattern, case-insensitively when icase.
func compileRE(pat string, syn regexSyntax, icase bool) (*regexp.Regexp, error) {
	re2, err := toRE2(pat, syn)
	if err != nil {
		return nil, err
	}
	if icase {
		re2 = "(?i)" + re2
	}
	re, err := regexp.Compile(re2)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression '%s': %s", pat, reErrText(err))
	}
	return re, nil
}

// reErrText shortens Go's regexp error to its reason.
func reErrText(err error) string {
	if e, ok := err.(*syntax.Error); ok {
		return string(e.Code)
	}
	return err.Error()
}
