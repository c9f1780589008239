package decl

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// quote is s as a double-quoted string literal that TypeScript and Python
// both read back as s (JSON's escapes, which both languages share).
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\u2028', '\u2029', '\u0085', '\ufeff':
			b.WriteString(`\u` + strconv.FormatInt(int64(r)+0x10000, 16)[1:])
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteString(`\u00` + strconv.FormatInt(int64(r)+0x100, 16)[1:])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// cleanLines splits documentation text into lines: line breaks of any
// kind end a line, other control characters are shown as \uXXXX, and
// trailing space and leading and trailing blank lines go.
func cleanLines(s string) []string {
	if plainText(s) {
		return trimLines(strings.Split(s, "\n"))
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085' || r == '\v' || r == '\f':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f || r == '\ufeff' || r == utf8.RuneError:
			b.WriteString(`\u` + strconv.FormatInt(int64(r)+0x10000, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	return trimLines(strings.Split(b.String(), "\n"))
}

// plainText says whether s is printable ASCII and line feeds only, which
// cleanLines need not rewrite.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

func trimLines(lines []string) []string {
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// jsDoc writes text as a JSDoc comment at indent ind ("" writes nothing);
// "*/" in the text cannot end the comment.
func jsDoc(b *strings.Builder, ind, text string) {
	lines := cleanLines(text)
	if len(lines) == 0 {
		return
	}
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, "*/", `*\/`)
	}
	if len(lines) == 1 {
		b.WriteString(ind + "/** " + lines[0] + " */\n")
		return
	}
	b.WriteString(ind + "/**\n")
	for _, l := range lines {
		if l == "" {
			b.WriteString(ind + " *\n")
		} else {
			b.WriteString(ind + " * " + l + "\n")
		}
	}
	b.WriteString(ind + " */\n")
}

// pyDocBody escapes one line of a docstring: backslashes doubled, so no
// escape sequence appears by accident, and every third quote of a run
// escaped, so no run of three ends the string.
func pyDocBody(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	if !strings.Contains(s, `"`) {
		return s
	}
	var b strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			run++
			if run == 3 {
				b.WriteString(`\"`)
				run = 0
				continue
			}
		} else {
			run = 0
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pyDoc writes text as a docstring at indent ind ("" writes nothing).
func pyDoc(b *strings.Builder, ind, text string) {
	lines := cleanLines(text)
	if len(lines) == 0 {
		return
	}
	for i, l := range lines {
		lines[i] = pyDocBody(l)
	}
	// A quote just before the closing quotes would join them.
	if last := lines[len(lines)-1]; strings.HasSuffix(last, `"`) {
		slashes := 0
		for i := len(last) - 2; i >= 0 && last[i] == '\\'; i-- {
			slashes++
		}
		if slashes%2 == 0 {
			lines[len(lines)-1] = last[:len(last)-1] + `\"`
		}
	}
	if len(lines) == 1 {
		b.WriteString(ind + `"""` + lines[0] + `"""` + "\n")
		return
	}
	b.WriteString(ind + `"""` + lines[0] + "\n")
	for _, l := range lines[1:] {
		if l == "" {
			b.WriteString("\n")
		} else {
			b.WriteString(ind + l + "\n")
		}
	}
	b.WriteString(ind + `"""` + "\n")
}

// oneLine is text on one line, for a # comment.
func oneLine(text string) string {
	return strings.Join(strings.Fields(strings.Join(cleanLines(text), " ")), " ")
}
