package typescript

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"
)

// segment is one source map mapping: a generated line's byte offset and
// the source line and column (UTF-16 units, 0-based) it came from.
type segment struct {
	gen             int
	srcLine, srcCol int
}

// layout moves the lines of esbuild's output so that each statement sits
// on the line its source had, and pads it to its source column where that
// is further right: a line goes down by adding newlines, or up by joining
// it to the line before, always between tokens (never inside a template
// literal or a comment), and the result is checked to parse to the same
// program as esbuild's own output. returns are the positions of the
// top-level returns patchReturns made throws, made returns again here.
func layout(code string, sourceMap []byte, returns map[pos]bool) (string, error) {
	segs, err := decodeMappings(sourceMap)
	if err != nil {
		return "", fmt.Errorf("typescript: reading esbuild's source map: %w", err)
	}
	lines := strings.Split(code, "\n")
	for len(segs) < len(lines) {
		segs = append(segs, nil)
	}
	for g, line := range lines {
		toBytes(line, segs[g])
		// esbuild maps some statements from the space before them:
		// point at the token.
		for i := range segs[g] {
			for segs[g][i].gen < len(line) && line[segs[g][i].gen] == ' ' {
				segs[g][i].gen++
			}
		}
	}
	orig := make([][]segment, len(segs))
	for g := range segs {
		orig[g] = append([]segment(nil), segs[g]...)
	}
	ctx, unsure := lineContexts(code, len(lines))
	want := maps.Clone(returns)

	var out strings.Builder
	out.Grow(len(code) + len(code)/4)
	var restore []fix // throws in out to make returns
	cur, col := 0, 0  // output line and column (bytes) being written
	for g, line := range lines {
		if g > 0 {
			t := -1
			if len(segs[g]) > 0 && segs[g][0].gen <= len(line) && strings.TrimLeft(line[:segs[g][0].gen], " ") == "" {
				t = segs[g][0].srcLine
			}
			switch {
			case ctx[g].inCode && t > cur:
				out.WriteString(strings.Repeat("\n", t-cur))
				cur, col = t, 0
				line = strings.TrimLeft(line, " ")
				shift(segs[g], len(lines[g])-len(line))
			case ctx[g].inCode && !ctx[g-1].lineComment:
				out.WriteByte(' ')
				col++
				trimmed := strings.TrimLeft(line, " ")
				shift(segs[g], len(line)-len(trimmed))
				line = trimmed
			default:
				out.WriteByte('\n')
				cur, col = cur+1, 0
				if ctx[g].inCode {
					trimmed := strings.TrimLeft(line, " ")
					shift(segs[g], len(line)-len(trimmed))
					line = trimmed
				}
			}
		} else if len(segs[0]) > 0 && segs[0][0].gen == 0 && segs[0][0].srcLine > 0 {
			out.WriteString(strings.Repeat("\n", segs[0][0].srcLine))
			cur = segs[0][0].srcLine
		}
		// Write the line segment by segment, padding a segment that
		// belongs on this line to its source column. Segments start at
		// tokens, where spaces change nothing.
		at := 0
		for _, s := range segs[g] {
			if s.gen < at || s.gen > len(line) {
				continue
			}
			out.WriteString(line[at:s.gen])
			col += s.gen - at
			at = s.gen
			if s.srcLine == cur && s.srcCol > col && (ctx[g].inCode || at > 0) {
				out.WriteString(strings.Repeat(" ", s.srcCol-col))
				col = s.srcCol
			}
			rest := line[at:]
			if bare, ok := want[pos{s.srcLine, s.srcCol}]; ok && strings.HasPrefix(rest, "throw") {
				restore = append(restore, fix{out.Len(), bare})
				// The return written over the throw moves the rest of
				// the line: "throw 0" -> "return", "throw" -> "return".
				if bare {
					col--
				} else {
					col++
				}
				delete(want, pos{s.srcLine, s.srcCol})
			}
		}
		out.WriteString(line[at:])
		col += len(line) - at
	}
	if len(want) > 0 {
		return "", errors.New("typescript: a top-level return could not be placed in the output")
	}
	laid := out.String()
	if unsure && !samePrograms(laid, code) {
		// The layout changed what the program means (a regular
		// expression read as a division can hide a backtick): run
		// esbuild's output as it is, on its own lines.
		laid, restore = code, restoreOffsets(lines, orig, returns)
		if restore == nil && len(returns) > 0 {
			return "", errors.New("typescript: a top-level return could not be placed in the output")
		}
	}
	return restoreReturns(laid, restore), nil
}

