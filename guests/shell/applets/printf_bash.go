package applets

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// bashQuote is printf %q as bash writes it: unchanged when nothing needs
// quoting, $'...' when the text has control characters, and otherwise
// each special character escaped with a backslash.
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if c < ' ' || c == 0x7f {
			return ANSICQuote(s)
		}
	}
	var b strings.Builder
	for i, c := range s {
		if strings.ContainsRune(" \t\"'\\$`!*?[]{}()<>|&;#=,^", c) || (c == '~' && i == 0) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ANSICQuote writes s as bash's $'...' with C escapes and three-digit
// octal for other control characters, as printf %q and ${x@Q} print it.
func ANSICQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		case 0x1b:
			b.WriteString(`\E`)
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < ' ' || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// printfTime is bash's %(FORMAT)T: the argument is seconds since the
// epoch ("" or -1 is now, -2 the shell's start, taken as now here),
// printed with strftime's FORMAT in UTC, the sandbox's only zone.
func printfTime(format, arg string) string {
	t := time.Now().UTC()
	if arg != "" && arg != "-1" && arg != "-2" {
		n, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
		if err == nil {
			t = time.Unix(n, 0).UTC()
		}
	}
	if format == "" {
		format = "%X"
	}
	return strftime(t, format)
}
