package applets

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const dateUsage = "date [-u] [-d STRING] [-r FILE] [-I[date|hours|minutes|seconds]] [-R] [+FORMAT]"

// dateApplet prints the time (now, -d STRING, or -r FILE's modification
// time) in the default format, ISO 8601 (-I), RFC 5322 (-R) or a strftime
// +FORMAT. The sandbox clock is UTC.
func dateApplet(p *Proc, args []string) int {
	t := time.Now().UTC()
	format := "%a %b %e %H:%M:%S %Z %Y"
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-u" || a == "--utc" || a == "--universal":
		case a == "-d" || a == "--date" || strings.HasPrefix(a, "--date=") || strings.HasPrefix(a, "-d") && len(a) > 2:
			var s string
			switch {
			case strings.HasPrefix(a, "--date="):
				s = a[len("--date="):]
			case len(a) > 2 && a != "--date":
				s = a[2:]
			default:
				if i+1 >= len(rest) {
					return p.usage("date", "option requires an argument -- 'd'", dateUsage)
				}
				i++
				s = rest[i]
			}
			parsed, err := parseDate(s, time.Now().UTC())
			if err != nil {
				p.errorf("date", "invalid date '%s'", s)
				return 1
			}
			t = parsed
		case a == "-r" || a == "--reference":
			if i+1 >= len(rest) {
				return p.usage("date", "option requires an argument -- 'r'", dateUsage)
			}
			i++
			st, err := os.Stat(p.Path(rest[i]))
			if err != nil {
				return p.fileErr("date", rest[i], err)
			}
			t = st.ModTime().UTC()
		case a == "-R" || a == "--rfc-email":
			format = "%a, %d %b %Y %H:%M:%S %z"
		case strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "--iso-8601"):
			spec := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(a, "--iso-8601"), "-I"), "=")
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
				return p.usage("date", "invalid argument '"+spec+"' for '--iso-8601'", dateUsage)
			}
		case strings.HasPrefix(a, "+"):
			format = a[1:]
		default:
			return p.usage("date", "invalid option or operand '"+a+"'", dateUsage)
		}
	}
	if _, err := fmt.Fprintln(p.Stdout, strftime(t, format)); err != nil {
		return p.writeFailed("date", err)
	}
	return 0
}

var relativeDate = regexp.MustCompile(`^([+-]?\d+)\s*(second|sec|minute|min|hour|day|week|month|year)s?(\s+ago)?$`)

// parseDate understands @EPOCH, now, today, yesterday, tomorrow, "N UNIT
// [ago]", and ISO 8601 / RFC 3339 / RFC 1123 style dates.
func parseDate(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "now", "":
		return now, nil
	case "today":
		return now, nil
	case "yesterday":
		return now.AddDate(0, 0, -1), nil
	case "tomorrow":
		return now.AddDate(0, 0, 1), nil
	}
	if strings.HasPrefix(s, "@") {
		f, err := strconv.ParseFloat(s[1:], 64)
		if err != nil {
			return time.Time{}, err
		}
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), nil
	}
	if m := relativeDate.FindStringSubmatch(strings.ToLower(s)); m != nil {
		n, _ := strconv.Atoi(m[1])
		if m[3] != "" {
			n = -n
		}
		switch m[2] {
		case "second", "sec":
			return now.Add(time.Duration(n) * time.Second), nil
		case "minute", "min":
			return now.Add(time.Duration(n) * time.Minute), nil
		case "hour":
			return now.Add(time.Duration(n) * time.Hour), nil
		case "day":
			return now.AddDate(0, 0, n), nil
		case "week":
			return now.AddDate(0, 0, 7*n), nil
		case "month":
			return now.AddDate(0, n, 0), nil
		case "year":
			return now.AddDate(n, 0, 0), nil
		}
	}
	for _, layout := range []string{
		time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05",
		"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02", "2006/01/02", "2006-01-02 15:04:05 -0700",
		"2006-01-02 15:04:05 MST", time.RFC1123Z, time.RFC1123, time.UnixDate, time.ANSIC,
		"Jan 2 2006", "Jan 2, 2006", "2 Jan 2006", "January 2, 2006", "01/02/2006",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid date")
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
		if f := format[i]; (f == '-' || f == '_' || f == '0') && i+1 < len(format) {
			pad = f
			i++
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
