package applets

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// sedParser reads a sed script.
type sedParser struct {
	src []rune
	i   int
	syn regexSyntax
}

func (ps *sedParser) eof() bool { return ps.i >= len(ps.src) }

func (ps *sedParser) peek() rune {
	if ps.eof() {
		return 0
	}
	return ps.src[ps.i]
}

func (ps *sedParser) skipSpace() {
	for !ps.eof() && (ps.src[ps.i] == ' ' || ps.src[ps.i] == '\t') {
		ps.i++
	}
}

// parseSed compiles a script into its commands.
func parseSed(script string, syn regexSyntax) ([]*sedCmd, error) {
	ps := &sedParser{src: []rune(script), syn: syn}
	var cmds []*sedCmd
	var blocks []int
	for {
		for !ps.eof() && strings.ContainsRune(" \t\n;", ps.peek()) {
			ps.i++
		}
		if ps.eof() {
			break
		}
		if ps.peek() == '#' {
			for !ps.eof() && ps.peek() != '\n' {
				ps.i++
			}
			continue
		}
		c := &sedCmd{nth: 1}
		var err error
		if c.addr1, err = ps.address(false); err != nil {
			return nil, err
		}
		if c.addr1 != nil && ps.peek() == ',' {
			ps.i++
			ps.skipSpace()
			if c.addr2, err = ps.address(true); err != nil {
				return nil, err
			}
			if c.addr2 == nil {
				return nil, fmt.Errorf("unexpected ','")
			}
		}
		ps.skipSpace()
		for ps.peek() == '!' {
			c.negate = true
			ps.i++
			ps.skipSpace()
		}
		if ps.eof() {
			return nil, fmt.Errorf("missing command")
		}
		c.name = byte(ps.peek())
		ps.i++
		switch c.name {
		case '{':
			blocks = append(blocks, len(cmds))
		case '}':
			if len(blocks) == 0 {
				return nil, fmt.Errorf("unexpected '}'")
			}
			if c.addr1 != nil {
				return nil, fmt.Errorf("} doesn't want any addresses")
			}
			cmds[blocks[len(blocks)-1]].blockTo = len(cmds)
			blocks = blocks[:len(blocks)-1]
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z':
		case 'a', 'i', 'c':
			c.text = ps.text()
		case ':':
			if c.addr1 != nil {
				return nil, fmt.Errorf(": doesn't want any addresses")
			}
			ps.skipSpace()
			c.text = ps.label()
			if c.text == "" {
				return nil, fmt.Errorf("\":\" lacks a label")
			}
		case 'b', 't', 'T':
			ps.skipSpace()
			c.text = ps.label()
		case 'r', 'w':
			ps.skipSpace()
			c.text = ps.restOfLine()
			if c.text == "" {
				return nil, fmt.Errorf("missing filename in r/R/w/W commands")
			}
		case 'q', 'Q':
			ps.skipSpace()
			start := ps.i
			for !ps.eof() && ps.peek() >= '0' && ps.peek() <= '9' {
				ps.i++
			}
			if ps.i > start {
				c.exit, _ = strconv.Atoi(string(ps.src[start:ps.i]))
			}
		case 's':
			if err := ps.substitution(c); err != nil {
				return nil, err
			}
		case 'y':
			if err := ps.transliteration(c); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unknown command: '%c'", c.name)
		}
		cmds = append(cmds, c)
		ps.skipSpace()
		if c.name == '{' || c.name == 'a' || c.name == 'i' || c.name == 'c' {
			continue // these end where the next command may begin
		}
		if !ps.eof() && !strings.ContainsRune(";\n}#", ps.peek()) {
			return nil, fmt.Errorf("extra characters after command")
		}
	}
	if len(blocks) > 0 {
		return nil, fmt.Errorf("unmatched '{'")
	}
	return cmds, nil
}

// address parses one address, or returns nil when there is none.
func (ps *sedParser) address(second bool) (*sedAddr, error) {
	switch c := ps.peek(); {
	case c >= '0' && c <= '9':
		n := ps.number()
		if ps.peek() == '~' {
			ps.i++
			return &sedAddr{kind: '~', first: n, step: ps.number()}, nil
		}
		return &sedAddr{kind: 'n', line: n}, nil
	case c == '$':
		ps.i++
		return &sedAddr{kind: '$'}, nil
	case second && c == '+':
		ps.i++
		return &sedAddr{kind: '+', line: ps.number()}, nil
	case c == '/' || c == '\\':
		if c == '\\' {
			ps.i++
		}
		delim := ps.peek()
		ps.i++
		pat, err := ps.delimited(delim, true)
		if err != nil {
			return nil, err
		}
		icase := false
		for ps.peek() == 'I' || ps.peek() == 'M' {
			icase = icase || ps.peek() == 'I'
			ps.i++
		}
		a := &sedAddr{kind: 'r'}
		if pat != "" {
			if a.re, err = compileRE(pat, ps.syn, icase); err != nil {
				return nil, err
			}
		}
		return a, nil
	}
	return nil, nil
}

func (ps *sedParser) number() int {
	start := ps.i
	for !ps.eof() && ps.peek() >= '0' && ps.peek() <= '9' {
		ps.i++
	}
	n, _ := strconv.Atoi(string(ps.src[start:ps.i]))
	return n
}

