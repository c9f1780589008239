package applets

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// printfApplet formats its arguments like the shell's printf: the format is
// reused until the arguments run out; %s %d %i %u %o %x %X %f %e %g %c %b %q
// and %% with flags, width and precision (also *).
func printfApplet(p *Proc, args []string) int {
	if len(args) > 1 && args[1] == "--" {
		args = append(args[:1:1], args[2:]...)
	}
	if len(args) < 2 {
		return p.usage("printf", "missing format", "printf FORMAT [ARGUMENT]...")
	}
	f := &printfState{p: p}
	format, rest := args[1], args[2:]
	var out strings.Builder
	for {
		used, stop := f.format(&out, format, rest)
		rest = rest[used:]
		if stop || used == 0 || len(rest) == 0 {
			break
		}
	}
	if _, err := io.WriteString(p.Stdout, out.String()); err != nil {
		return p.writeFailed("printf", err)
	}
	return f.status
}

type printfState struct {
	p      *Proc
	status int
}

// format writes one pass of format, returning how many args it used and
// whether \c asked to stop all output.
func (f *printfState) format(out *strings.Builder, format string, args []string) (used int, stop bool) {
	next := func() (string, bool) {
		if used < len(args) {
			used++
			return args[used-1], true
		}
		return "", false
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			j := escapeEnd(format, i)
			s, stop := backslashEscapes(format[i:j])
			out.WriteString(s)
			if stop {
				return used, true
			}
			i = j - 1
			continue
		}
		if c != '%' {
			out.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			out.WriteByte('%')
			i++
			continue
		}
		// Parse %[flags][width][.precision]verb.
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			j++
		}
		flags := format[i+1 : j]
		width, prec := "", ""
		if j < len(format) && format[j] == '*' {
			a, _ := next()
			width = strconv.FormatInt(f.toInt(a), 10)
			j++
		} else {
			k := j
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			width = format[k:j]
		}
		hasPrec := false
		if j < len(format) && format[j] == '.' {
			hasPrec = true
			j++
			if j < len(format) && format[j] == '*' {
				a, _ := next()
				prec = strconv.FormatInt(f.toInt(a), 10)
				j++
			} else {
				k := j
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				prec = format[k:j]
				if prec == "" {
					prec = "0"
				}
			}
		}
		// Length modifiers (l, ll, h, z, j) mean nothing here.
		for j < len(format) && strings.IndexByte("lhjzt", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			f.p.errorf("printf", "%s: invalid conversion specification", format[i:])
			f.status = 1
			return used, true
		}
		if format[j] == '(' {
			// %(FORMAT)T: a time (printf_bash.go).
			end := strings.Index(format[j:], ")T")
			if end < 0 {
				f.p.errorf("printf", "%s: invalid conversion specification", format[i:])
				f.status = 1
				return used, true
			}
			arg, _ := next()
			out.WriteString(fmt.Sprintf("%"+flags+width+"s", printfTime(format[j+1:j+end], arg)))
			i = j + end + 1
			continue
		}
		verb := format[j]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		arg, _ := next()
		switch verb {
		case 's':
			out.WriteString(fmt.Sprintf(spec+"s", arg))
		case 'b':
			s, stop := backslashEscapes(arg)
			out.WriteString(fmt.Sprintf(spec+"s", s))
			if stop {
				return used, true
			}
		case 'q':
			out.WriteString(fmt.Sprintf(spec+"s", bashQuote(arg)))
		case 'c':
			r, _ := utf8.DecodeRuneInString(arg)
			if arg == "" {
				out.WriteString(fmt.Sprintf(spec+"s", ""))
			} else {
				out.WriteString(fmt.Sprintf(spec+"c", r))
			}
		case 'd', 'i':
			out.WriteString(fmt.Sprintf(spec+"d", f.toInt(arg)))
		case 'u':
			out.WriteString(fmt.Sprintf(spec+"d", uint64(f.toInt(arg))))
		case 'o', 'x', 'X':
			out.WriteString(fmt.Sprintf(spec+string(verb), uint64(f.toInt(arg))))
		case 'f', 'F', 'e', 'E', 'g', 'G':
			v := f.toFloat(arg)
			if verb == 'F' {
				verb = 'f'
			}
			out.WriteString(fmt.Sprintf(spec+string(verb), v))
		default:
			f.p.errorf("printf", "%%%c: invalid directive", verb)
			f.status = 1
			return used, true
		}
		i = j
	}
	return used, false
}

// escapeEnd returns the end of the backslash escape starting at i.
func escapeEnd(s string, i int) int {
	j := i + 2
	if j > len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '0', '1', '2', '3', '4', '5', '6', '7':
		limit := i + 4
		if s[i+1] == '0' {
			limit = i + 5
		}
		for j < len(s) && j < limit && s[j] >= '0' && s[j] <= '7' {
			j++
		}
	case 'x', 'u', 'U':
		limit := j + map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i+1]]
		for j < len(s) && j < limit && isHex(s[j]) {
			j++
		}
	}
	return j
}

// toInt converts a printf numeric argument: decimal, 0x hex, 0 octal, or
// 'c (a character's code). Invalid text is reported and counts as 0.
func (f *printfState) toInt(s string) int64 {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0
	}
	if t[0] == '\'' || t[0] == '"' {
		r, _ := utf8.DecodeRuneInString(t[1:])
		return int64(r)
	}
	n, err := strconv.ParseInt(t, 0, 64)
	if err != nil {
		if fl, ferr := strconv.ParseFloat(t, 64); ferr == nil {
			f.p.errorf("printf", "%s: invalid number", s)
			f.status = 1
			return int64(fl)
		}
		f.p.errorf("printf", "%s: invalid number", s)
		f.status = 1
		return 0
	}
	return n
}

// toFloat converts a printf floating-point argument.
func (f *printfState) toFloat(s string) float64 {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0
	}
	if t[0] == '\'' || t[0] == '"' {
		r, _ := utf8.DecodeRuneInString(t[1:])
		return float64(r)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if n, ierr := strconv.ParseInt(t, 0, 64); ierr == nil {
			return float64(n)
		}
		f.p.errorf("printf", "%s: invalid number", s)
		f.status = 1
		return 0
	}
	return v
}
