package shell

import (
	"fmt"
	"regexp"
	"strings"
)

// compileERE compiles the right side of [[ =~ ]] as bash does: a POSIX
// extended regular expression (glibc's), matched leftmost-longest. Go's
// RE2 engine runs it after a translation of what the two dialects write
// differently: a backslash inside brackets is literal, \w \W \s \S \< \>
// are glibc's extensions, and any other escaped character (\d, \.) is
// that character. Back-references cannot be translated and are refused.
func compileERE(expr string, nocase bool) (*regexp.Regexp, error) {
	var b strings.Builder
	if nocase {
		b.WriteString("(?i)")
	}
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '[':
			end := bracketEnd(expr, i)
			if end < 0 {
				return nil, fmt.Errorf("%s: unbalanced [ in regular expression", expr)
			}
			b.WriteString(strings.ReplaceAll(expr[i:end+1], `\`, `\\`))
			i = end
		case c == '\\' && i+1 < len(expr):
			i++
			e := expr[i]
			switch {
			case e == 'w':
				b.WriteString(`[0-9A-Za-z_]`)
			case e == 'W':
				b.WriteString(`[^0-9A-Za-z_]`)
			case e == 's':
				b.WriteString(`[[:space:]]`)
			case e == 'S':
				b.WriteString(`[^[:space:]]`)
			case e == 'b', e == 'B':
				b.WriteByte('\\')
				b.WriteByte(e)
			case e == '<', e == '>':
				b.WriteString(`\b`)
			case e >= '1' && e <= '9':
				return nil, fmt.Errorf("%s: back-references (\\%c) in =~ are not supported", expr, e)
			default:
				b.WriteString(regexp.QuoteMeta(string(e)))
			}
		default:
			b.WriteByte(c)
		}
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("%s: invalid regular expression", expr)
	}
	re.Longest()
	return re, nil
}

// bracketEnd finds the ] closing the bracket expression at i ([]a], [^]a]
// and [[:alpha:]] included); -1 if none.
func bracketEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		if s[j] == '[' && j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '.' || s[j+1] == '=') {
			close := strings.Index(s[j+2:], string(s[j+1])+"]")
			if close < 0 {
				return -1
			}
			j += 2 + close + 2
			continue
		}
		if s[j] == ']' {
			return j
		}
		j++
	}
	return -1
}
