package applets

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

const uniqUsage = "uniq [-cdui] [-f N] [-s N] [INPUT [OUTPUT]]"

// uniqApplet collapses adjacent equal lines; -c counts them, -d keeps only
// repeated lines, -u only unique ones, -i ignores case, -f/-s skip fields
// and characters before comparing.
func uniqApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "cduif:s:w:", long: map[string]string{"count": "c", "repeated": "d",
		"unique": "u", "ignore-case": "i", "skip-fields:": "f", "skip-chars:": "s", "check-chars:": "w"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("uniq", err.Error(), uniqUsage)
	}
	var count, repeated, unique, icase bool
	skipFields, skipChars, checkChars := 0, 0, -1
	for _, o := range opts {
		switch o.name {
		case "c":
			count = true
		case "d":
			repeated = true
		case "u":
			unique = true
		case "i":
			icase = true
		case "f", "s", "w":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				return p.usage("uniq", "invalid number: '"+o.val+"'", uniqUsage)
			}
			switch o.name {
			case "f":
				skipFields = n
			case "s":
				skipChars = n
			default:
				checkChars = n
			}
		}
	}
	if len(operands) > 2 {
		return p.usage("uniq", "extra operand '"+operands[2]+"'", uniqUsage)
	}
	in := "-"
	if len(operands) > 0 {
		in = operands[0]
	}
	f, err := p.Open(in)
	if err != nil {
		return p.fileErr("uniq", in, err)
	}
	defer f.Close()
	w := p.Stdout
	if len(operands) == 2 {
		of, err := p.Create(operands[1], false)
		if err != nil {
			return p.fileErr("uniq", operands[1], err)
		}
		defer of.Close()
		w = of
	}
	key := func(line string) string {
		s := line
		for i := 0; i < skipFields; i++ {
			s = strings.TrimLeft(s, " \t")
			if j := strings.IndexAny(s, " \t"); j >= 0 {
				s = s[j:]
			} else {
				s = ""
			}
		}
		s = s[min(skipChars, len(s)):]
		if checkChars >= 0 && checkChars < len(s) {
			s = s[:checkChars]
		}
		if icase {
			s = strings.ToLower(s)
		}
		return s
	}
	out := bufio.NewWriter(w)
	var cur, curKey string // the run's first line and its key, made once per run
	n := 0
	flush := func() error {
		if n == 0 || repeated && n < 2 || unique && n > 1 {
			return nil
		}
		var err error
		if count {
			_, err = fmt.Fprintf(out, "%7d %s\n", n, cur)
		} else if _, err = out.WriteString(cur); err == nil {
			err = out.WriteByte('\n')
		}
		return err
	}
	err = eachLine(f, func(line string) error {
		k := key(line)
		if n > 0 && k == curKey {
			n++
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		cur, curKey, n = line, k, 1
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		if brokenPipe(err) {
			return StatusBrokenPipe
		}
		return p.fileErr("uniq", in, err)
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("uniq", err)
	}
	return 0
}
