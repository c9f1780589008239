package applets

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
)

const numfmtUsage = "numfmt [--from=none|auto|si|iec|iec-i] [--to=none|si|iec|iec-i] [--from-unit=N] [--to-unit=N] " +
	"[--suffix=S] [--padding=N] [--round=METHOD] [--format=FMT] [--field=FIELDS] [-d X] [--header[=N]] " +
	"[--invalid=abort|fail|warn|ignore] [NUMBER]..."

// numfmtPowers are the unit letters of the powers of 1000 (or 1024).
const numfmtPowers = "KMGTPEZYRQ"

// numfmtOptions are numfmt's parsed flags.
type numfmtOptions struct {
	from, to           string
	fromUnit, toUnit   float64
	suffix             string
	padding            int // 0 none (auto), >0 right-aligned, <0 left-aligned
	round              string
	fields             []fieldRange
	delim              byte // 0: runs of blanks
	header             int
	invalid            string
	prefix, fmtSuffix  string // text around the --format directive
	fmtWidth, userPrec int    // --format's width and precision (-1: none)
	fmtLeft, fmtZero   bool
}

// fieldRange is one item of --field: lo..hi, hi 0 meaning to the end.
type fieldRange struct{ lo, hi int }

// numfmtApplet converts numbers to and from human-readable sizes as GNU
// numfmt does: --from reads suffixes (K = 1000 with si, 1024 with iec, Ki
// = 1024 with auto or iec-i), --to writes them (one decimal below 10,
// rounded away from zero by default), in one field of each line (--field,
// -d) of the operands or of stdin; --padding, --format and --suffix shape
// the output. A field that is not a number fails the run (status 2)
// unless --invalid says otherwise.
func numfmtApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "d:", long: map[string]string{"from:": "from", "to:": "to", "from-unit:": "from-unit",
		"to-unit:": "to-unit", "suffix:": "suffix", "padding:": "padding", "round:": "round", "format:": "format",
		"field:": "field", "delimiter:": "d", "header": "header", "invalid:": "invalid", "grouping": "grouping",
		"debug": "debug", "zero-terminated": "z"}}
	// --header takes an optional value: rewrite "--header=N" for the parser.
	var rest []string
	header := 0
	for _, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, "--header="); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				p.errorf("numfmt", "invalid header value '%s'", v)
				return 1
			}
			header = n
			continue
		}
		rest = append(rest, a)
	}
	opts, operands, err := spec.parse(rest)
	if err != nil {
		return p.gnuUsage("numfmt", err.Error(), numfmtUsage)
	}
	o := numfmtOptions{from: "none", to: "none", fromUnit: 1, toUnit: 1, round: "from-zero",
		fields: []fieldRange{{1, 1}}, header: header, invalid: "abort", userPrec: -1}
	oneOf := func(opt, v string, valid ...string) bool {
		for _, x := range valid {
			if v == x {
				return true
			}
		}
		p.errorf("numfmt", "invalid argument '%s' for '--%s'", v, opt)
		return false
	}
	haveFormat := false
	for _, op := range opts {
		switch op.name {
		case "from":
			if !oneOf("from", op.val, "none", "auto", "si", "iec", "iec-i") {
				return 1
			}
			o.from = op.val
		case "to":
			if !oneOf("to", op.val, "none", "si", "iec", "iec-i") {
				return 1
			}
			o.to = op.val
		case "from-unit", "to-unit":
			u, ok := numfmtUnit(op.val)
			if !ok {
				p.errorf("numfmt", "invalid unit size: '%s'", op.val)
				return 1
			}
			if op.name == "from-unit" {
				o.fromUnit = u
			} else {
				o.toUnit = u
			}
		case "suffix":
			o.suffix = op.val
		case "padding":
			n, err := strconv.Atoi(op.val)
			if err != nil || n == 0 {
				p.errorf("numfmt", "invalid padding value '%s'", op.val)
				return 1
			}
			o.padding = n
		case "round":
			if !oneOf("round", op.val, "up", "down", "from-zero", "towards-zero", "nearest") {
				return 1
			}
			o.round = op.val
		case "format":
			if !o.parseFormat(op.val) {
				p.errorf("numfmt", "invalid format '%s', directive must be %%[0]['][-][N][.][N]f", op.val)
				return 1
			}
			haveFormat = true
		case "field":
			fr, ok := parseFieldRanges(op.val)
			if !ok {
				p.errorf("numfmt", "invalid field value '%s'", op.val)
				return 1
			}
			o.fields = fr
		case "d":
			if len(op.val) > 1 {
				p.errorf("numfmt", "the delimiter must be a single character")
				return 1
			}
			o.delim = 0
			if op.val != "" {
				o.delim = op.val[0]
			} else {
				o.delim = 0xff // -d '' is the NUL byte in GNU; no line here holds one
			}
		case "header":
			o.header = 1
		case "invalid":
			if !oneOf("invalid", op.val, "abort", "fail", "warn", "ignore") {
				return 1
			}
			o.invalid = op.val
		case "grouping":
			// The sandbox's locale (C) has no thousands separator: GNU
			// numfmt prints nothing different there either.
		case "z":
			return p.gnuUsage("numfmt", "-z (NUL-terminated lines) is not supported", numfmtUsage)
		}
	}
	if haveFormat && o.padding != 0 {
		p.errorf("numfmt", "--padding cannot be combined with --format")
		return 1
	}
	out := bufio.NewWriter(p.Stdout)
	failed := false
	line := func(l string) bool {
		text, ok, msg := o.convertLine(l)
		if !ok {
			if o.invalid != "ignore" {
				out.Flush()
				p.errorf("numfmt", "%s", msg)
			}
			if o.invalid == "abort" {
				return false
			}
			failed = true
		}
		out.WriteString(text)
		out.WriteByte('\n')
		return true
	}
	status := 0
	if len(operands) > 0 {
		for _, a := range operands {
			if !line(a) {
				status = 2
				break
			}
		}
	} else {
		n := 0
		err := eachLine(p.Stdin, func(l string) error {
			n++
			if n <= o.header {
				out.WriteString(l + "\n")
				return nil
			}
			if !line(l) {
				status = 2
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			return p.fileErr("numfmt", "-", err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("numfmt", err)
	}
	if status == 0 && failed && o.invalid == "fail" {
		status = 2
	}
	return status
}

// errStop ends an eachLine loop early.
var errStop = fmt.Errorf("stop")

// numfmtUnit reads a --from-unit/--to-unit size: digits with an optional
// K, M, ... (powers of 1000) or Ki, Mi, ... (powers of 1024).
func numfmtUnit(s string) (float64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	rest := s[i:]
	if rest == "" {
		return n, true
	}
	pw := strings.IndexByte(numfmtPowers, rest[0])
	if pw < 0 {
		return 0, false
	}
	base := 1000.0
	switch rest[1:] {
	case "":
	case "i":
		base = 1024
	default:
		return 0, false
	}
	return n * math.Pow(base, float64(pw+1)), true
}

// parseFieldRanges reads cut-style field lists: N, N-, -M, N-M, ...
func parseFieldRanges(s string) ([]fieldRange, bool) {
	var out []fieldRange
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		r := fieldRange{1, 0}
		var err error
		if lo != "" {
			if r.lo, err = strconv.Atoi(lo); err != nil || r.lo < 1 {
				return nil, false
			}
		}
		switch {
		case !isRange:
			r.hi = r.lo
		case hi != "":
			if r.hi, err = strconv.Atoi(hi); err != nil || r.hi < r.lo {
				return nil, false
			}
		case lo == "":
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

// selected reports whether field n (1-based) is to be converted.
func (o *numfmtOptions) selected(n int) bool {
	for _, r := range o.fields {
		if n >= r.lo && (r.hi == 0 || n <= r.hi) {
			return true
		}
	}
	return false
}

// parseFormat reads --format: text, one %[0]['][-][N][.N]f, text.
func (o *numfmtOptions) parseFormat(f string) bool {
	i := strings.IndexByte(f, '%')
	for i >= 0 && i+1 < len(f) && f[i+1] == '%' {
		j := strings.IndexByte(f[i+2:], '%')
		if j < 0 {
			i = -1
		} else {
			i += 2 + j
		}
	}
	if i < 0 {
		return false
	}
	o.prefix = strings.ReplaceAll(f[:i], "%%", "%")
	j := i + 1
	for ; j < len(f) && strings.IndexByte("0'-", f[j]) >= 0; j++ {
		switch f[j] {
		case '0':
			o.fmtZero = true
		case '-':
			o.fmtLeft = true
		}
	}
	w := j
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		j++
	}
	if j > w {
		o.fmtWidth, _ = strconv.Atoi(f[w:j])
	}
	if j < len(f) && f[j] == '.' {
		j++
		pr := j
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		o.userPrec, _ = strconv.Atoi(f[pr:j])
	}
	if j >= len(f) || f[j] != 'f' {
		return false
	}
	o.fmtSuffix = strings.ReplaceAll(f[j+1:], "%%", "%")
	return !strings.Contains(strings.ReplaceAll(o.fmtSuffix, "%%", ""), "%")
}

// convertLine converts the selected fields of one line. Fields are split
// as GNU numfmt splits them: with the default delimiter a field is its
// leading blanks and the word after them, and the one blank after a field
// is the separator, printed back as a space.
func (o *numfmtOptions) convertLine(line string) (string, bool, string) {
	var b strings.Builder
	rest := line
	ok, msg := true, ""
	for n := 1; ; n++ {
		end := 0
		if o.delim != 0 {
			end = strings.IndexByte(rest, o.delim)
			if end < 0 {
				end = len(rest)
			}
		} else {
			for end < len(rest) && (rest[end] == ' ' || rest[end] == '\t') {
				end++
			}
			for end < len(rest) && rest[end] != ' ' && rest[end] != '\t' {
				end++
			}
		}
		field := rest[:end]
		if o.selected(n) && ok {
			text, good, why := o.convertField(field, n)
			if good {
				field = text
			} else {
				ok, msg = false, why
			}
		}
		b.WriteString(field)
		if end >= len(rest) {
			break
		}
		if o.delim != 0 {
			b.WriteByte(o.delim)
		} else {
			b.WriteByte(' ')
		}
		rest = rest[end+1:]
	}
	return b.String(), ok, msg
}

// convertField converts one field (of number n on its line).
func (o *numfmtOptions) convertField(field string, n int) (string, bool, string) {
	text := field
	if o.suffix != "" && len(text) > len(o.suffix) && strings.HasSuffix(text, o.suffix) {
		text = strings.TrimSuffix(text, o.suffix)
	}
	num := strings.TrimLeft(text, " \t")
	width := 0
	if o.padding != 0 {
		width = o.padding
	} else if o.delim == 0 && (len(num) < len(text) || n > 1) {
		width = len(text)
	}
	val, prec, err := o.parseHuman(num)
	if err != "" {
		return "", false, err
	}
	val = val * o.fromUnit / o.toUnit
	s, unit, err := o.toHuman(val, prec)
	if err != "" {
		return "", false, strings.ReplaceAll(err, "%s", num)
	}
	if o.fmtZero && o.fmtWidth > 0 && !o.fmtLeft {
		// printf's zero padding: the digits fill the width, the unit
		// and suffix come after.
		if neg := strings.HasPrefix(s, "-"); neg && len(s) < o.fmtWidth {
			s = "-" + strings.Repeat("0", o.fmtWidth-len(s)) + s[1:]
		} else if len(s) < o.fmtWidth {
			s = strings.Repeat("0", o.fmtWidth-len(s)) + s
		}
		width = 0
	} else if o.fmtWidth > 0 {
		width = o.fmtWidth
		if o.fmtLeft {
			width = -width
		}
	}
	s += unit + o.suffix
	switch {
	case width > 0 && len(s) < width:
		s = strings.Repeat(" ", width-len(s)) + s
	case width < 0 && len(s) < -width:
		s += strings.Repeat(" ", -width-len(s))
	}
	return o.prefix + s + o.fmtSuffix, true, ""
}

// parseHuman reads a number with an optional unit suffix as --from
// allows; prec is the number of decimals written (0 once scaled).
func (o *numfmtOptions) parseHuman(s string) (float64, int, string) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	prec := 0
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		prec = i - d
		digits += prec
		if prec == 0 {
			return 0, 0, fmt.Sprintf("invalid number: '%s'", s)
		}
	}
	if digits == 0 {
		return 0, 0, fmt.Sprintf("invalid number: '%s'", s)
	}
	val, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, 0, fmt.Sprintf("invalid number: '%s'", s)
	}
	rest := s[i:]
	if rest == "" {
		return val, prec, ""
	}
	pw := strings.IndexByte(numfmtPowers, rest[0])
	if pw < 0 {
		return 0, 0, fmt.Sprintf("invalid suffix in input: '%s'", s)
	}
	if o.from == "none" {
		return 0, 0, fmt.Sprintf("rejecting suffix in input: '%s' (consider using --from)", s)
	}
	base := 1000.0
	after := rest[1:]
	switch o.from {
	case "iec":
		base = 1024
	case "auto":
		if strings.HasPrefix(after, "i") {
			base, after = 1024, after[1:]
		}
	case "iec-i":
		if !strings.HasPrefix(after, "i") {
			return 0, 0, fmt.Sprintf("missing 'i' suffix in input: '%s' (e.g. Ki/Mi/Gi)", s)
		}
		base, after = 1024, after[1:]
	}
	if after != "" {
		return 0, 0, fmt.Sprintf("invalid suffix in input '%s': '%s'", s, after)
	}
	return val * math.Pow(base, float64(pw+1)), 0, ""
}

// roundBy rounds v to an integer by the --round method.
func (o *numfmtOptions) roundBy(v float64) float64 {
	switch o.round {
	case "up":
		return math.Ceil(v)
	case "down":
		return math.Floor(v)
	case "towards-zero":
		return math.Trunc(v)
	case "nearest":
		return math.Round(v)
	}
	if v < 0 {
		return math.Floor(v)
	}
	return math.Ceil(v)
}

// toHuman prints val as --to asks: the number and its unit letter(s);
// "%s" in an error stands for the input.
func (o *numfmtOptions) toHuman(val float64, prec int) (string, string, string) {
	if o.userPrec >= 0 {
		prec = o.userPrec
	}
	if o.to == "none" {
		if math.Abs(val) >= 1e27 {
			return "", "", "value too large to be printed: '%s' (consider using --to)"
		}
		scale := math.Pow(10, float64(prec))
		return strconv.FormatFloat(o.roundBy(val*scale)/scale, 'f', prec, 64), "", ""
	}
	if math.Abs(val) >= 1e27 {
		return "", "", "value too large to be converted: '%s'"
	}
	base := 1000.0
	if o.to != "si" {
		base = 1024
	}
	power := 0
	for math.Abs(val) >= base && power < len(numfmtPowers) {
		val /= base
		power++
	}
	adjust := 0
	switch {
	case o.userPrec >= 0:
		adjust = min(power*3, o.userPrec)
	case math.Abs(val) < 10:
		adjust = 1
	}
	scale := math.Pow(10, float64(adjust))
	val = o.roundBy(val*scale) / scale
	if math.Abs(val) >= base && power < len(numfmtPowers) {
		val /= base
		power++
	}
	digits := 0
	switch {
	case o.userPrec >= 0:
		digits = o.userPrec
	case val != 0 && math.Abs(val) < 10 && power > 0:
		digits = 1
	}
	unit := ""
	if power > 0 {
		unit = numfmtPowers[power-1 : power]
		if o.to == "iec-i" {
			unit += "i"
		}
	}
	return strconv.FormatFloat(val, 'f', digits, 64), unit, ""
}
