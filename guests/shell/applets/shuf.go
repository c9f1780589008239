package applets

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"io"
	mrand "math/rand/v2"
	"strconv"
	"strings"
)

const shufUsage = "shuf [-r] [-n COUNT] [-o FILE] [--random-source=FILE] [FILE] | -e [ARG]... | -i LO-HI"

// shufApplet prints its input lines (a file, stdin, the operands with -e,
// or the numbers LO..HI with -i) in random order; -n prints at most COUNT
// of them, -r picks with repetition (forever without -n). The generator is
// seeded from the sandbox's random source on every run, so two runs
// differ; --random-source=FILE seeds it from the file's bytes instead,
// which makes the order repeatable (but not GNU shuf's order for the same
// file).
func shufApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "ei:n:o:rz", long: map[string]string{"echo": "e", "input-range:": "i",
		"head-count:": "n", "output:": "o", "random-source:": "random-source", "repeat": "r", "zero-terminated": "z"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("shuf", err.Error(), shufUsage)
	}
	echo, repeat := false, false
	var rangeSpec, output, source string
	haveRange := false
	count := int64(-1)
	for _, o := range opts {
		switch o.name {
		case "e":
			echo = true
		case "i":
			if haveRange && o.val != rangeSpec {
				p.errorf("shuf", "multiple -i options specified")
				return 1
			}
			rangeSpec, haveRange = o.val, true
		case "n":
			n, err := strconv.ParseInt(o.val, 10, 64)
			if err != nil || n < 0 {
				p.errorf("shuf", "invalid line count: '%s'", o.val)
				return 1
			}
			if count < 0 || n < count {
				count = n
			}
		case "o":
			output = o.val
		case "random-source":
			source = o.val
		case "r":
			repeat = true
		case "z":
			return p.gnuUsage("shuf", "-z (NUL-terminated lines) is not supported", shufUsage)
		}
	}
	if echo && haveRange {
		return p.gnuUsage("shuf", "cannot combine -e and -i options", shufUsage)
	}
	rng, status := p.shufRandom(source)
	if status != 0 {
		return status
	}
	// The population: lines, or the range lo..hi.
	var lines []string
	var lo, hi int64
	switch {
	case haveRange:
		if len(operands) > 0 {
			return p.gnuUsage("shuf", "extra operand '"+operands[0]+"'", shufUsage)
		}
		a, b, ok := strings.Cut(rangeSpec, "-")
		var errA, errB error
		lo, errA = strconv.ParseInt(a, 10, 64)
		hi, errB = strconv.ParseInt(b, 10, 64)
		switch {
		case errA != nil || lo < 0:
			p.errorf("shuf", "invalid input range: '%s'", a)
			return 1
		case !ok || errB != nil || hi < 0:
			p.errorf("shuf", "invalid input range: '%s'", rangeSpec)
			return 1
		case hi < lo-1:
			p.errorf("shuf", "invalid input range: '%s'", rangeSpec)
			return 1
		}
	case echo:
		lines = operands
	default:
		if len(operands) > 1 {
			return p.gnuUsage("shuf", "extra operand '"+operands[1]+"'", shufUsage)
		}
		name := "-"
		if len(operands) == 1 {
			name = operands[0]
		}
		f, err := p.Open(name)
		if err != nil {
			return p.fileErr("shuf", name, err)
		}
		lines, err = readLines(f)
		f.Close()
		if err != nil {
			return p.fileErr("shuf", name, err)
		}
	}
	n := int64(len(lines))
	item := func(i int64) string { return lines[i] }
	if haveRange {
		n = hi - lo + 1
		item = func(i int64) string { return strconv.FormatInt(lo+i, 10) }
	}
	var out io.Writer = p.Stdout
	if output != "" {
		f, err := p.Create(output, false)
		if err != nil {
			return p.fileErr("shuf", output, err)
		}
		defer f.Close()
		out = f
	}
	w := bufio.NewWriter(out)
	if repeat {
		if n == 0 {
			if count == 0 {
				return 0
			}
			p.errorf("shuf", "no lines to repeat")
			return 1
		}
		for i := int64(0); count < 0 || i < count; i++ {
			if i%1024 == 0 && p.cancelled() {
				w.Flush()
				return 130
			}
			w.WriteString(item(rng.Int64N(n)))
			if err := w.WriteByte('\n'); err != nil {
				return p.writeFailed("shuf", err)
			}
		}
	} else {
		if count < 0 || count > n {
			count = n
		}
		// A partial Fisher-Yates shuffle over a sparse index, so -i over a
		// huge range with a small -n needs little memory.
		swapped := map[int64]int64{}
		at := func(i int64) int64 {
			if v, ok := swapped[i]; ok {
				return v
			}
			return i
		}
		for i := int64(0); i < count; i++ {
			j := i + rng.Int64N(n-i)
			vi, vj := at(i), at(j)
			swapped[j] = vi
			delete(swapped, i)
			w.WriteString(item(vj))
			if err := w.WriteByte('\n'); err != nil {
				return p.writeFailed("shuf", err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return p.writeFailed("shuf", err)
	}
	return 0
}

// shufRandom returns the generator: seeded from the sandbox's random
// source, or from the bytes of --random-source FILE.
func (p *Proc) shufRandom(source string) (*mrand.Rand, int) {
	var seed [32]byte
	if source == "" {
		if _, err := rand.Read(seed[:]); err != nil {
			p.errorf("shuf", "no random source: %v", err)
			return nil, 1
		}
		return mrand.New(mrand.NewChaCha8(seed)), 0
	}
	f, err := p.Open(source)
	if err != nil {
		return nil, p.fileErr("shuf", source, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, p.fileErr("shuf", source, err)
	}
	if n == 0 {
		p.errorf("shuf", "%s: end of file", source)
		return nil, 1
	}
	copy(seed[:], h.Sum(nil))
	return mrand.New(mrand.NewChaCha8(seed)), 0
}
