package applets

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

const trUsage = "tr [-cds] SET1 [SET2]"

// trApplet translates, deletes (-d) or squeezes (-s) characters of stdin.
// Sets understand ranges (a-z), classes ([:digit:]), [c*n] repeats and
// escapes (\n \t \\ \NNN). An argument is an option only if every letter of
// it is one: tr '-_' '  ' translates dashes and underscores.
func trApplet(p *Proc, args []string) int {
	var complement, del, squeeze bool
	rest := args[1:]
	for len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if strings.Trim(a[1:], "cCds") != "" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'c', 'C':
				complement = true
			case 'd':
				del = true
			case 's':
				squeeze = true
			}
		}
		rest = rest[1:]
	}
	need := 2
	if del && !squeeze || squeeze && len(rest) == 1 {
		need = 1
	}
	if len(rest) < need {
		return p.usage("tr", "missing operand", trUsage)
	}
	if len(rest) > need {
		return p.usage("tr", fmt.Sprintf("extra operand '%s'", rest[need]), trUsage)
	}
	set1, err := parseTrSet(rest[0])
	if err != nil {
		p.errorf("tr", "%s", err)
		return 1
	}
	var set2 []rune
	if need == 2 {
		if set2, err = parseTrSet(rest[1]); err != nil {
			p.errorf("tr", "%s", err)
			return 1
		}
	}
	in1 := map[rune]bool{}
	for _, r := range set1 {
		in1[r] = true
	}
	inSet1 := func(r rune) bool { return in1[r] != complement }

	translate := map[rune]rune{}
	if !del && len(set2) > 0 && !complement {
		for i, r := range set1 {
			to := set2[len(set2)-1]
			if i < len(set2) {
				to = set2[i]
			}
			translate[r] = to
		}
	}
	var squeezeSet map[rune]bool
	if squeeze {
		squeezeSet = map[rune]bool{}
		src := set1
		if len(set2) > 0 {
			src = set2
		}
		for _, r := range src {
			squeezeSet[r] = true
		}
	}
	inSqueeze := func(r rune) bool {
		if len(set2) == 0 && !del {
			return inSet1(r)
		}
		return squeezeSet[r]
	}

	br := bufio.NewReader(p.Stdin)
	out := bufio.NewWriter(p.Stdout)
	last, haveLast := rune(0), false
	for {
		r, _, err := br.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			p.errorf("tr", "read error: %s", ErrText(err))
			return 1
		}
		switch {
		case del && inSet1(r):
			continue
		case !del && len(set2) > 0 && inSet1(r):
			if complement {
				r = set2[len(set2)-1]
			} else {
				r = translate[r]
			}
		}
		if squeeze && haveLast && r == last && inSqueeze(r) {
			continue
		}
		last, haveLast = r, true
		if _, err := out.WriteRune(r); err != nil {
			return p.writeFailed("tr", err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("tr", err)
	}
	return 0
}

// trClasses are the POSIX classes tr understands, in code point order.
var trClasses = map[string]func(rune) bool{
	"alpha":  unicode.IsLetter,
	"digit":  func(r rune) bool { return r >= '0' && r <= '9' },
	"alnum":  func(r rune) bool { return unicode.IsLetter(r) || r >= '0' && r <= '9' },
	"upper":  unicode.IsUpper,
	"lower":  unicode.IsLower,
	"space":  unicode.IsSpace,
	"blank":  func(r rune) bool { return r == ' ' || r == '\t' },
	"punct":  func(r rune) bool { return r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r) },
	"cntrl":  unicode.IsControl,
	"print":  func(r rune) bool { return r >= 32 && r < 127 },
	"graph":  func(r rune) bool { return r > 32 && r < 127 },
	"xdigit": func(r rune) bool { return isHex(byte(r)) && r < 128 },
}

// parseTrSet expands a tr set into its characters, in order.
func parseTrSet(s string) ([]rune, error) {
	src := []rune(s)
	var out []rune
	// char reads one possibly escaped character at i.
	char := func(i int) (rune, int) {
		if src[i] != '\\' || i+1 >= len(src) {
			return src[i], i + 1
		}
		switch c := src[i+1]; c {
		case 'n':
			return '\n', i + 2
		case 't':
			return '\t', i + 2
		case 'r':
			return '\r', i + 2
		case 'a':
			return '\a', i + 2
		case 'b':
			return '\b', i + 2
		case 'f':
			return '\f', i + 2
		case 'v':
			return '\v', i + 2
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i + 1
			for j < len(src) && j < i+4 && src[j] >= '0' && src[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(string(src[i+1:j]), 8, 8)
			return rune(n), j
		default:
			return c, i + 2
		}
	}
	for i := 0; i < len(src); {
		if src[i] == '[' && i+1 < len(src) && src[i+1] == ':' {
			if end := indexRunes(src, i+2, ":]"); end >= 0 {
				name := string(src[i+2 : end])
				fn, ok := trClasses[name]
				if !ok {
					return nil, fmt.Errorf("invalid character class '%s'", name)
				}
				limit := rune(127)
				if name == "alpha" || name == "upper" || name == "lower" || name == "alnum" || name == "space" {
					limit = 255
				}
				for r := rune(0); r <= limit; r++ {
					if fn(r) {
						out = append(out, r)
					}
				}
				i = end + 2
				continue
			}
		}
		if src[i] == '[' && i+2 < len(src) && src[i+2] == '*' {
			// [c*n] or [c*]: c repeated n times (or as needed: 1 here).
			if end := indexRunes(src, i+3, "]"); end >= 0 {
				numText := string(src[i+3 : end])
				n := 1
				if numText != "" {
					v, err := strconv.ParseInt(numText, 0, 32)
					if err != nil || v > 1<<16 {
						return nil, fmt.Errorf("invalid repeat count '%s'", numText)
					}
					n = int(v)
				}
				for k := 0; k < n; k++ {
					out = append(out, src[i+1])
				}
				i = end + 1
				continue
			}
		}
		r, next := char(i)
		if next < len(src)-1 && src[next] == '-' {
			hi, after := char(next + 1)
			if hi < r {
				return nil, fmt.Errorf("range-endpoints of '%c-%c' are in reverse collating sequence order", r, hi)
			}
			for c := r; c <= hi; c++ {
				out = append(out, c)
			}
			i = after
			continue
		}
		out = append(out, r)
		i = next
	}
	return out, nil
}

// indexRunes returns the index in src, at or after from, where sub starts,
// or -1.
func indexRunes(src []rune, from int, sub string) int {
	want := []rune(sub)
	for i := from; i+len(want) <= len(src); i++ {
		if string(src[i:i+len(want)]) == sub {
			return i
		}
	}
	return -1
}