// delimited reads up to the unescaped delim. In a regex (isRE) escapes
// are kept for the regex compiler, except that \delim becomes delim and
// \n a newline.
func (ps *sedParser) delimited(delim rune, isRE bool) (string, error) {
	var b strings.Builder
	for {
		if ps.eof() {
			return "", fmt.Errorf("unterminated address regex")
		}
		c := ps.src[ps.i]
		ps.i++
		switch {
		case c == delim:
			return b.String(), nil
		case c == '\\' && !ps.eof():
			d := ps.src[ps.i]
			ps.i++
			switch {
			case d == delim:
				b.WriteRune(d)
			case d == '\n':
				b.WriteRune('\n')
			case isRE && d == 'n':
				b.WriteRune('\n')
			default:
				b.WriteRune('\\')
				b.WriteRune(d)
			}
		case c == '\n' && isRE:
			return "", fmt.Errorf("unterminated address regex")
		default:
			b.WriteRune(c)
		}
	}
}

// substitution parses s/RE/REPL/FLAGS.
func (ps *sedParser) substitution(c *sedCmd) error {
	if ps.eof() {
		return fmt.Errorf("unterminated `s' command")
	}
	delim := ps.peek()
	if delim == '\\' || delim == '\n' {
		return fmt.Errorf("unterminated `s' command")
	}
	ps.i++
	pat, err := ps.delimited(delim, true)
	if err != nil {
		return fmt.Errorf("unterminated `s' command")
	}
	repl, err := ps.replacement(delim)
	if err != nil {
		return err
	}
	c.repl = repl
	icase, multiline := false, false
	for !ps.eof() {
		f := ps.peek()
		switch {
		case f == 'g':
			c.global = true
		case f == 'p':
			c.print = true
		case f == 'i' || f == 'I':
			icase = true
		case f == 'm' || f == 'M':
			multiline = true
		case f >= '0' && f <= '9':
			c.nth = ps.number()
			if c.nth == 0 {
				return fmt.Errorf("number option to `s' command may not be zero")
			}
			continue
		case f == 'w':
			ps.i++
			ps.skipSpace()
			c.wfile = ps.restOfLine()
			continue
		case f == 'e':
			return fmt.Errorf("the e flag (run a command) is not supported")
		default:
			goto done
		}
		ps.i++
	}
done:
	if pat != "" {
		re2, err := toRE2(pat, ps.syn)
		if err != nil {
			return err
		}
		if multiline {
			re2 = "(?m)" + re2
		}
		if icase {
			re2 = "(?i)" + re2
		}
		if c.re, err = regexp.Compile(re2); err != nil {
			return fmt.Errorf("invalid regular expression '%s': %s", pat, reErrText(err))
		}
	}
	return nil
}

// replacement parses the replacement of an s command.
func (ps *sedParser) replacement(delim rune) ([]replPart, error) {
	var parts []replPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for {
		if ps.eof() {
			return nil, fmt.Errorf("unterminated `s' command")
		}
		c := ps.src[ps.i]
		ps.i++
		switch {
		case c == delim:
			flush()
			return parts, nil
		case c == '&':
			flush()
			parts = append(parts, replPart{group: 0})
		case c == '\\' && !ps.eof():
			d := ps.src[ps.i]
			ps.i++
			switch {
			case d >= '0' && d <= '9':
				flush()
				parts = append(parts, replPart{group: int(d - '0')})
			case d == 'n':
				lit.WriteByte('\n')
			case d == 't':
				lit.WriteByte('\t')
			case d == 'r':
				lit.WriteByte('\r')
			case d == 'U' || d == 'L' || d == 'E' || d == 'u' || d == 'l':
				flush()
				parts = append(parts, replPart{group: -1, conv: byte(d)})
			default:
				lit.WriteRune(d)
			}
		default:
			lit.WriteRune(c)
		}
	}
}

// transliteration parses y/SRC/DST/.
func (ps *sedParser) transliteration(c *sedCmd) error {
	if ps.eof() {
		return fmt.Errorf("unterminated `y' command")
	}
	delim := ps.peek()
	ps.i++
	var sets [2][]rune
	for k := range sets {
		for {
			if ps.eof() {
				return fmt.Errorf("unterminated `y' command")
			}
			r := ps.src[ps.i]
			ps.i++
			if r == delim {
				break
			}
			if r == '\\' && !ps.eof() {
				d := ps.src[ps.i]
				ps.i++
				switch d {
				case 'n':
					r = '\n'
				case 't':
					r = '\t'
				default:
					r = d
				}
			}
			sets[k] = append(sets[k], r)
		}
	}
	if len(sets[0]) != len(sets[1]) {
		return fmt.Errorf("strings for `y' command are different lengths")
	}
	c.from, c.to = sets[0], sets[1]
	return nil
}

// text reads the text of a, i and c: "a\" then lines, or "a text". A
// backslash at the end of a line continues the text on the next line.
func (ps *sedParser) text() string {
	ps.skipSpace()
	if ps.peek() == '\\' {
		ps.i++
		ps.skipSpace()
		if ps.peek() == '\n' {
			ps.i++
		}
	}
	var b strings.Builder
	for !ps.eof() {
		c := ps.src[ps.i]
		ps.i++
		if c == '\n' {
			break
		}
		if c == '\\' && !ps.eof() {
			d := ps.src[ps.i]
			ps.i++
			switch d {
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteRune(d)
			}
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// label reads a label, which ends at a newline or ';'.
func (ps *sedParser) label() string {
	start := ps.i
	for !ps.eof() && !strings.ContainsRune("\n;}", ps.peek()) {
		ps.i++
	}
	return strings.TrimSpace(string(ps.src[start:ps.i]))
}

// restOfLine reads up to the end of the line.
func (ps *sedParser) restOfLine() string {
	start := ps.i
	for !ps.eof() && ps.peek() != '\n' {
		ps.i++
	}
	return string(ps.src[start:ps.i])
}
