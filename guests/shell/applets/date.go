package applets

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

const dateUsage = "date [-u] [-d STRING] [-r FILE] [-I[date|hours|minutes|seconds|ns]] [-R] [+FORMAT]"

// dateApplet prints the time (now, -d STRING, or -r FILE's modification
// time) in the default format, ISO 8601 (-I), RFC 5322 (-R) or a strftime
// +FORMAT. -d reads what GNU date reads (parseDate). The sandbox clock is
// UTC, so -u changes nothing.
func dateApplet(p *Proc, args []string) int {
	now := time.Now().UTC()
	t := now
	format := "%a %b %e %H:%M:%S %Z %Y"
	rest := args[1:]
	var operands []string
	// value returns the argument of an option: the rest of its word, or
	// the next word.
	value := func(i *int, attached, name string) (string, bool) {
		if attached != "" {
			return attached, true
		}
		if *i+1 >= len(rest) {
			return "", false
		}
		*i++
		return rest[*i], true
	}
	setDate := func(s string) int {
		parsed, err := parseDate(s, now)
		if err != nil {
			p.errorf("date", "invalid date '%s'", s)
			return 1
		}
		t = parsed
		return 0
	}
	setRef := func(name string) int {
		st, err := os.Stat(p.Path(name))
		if err != nil {
			return p.fileErr("date", name, err)
		}
		t = st.ModTime().UTC()
		return 0
	}
	setISO := func(spec string) int {
		switch spec {
		case "", "date":
			format = "%Y-%m-%d"
		case "hours":
			format = "%Y-%m-%dT%H%:z"
		case "minutes":
			format = "%Y-%m-%dT%H:%M%:z"
		case "seconds":
			format = "%Y-%m-%dT%H:%M:%S%:z"
		case "ns":
			format = "%Y-%m-%dT%H:%M:%S,%N%:z"
		default:
			p.usage("date", "invalid argument '"+spec+"' for '--iso-8601'", dateUsage)
			return 1
		}
		return 0
	}
	dashdash := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case dashdash || a == "-" || !strings.HasPrefix(a, "-"):
			operands = append(operands, a)
		case a == "--":
			dashdash = true
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "utc", "universal":
			case "date", "reference":
				if !hasVal {
					if i+1 >= len(rest) {
						return p.gnuUsage("date", "option '--"+name+"' requires an argument", dateUsage)
					}
					i++
					val = rest[i]
				}
				if name == "date" {
					if st := setDate(val); st != 0 {
						return st
					}
				} else if st := setRef(val); st != 0 {
					return st
				}
			case "rfc-email", "rfc-2822":
				format = "%a, %d %b %Y %H:%M:%S %z"
			case "iso-8601":
				if st := setISO(val); st != 0 {
					return st
				}
			default:
				return p.gnuUsage("date", "unrecognized option '"+a+"'", dateUsage)
			}
		default:
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch c {
				case 'u':
				case 'R':
					format = "%a, %d %b %Y %H:%M:%S %z"
				case 'I':
					if st := setISO(a[j+1:]); st != 0 {
						return st
					}
					j = len(a)
				case 'd', 'r':
					v, ok := value(&i, a[j+1:], string(c))
					if !ok {
						return p.gnuUsage("date", "option requires an argument -- '"+string(c)+"'", dateUsage)
					}
					st := 0
					if c == 'd' {
						st = setDate(v)
					} else {
						st = setRef(v)
					}
					if st != 0 {
						return st
					}
					j = len(a)
				default:
					return p.gnuUsage("date", "invalid option -- '"+string(c)+"'", dateUsage)
				}
			}
		}
	}
	for i, op := range operands {
		if i > 0 || !strings.HasPrefix(op, "+") {
			// Setting the clock (date MMDDhhmm) is not something a sandbox can do.
			return p.gnuUsage("date", "extra operand '"+op+"'", dateUsage)
		}
		format = op[1:]
	}
	if _, err := fmt.Fprintln(p.Stdout, strftime(t, format)); err != nil {
		return p.writeFailed("date", err)
	}
	return 0
}

// strftime formats t with C strftime conversions.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		pad := byte(0) // '-' no padding, '_' spaces, '0' zeros
		upper := false // '^': upper case
		for i+1 < len(format) {
			if f := format[i]; f == '-' || f == '_' || f == '0' {
				pad = f
			} else if f == '^' {
				upper = true
			} else {
				break
			}
			i++
		}
		if upper {
			spec := "%" + format[i:i+1]
			if pad != 0 {
				spec = "%" + string(pad) + format[i:i+1]
			}
			b.WriteString(strings.ToUpper(strftime(t, spec)))
			continue
		}
		num := func(n, width int, defPad byte) {
			p := defPad
			if pad != 0 {
				p = pad
			}
			s := strconv.Itoa(n)
			switch p {
			case '-':
			case '_':
				s = strings.Repeat(" ", max(0, width-len(s))) + s
			default:
				s = strings.Repeat("0", max(0, width-len(s))) + s
			}
			b.WriteString(s)
		}
		switch format[i] {
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y"))
		case 'C':
			num(t.Year()/100, 2, '0')
		case 'd':
			num(t.Day(), 2, '0')
		case 'D':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'e':
			num(t.Day(), 2, '_')
		case 'F':
			b.WriteString(strftime(t, "%Y-%m-%d"))
		case 'G':
			y, _ := t.ISOWeek()
			num(y, 4, '0')
		case 'H':
			num(t.Hour(), 2, '0')
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2, '0')
		case 'j':
			num(t.YearDay(), 3, '0')
		case 'k':
			num(t.Hour(), 2, '_')
		case 'l':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2, '_')
		case 'm':
			num(int(t.Month()), 2, '0')
		case 'M':
			num(t.Minute(), 2, '0')
		case 'n':
			b.WriteByte('\n')
		case 'N':
			b.WriteString(fmt.Sprintf("%09d", t.Nanosecond()))
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'P':
			b.WriteString(strings.ToLower(t.Format("PM")))
		case 'r':
			b.WriteString(strftime(t, "%I:%M:%S %p"))
		case 'R':
			b.WriteString(strftime(t, "%H:%M"))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'S':
			num(t.Second(), 2, '0')
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			b.WriteString(strftime(t, "%H:%M:%S"))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			num(wd, 1, '0')
		case 'V':
			_, w := t.ISOWeek()
			num(w, 2, '0')
		case 'w':
			num(int(t.Weekday()), 1, '0')
		case 'U':
			// Week of the year, weeks starting on Sunday.
			num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0')
		case 'W':
			// Week of the year, weeks starting on Monday.
			num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0')
		case 'g':
			y, _ := t.ISOWeek()
			num(y%100, 2, '0')
		case 'x':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'y':
			num(t.Year()%100, 2, '0')
		case 'Y':
			num(t.Year(), 4, '0')
		case 'z':
			b.WriteString(t.Format("-0700"))
		case ':':
			if i+1 < len(format) && format[i+1] == 'z' {
				i++
				b.WriteString(t.Format("-07:00"))
			} else {
				b.WriteString("%:")
			}
		case 'Z':
			b.WriteString(t.Format("MST"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