// restoreOffsets finds the throws standing for returns in esbuild's output
// as it is.
func restoreOffsets(lines []string, segs [][]segment, returns map[pos]bool) []fix {
	want := maps.Clone(returns)
	var offs []fix
	base := 0
	for g, line := range lines {
		for _, s := range segs[g] {
			if s.gen > len(line) {
				continue
			}
			if bare, ok := want[pos{s.srcLine, s.srcCol}]; ok && strings.HasPrefix(line[s.gen:], "throw") {
				offs = append(offs, fix{base + s.gen, bare})
				delete(want, pos{s.srcLine, s.srcCol})
			}
		}
		base += len(line) + 1
	}
	if len(want) > 0 {
		return nil
	}
	return offs
}

// fix is a throw at offset at that stands for a return, bare (patched as
// "throw 0") or not.
type fix struct {
	at   int
	bare bool
}

// restoreReturns makes the throws at offs returns again: "throw 0" (a
// bare return) becomes "return", "throw x" becomes "return x".
func restoreReturns(code string, offs []fix) string {
	if len(offs) == 0 {
		return code
	}
	var b strings.Builder
	prev := 0
	for _, f := range offs {
		b.WriteString(code[prev:f.at])
		b.WriteString("return")
		prev = f.at + len("throw")
		if f.bare {
			// Layout may have padded between throw and its 0.
			prev += len(code[prev:]) - len(strings.TrimLeft(code[prev:], " "))
			prev += len("0")
		}
	}
	b.WriteString(code[prev:])
	return b.String()
}

// samePrograms reports whether a and b, differing only in whitespace
// between tokens, print the same through esbuild.
// b is esbuild's own output, which esbuild usually prints back unchanged:
// a is compared with b first, and b is printed again only when they differ.
func samePrograms(a, b string) bool {
	opts := api.TransformOptions{Loader: api.LoaderJS, LegalComments: api.LegalCommentsNone, LogLimit: 1, Charset: api.CharsetUTF8}
	ra := api.Transform(a, opts)
	if len(ra.Errors) > 0 {
		return false
	}
	if string(ra.Code) == b {
		return true
	}
	rb := api.Transform(b, opts)
	return len(rb.Errors) == 0 && string(ra.Code) == string(rb.Code)
}

func shift(segs []segment, n int) {
	for i := range segs {
		segs[i].gen -= n
	}
}

// toBytes turns the segments' UTF-16 generated columns into byte offsets
// in line.
func toBytes(line string, segs []segment) {
	units, b := 0, 0
	for i := range segs {
		for units < segs[i].gen && b < len(line) {
			r, size := utf8.DecodeRuneInString(line[b:])
			b += size
			units += utf16.RuneLen(r)
		}
		if units < segs[i].gen {
			segs[i].gen = len(line) + 1 // past the line: ignored
			continue
		}
		segs[i].gen = b
	}
}

// decodeMappings reads a source map's mappings: the segments of each
// generated line, in order, that map to a source position.
func decodeMappings(sourceMap []byte) ([][]segment, error) {
	var m struct {
		Mappings string `json:"mappings"`
	}
	if err := json.Unmarshal(sourceMap, &m); err != nil {
		return nil, err
	}
	var out [][]segment
	var line []segment
	srcLine, srcCol := 0, 0
	s := m.Mappings
	for len(s) > 0 {
		switch s[0] {
		case ';':
			out = append(out, line)
			line = nil
			s = s[1:]
			continue
		case ',':
			s = s[1:]
			continue
		}
		var f [5]int
		n := 0
		for len(s) > 0 && s[0] != ',' && s[0] != ';' {
			v, rest, err := vlq(s)
			if err != nil {
				return nil, err
			}
			if n < len(f) {
				f[n] = v
			}
			n++
			s = rest
		}
		gen := f[0] + lastGen(line)
		if n >= 4 {
			srcLine += f[2]
			srcCol += f[3]
			line = append(line, segment{gen: gen, srcLine: srcLine, srcCol: srcCol})
		} else if n >= 1 {
			// A segment without a source position still moves the
			// generated column on: keep it as a marker at no line.
			line = append(line, segment{gen: gen, srcLine: -1, srcCol: -1})
		}
	}
	out = append(out, line)
	for i, l := range out {
		kept := l[:0]
		for _, sg := range l {
			if sg.srcLine >= 0 {
				kept = append(kept, sg)
			}
		}
		out[i] = kept
	}
	return out, nil
}

func lastGen(line []segment) int {
	if len(line) == 0 {
		return 0
	}
	return line[len(line)-1].gen
}

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// vlq decodes one base64 VLQ value from the front of s.
func vlq(s string) (int, string, error) {
	v, shiftBy := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base64, s[i])
		if d < 0 {
			return 0, "", fmt.Errorf("bad character %q in mappings", s[i])
		}
		v += (d & 31) << shiftBy
		shiftBy += 5
		if d&32 == 0 {
			if v&1 != 0 {
				return -(v >> 1), s[i+1:], nil
			}
			return v >> 1, s[i+1:], nil
		}
		if shiftBy > 30 {
			return 0, "", errors.New("mapping value too large")
		}
	}
	return 0, "", errors.New("truncated mapping value")
}

