package applets

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// nlApplet numbers lines: non-empty ones by default (-b t), all with -b a,
// none with -b n, those matching a basic regular expression with -b pRE;
// -n ln|rn|rz, -w width, -s separator, -v first number, -i increment.
// Logical-page sections (\:\:\:) are not recognised.
func nlApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "b:w:s:v:i:n:"}
	opts, files, err := spec.parse(args[1:])
	usage := "nl [-b a|t|n] [-w WIDTH] [-s SEP] [-v START] [-i INCR] [FILE]..."
	if err != nil {
		return p.gnuUsage("nl", err.Error(), usage)
	}
	style, width, sep, num, incr, format := "t", 6, "\t", 1, 1, "rn"
	for _, o := range opts {
		switch o.name {
		case "b":
			style = o.val
			if !(style == "a" || style == "t" || style == "n" || strings.HasPrefix(style, "p")) {
				p.errorf("nl", "invalid body numbering style: '%s'", o.val)
				return 1
			}
		case "s":
			sep = o.val
		case "n":
			format = o.val
			if format != "ln" && format != "rn" && format != "rz" {
				p.errorf("nl", "invalid line numbering format: '%s'", o.val)
				return 1
			}
		case "w", "v", "i":
			n, err := strconv.Atoi(o.val)
			if err != nil {
				p.errorf("nl", "invalid line number %s: '%s'", map[string]string{"w": "field width", "v": "start value", "i": "increment"}[o.name], o.val)
				return 1
			}
			switch o.name {
			case "w":
				width = n
			case "v":
				num = n
			default:
				incr = n
			}
		}
	}
	var match *regexp.Regexp
	if strings.HasPrefix(style, "p") {
		if match, err = compileRE(style[1:], basicRE, false); err != nil {
			p.errorf("nl", "%s", err)
			return 1
		}
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("nl", name, err)
			continue
		}
		err = eachLine(f, func(l string) error {
			if style == "n" || style == "t" && l == "" || match != nil && !match.MatchString(l) {
				_, err := out.WriteString(strings.Repeat(" ", width+len(sep)) + l + "\n")
				return err
			}
			var n string
			switch format {
			case "ln":
				n = fmt.Sprintf("%-*d", width, num)
			case "rz":
				n = fmt.Sprintf("%0*d", width, num)
			default:
				n = fmt.Sprintf("%*d", width, num)
			}
			num += incr
			_, err := out.WriteString(n + sep + l + "\n")
			return err
		})
		f.Close()
		if err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			status = p.fileErr("nl", name, err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("nl", err)
	}
	return status
}
