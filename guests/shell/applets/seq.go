package applets

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
)

const seqUsage = "seq [-w] [-s SEP] [-f FORMAT] [FIRST [INCREMENT]] LAST"

// seqApplet prints a sequence of numbers: seq LAST, seq FIRST LAST, seq
// FIRST INCREMENT LAST; -s separator, -w equal width, -f printf format.
func seqApplet(p *Proc, args []string) int {
	// Negative numbers are operands, not options.
	var opts []opt
	var nums []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-w" || a == "--equal-width":
			opts = append(opts, opt{"w", ""})
		case a == "-s" || a == "-f":
			if i+1 >= len(rest) {
				return p.usage("seq", "option requires an argument -- '"+a[1:]+"'", seqUsage)
			}
			opts = append(opts, opt{a[1:], rest[i+1]})
			i++
		case strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "-f"):
			if _, err := strconv.ParseFloat(a, 64); err != nil {
				opts = append(opts, opt{a[1:2], a[2:]})
				continue
			}
			nums = append(nums, a)
		default:
			nums = append(nums, a)
		}
	}
	sep, format, width := "\n", "", false
	for _, o := range opts {
		switch o.name {
		case "s":
			sep = o.val
		case "f":
			format = o.val
		case "w":
			width = true
		}
	}
	if len(nums) == 0 || len(nums) > 3 {
		return p.usage("seq", "", seqUsage)
	}
	vals := make([]float64, len(nums))
	decimals := 0
	for i, s := range nums {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return p.usage("seq", "invalid floating point argument: '"+s+"'", seqUsage)
		}
		vals[i] = v
		if i < 2 || len(nums) == 1 {
			if dot := strings.IndexByte(s, '.'); dot >= 0 {
				decimals = max(decimals, len(s)-dot-1)
			}
		}
	}
	first, step, last := 1.0, 1.0, vals[len(vals)-1]
	switch len(vals) {
	case 2:
		first = vals[0]
	case 3:
		first, step = vals[0], vals[1]
	}
	if step == 0 {
		return p.usage("seq", "invalid Zero increment value: '"+nums[1]+"'", seqUsage)
	}
	formatNum := func(v float64) string {
		if format != "" {
			return fmt.Sprintf(strings.ReplaceAll(format, "%g", "%v"), v)
		}
		return strconv.FormatFloat(v, 'f', decimals, 64)
	}
	w := 0
	if width {
		w = max(len(formatNum(first)), len(formatNum(last)))
	}
	out := bufio.NewWriter(p.Stdout)
	n := 0
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if step > 0 && v > last+1e-9*math.Abs(step) || step < 0 && v < last-1e-9*math.Abs(step) {
			break
		}
		if i%4096 == 0 && p.cancelled() {
			return 130
		}
		s := formatNum(v)
		if width && len(s) < w {
			if strings.HasPrefix(s, "-") {
				s = "-" + strings.Repeat("0", w-len(s)) + s[1:]
			} else {
				s = strings.Repeat("0", w-len(s)) + s
			}
		}
		if n > 0 {
			s = sep + s
		}
		n++
		if _, err := out.WriteString(s); err != nil {
			return p.writeFailed("seq", err)
		}
	}
	if n > 0 {
		if _, err := out.WriteString("\n"); err != nil {
			return p.writeFailed("seq", err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("seq", err)
	}
	return 0
}