// lineCtx is what the text before a line of JavaScript leaves open.
type lineCtx struct {
	inCode      bool // the line starts between tokens, not inside a template or comment
	lineComment bool // the line ends inside a // comment
}

// lineContexts lexes esbuild's output just enough to tell, for each line,
// whether it starts between tokens: strings, template literals (with
// their substitutions), comments and regular expressions. A slash after a
// value is a division, elsewhere a regular expression. That guess can only
// be wrong after ")" (a regular expression after the head of an if) or "}"
// (after a block), and only matters when the text after the slash holds a
// quote, a backtick or a comment marker that the other reading would take
// differently: unsure says there was such a slash, and the layout is then
// checked by samePrograms.
func lineContexts(code string, n int) (ctx []lineCtx, unsure bool) {
	ctx = make([]lineCtx, n)
	ctx[0].inCode = true
	line := 0
	var templates []int // brace depth at each open ${
	depth := 0
	value := false // the last token was a value (a slash after it divides)
	lastWord := ""
	var closer byte // the last token, when it was ) or }
	newline := func(inCode bool) {
		line++
		if line < n {
			ctx[line].inCode = inCode
		}
	}
	i := 0
	for i < len(code) {
		c := code[i]
		prev := closer
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && !(c == '/' && i+1 < len(code) && (code[i+1] == '/' || code[i+1] == '*')) {
			closer = 0
		}
		switch {
		case c == '\n':
			newline(true)
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '/' && i+1 < len(code) && code[i+1] == '/':
			for i < len(code) && code[i] != '\n' {
				i++
			}
			ctx[line].lineComment = true
		case c == '/' && i+1 < len(code) && code[i+1] == '*':
			end := strings.Index(code[i+2:], "*/")
			if end < 0 {
				end = len(code) - i - 2
			}
			for _, ch := range code[i : i+2+end] {
				if ch == '\n' {
					newline(false)
				}
			}
			i += end + 4
		case c == '/' && !(value && !exprKeyword[lastWord]):
			// A regular expression.
			inClass := false
			for i++; i < len(code) && code[i] != '\n'; i++ {
				if code[i] == '\\' {
					i++
				} else if code[i] == '[' {
					inClass = true
				} else if code[i] == ']' {
					inClass = false
				} else if code[i] == '/' && !inClass {
					break
				}
			}
			i++
			for i < len(code) && isIdent(code[i]) {
				i++
			}
			value, lastWord = true, ""
		case c == '\'' || c == '"':
			for i++; i < len(code) && code[i] != c && code[i] != '\n'; i++ {
				if code[i] == '\\' {
					i++
				}
			}
			i++
			value, lastWord = true, ""
		case c == '`' || c == '}' && len(templates) > 0 && templates[len(templates)-1] == depth:
			if c == '}' {
				templates = templates[:len(templates)-1]
				depth--
			}
			// Template text up to its end or the next ${.
			for i++; i < len(code); i++ {
				if code[i] == '\\' {
					i++
				} else if code[i] == '\n' {
					newline(false)
				} else if code[i] == '`' {
					i++
					value, lastWord = true, ""
					break
				} else if code[i] == '$' && i+1 < len(code) && code[i+1] == '{' {
					depth++
					templates = append(templates, depth)
					i += 2
					value, lastWord = false, ""
					break
				}
			}
		case isIdent(c):
			j := i
			for j < len(code) && (isIdent(code[j]) || code[j] == '.' && j > i && code[i] >= '0' && code[i] <= '9') {
				j++
			}
			lastWord = code[i:j]
			value = true
			i = j
		default:
			if c == '/' && (prev == ')' || prev == '}') {
				// After the parenthesis of an if or the brace of a block
				// a slash would start a regular expression.
				unsure = unsure || risky(code, i)
			}
			switch c {
			case '(', '[', '{':
				if c == '{' {
					depth++
				}
				value = false
			case ')', ']':
				value = true
				closer = c
			case '}':
				depth--
				value = true
				closer = c
			default:
				value = false
			}
			lastWord = ""
			i++
		}
	}
	return ctx, unsure
}

// risky reports whether the rest of the line from a slash at i holds what
// a wrong guess between division and regular expression would misread.
func risky(code string, i int) bool {
	end := strings.IndexByte(code[i:], '\n')
	if end < 0 {
		end = len(code) - i
	}
	rest := code[i : i+end]
	return strings.ContainsAny(rest, "`'\"") || strings.Contains(rest[1:], "/*") || strings.Contains(rest, "*/") || strings.Contains(rest[1:], "//")
}

// exprKeyword are words after which a slash starts a regular expression.
var exprKeyword = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true, "delete": true,
	"void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true,
}
