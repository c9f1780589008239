package applets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const odUsage = "od [-A d|o|x|n] [-t TYPE]... [-bcdox] [-j SKIP] [-N COUNT] [-v] [-w[WIDTH]] [FILE]..."

// odFormat is one -t type: a (named characters), c (characters or
// escapes), d, o, u, x (integers of size bytes); z adds the printable text.
type odFormat struct {
	kind  byte
	size  int
	width int // characters per field, the separating space included
	text  bool
}

// odApplet dumps its input as GNU od does: the offset (-A), then one line
// per -t type for every -w bytes (16), fields aligned across the types,
// repeated lines shown once as "*" unless -v; -j skips and -N limits the
// bytes read. Floating-point types are not supported.
func odApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "A:bcdj:N:ot:vw:x", long: map[string]string{"address-radix:": "A", "skip-bytes:": "j",
		"read-bytes:": "N", "format:": "t", "output-duplicates": "v", "width:": "w"}}
	// -w and --width take an optional value.
	var rest []string
	width := 16
	for _, a := range args[1:] {
		if a == "-w" || a == "--width" {
			width = 32
			continue
		}
		rest = append(rest, a)
	}
	opts, files, err := spec.parse(rest)
	if err != nil {
		return p.gnuUsage("od", err.Error(), odUsage)
	}
	radix := byte('o')
	var formats []odFormat
	skip, limit := int64(0), int64(-1)
	dups := false
	add := func(t string) bool {
		fs, ok := parseODTypes(t)
		if !ok {
			return false
		}
		formats = append(formats, fs...)
		return true
	}
	for _, o := range opts {
		switch o.name {
		case "A":
			if len(o.val) != 1 || !strings.Contains("doxn", o.val) {
				p.errorf("od", "invalid output address radix '%s'; it must be one character from [doxn]", o.val)
				return 1
			}
			radix = o.val[0]
		case "b":
			add("o1")
		case "c":
			add("c")
		case "d":
			add("u2")
		case "o":
			add("o2")
		case "x":
			add("x2")
		case "t":
			if !add(o.val) {
				bad := o.val
				for i := 0; i < len(o.val); i++ {
					if !strings.ContainsRune("acdouxCSIL0123456789z", rune(o.val[i])) {
						bad = o.val[i : i+1]
						break
					}
				}
				if len(bad) == 1 {
					p.errorf("od", "invalid character '%s' in type string '%s'", bad, o.val)
				} else {
					p.errorf("od", "invalid type string '%s'", o.val)
				}
				return 1
			}
		case "j", "N":
			n, ok := parseSizeSuffix(o.val)
			if !ok {
				if v, err := strconv.ParseInt(o.val, 0, 64); err == nil && v >= 0 {
					n, ok = v, true
				}
			}
			if !ok || n < 0 {
				p.errorf("od", "invalid %s argument '%s'", map[string]string{"j": "skip", "N": "count"}[o.name], o.val)
				return 1
			}
			if o.name == "j" {
				skip = n
			} else {
				limit = n
			}
		case "v":
			dups = true
		case "w":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				p.errorf("od", "invalid -w argument '%s'", o.val)
				return 1
			}
			width = n
		}
	}
	if len(formats) == 0 {
		formats, _ = parseODTypes("o2")
	}
	// The block must hold a whole number of every type's items.
	for _, f := range formats {
		if width%f.size != 0 {
			p.errorf("od", "invalid -w argument '%d'", width)
			return 1
		}
	}
	// Read everything the dump covers (files one after another).
	var data bytes.Buffer
	status := 0
	for _, name := range inputs(files) {
		f, err := p.Open(name)
		if err != nil {
			status = p.fileErr("od", name, err)
			continue
		}
		_, err = io.Copy(&data, f)
		f.Close()
		if err != nil {
			status = p.fileErr("od", name, err)
		}
	}
	all := data.Bytes()
	if status != 0 && len(all) == 0 {
		return status
	}
	if skip > int64(len(all)) {
		p.errorf("od", "cannot skip past end of combined input")
		return 1
	}
	all = all[skip:]
	if limit >= 0 && limit < int64(len(all)) {
		all = all[:limit]
	}
	out := bufio.NewWriter(p.Stdout)
	odDump(out, all, skip, radix, formats, width, dups)
	if err := out.Flush(); err != nil {
		return p.writeFailed("od", err)
	}
	return status
}

// parseODTypes reads one -t argument, which may hold several types
// ("x1z", "cd4").
func parseODTypes(t string) ([]odFormat, bool) {
	var out []odFormat
	for len(t) > 0 {
		f := odFormat{kind: t[0]}
		t = t[1:]
		switch f.kind {
		case 'a', 'c':
			f.size, f.width = 1, 4
		case 'd', 'o', 'u', 'x':
			f.size = 4
			if len(t) > 0 {
				switch t[0] {
				case 'C':
					f.size, t = 1, t[1:]
				case 'S':
					f.size, t = 2, t[1:]
				case 'I':
					f.size, t = 4, t[1:]
				case 'L':
					f.size, t = 8, t[1:]
				default:
					i := 0
					for i < len(t) && t[i] >= '0' && t[i] <= '9' {
						i++
					}
					if i > 0 {
						n, _ := strconv.Atoi(t[:i])
						if n != 1 && n != 2 && n != 4 && n != 8 {
							return nil, false
						}
						f.size, t = n, t[i:]
					}
				}
			}
			f.width = 1 + odDigits(f.kind, f.size)
		default:
			return nil, false
		}
		if len(t) > 0 && t[0] == 'z' {
			f.text, t = true, t[1:]
		}
		out = append(out, f)
	}
	return out, len(out) > 0
}

// odDigits is the widest value of an integer type, in characters.
func odDigits(kind byte, size int) int {
	max := uint64(1)<<(8*size) - 1
	if size == 8 {
		max = ^uint64(0)
	}
	switch kind {
	case 'o':
		return len(strconv.FormatUint(max, 8))
	case 'x':
		return 2 * size
	case 'u':
		return len(strconv.FormatUint(max, 10))
	}
	// d: the most negative value, with its sign.
	return len(strconv.FormatInt(-int64(max>>1)-1, 10))
}

var odNames = [...]string{"nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr", "so", "si",
	"dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp"}

// odField formats one item of a block.
func odField(f odFormat, b []byte) string {
	switch f.kind {
	case 'a':
		c := b[0] & 0x7f
		switch {
		case int(c) < len(odNames):
			return odNames[c]
		case c == 0x7f:
			return "del"
		}
		return string(rune(c))
	case 'c':
		switch c := b[0]; {
		case c == 0:
			return `\0`
		case c == '\a':
			return `\a`
		case c == '\b':
			return `\b`
		case c == '\t':
			return `\t`
		case c == '\n':
			return `\n`
		case c == '\v':
			return `\v`
		case c == '\f':
			return `\f`
		case c == '\r':
			return `\r`
		case c >= 0x20 && c < 0x7f:
			return string(rune(c))
		default:
			return fmt.Sprintf("%03o", c)
		}
	}
	var v uint64
	switch f.size {
	case 1:
		v = uint64(b[0])
	case 2:
		v = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(b))
	default:
		v = binary.LittleEndian.Uint64(b)
	}
	digits := f.width - 1
	switch f.kind {
	case 'o':
		return fmt.Sprintf("%0*o", digits, v)
	case 'x':
		return fmt.Sprintf("%0*x", digits, v)
	case 'u':
		return strconv.FormatUint(v, 10)
	}
	shift := 64 - 8*uint(f.size)
	return strconv.FormatInt(int64(v<<shift)>>shift, 10)
}

// odDump writes the dump of data, whose first byte is at offset start.
func odDump(out *bufio.Writer, data []byte, start int64, radix byte, formats []odFormat, width int, dups bool) {
	addr := func(off int64) string {
		switch radix {
		case 'd':
			return fmt.Sprintf("%07d", off)
		case 'x':
			return fmt.Sprintf("%06x", off)
		case 'n':
			return ""
		}
		return fmt.Sprintf("%07o", off)
	}
	addrWidth := len(addr(0))
	// Pad each type's line to the widest one, spreading the extra spaces
	// over its fields as GNU od does, so the columns line up.
	lineWidth := 0
	for _, f := range formats {
		lineWidth = max(lineWidth, width/f.size*f.width)
	}
	var prev []byte
	starred := false
	for off := 0; off < len(data); off += width {
		end := min(off+width, len(data))
		block := data[off:end]
		if !dups && prev != nil && len(block) == width && bytes.Equal(block, prev) {
			if !starred {
				out.WriteString("*\n")
				starred = true
			}
			continue
		}
		starred = false
		prev = block
		for i, f := range formats {
			if i == 0 {
				out.WriteString(addr(start + int64(off)))
			} else {
				out.WriteString(strings.Repeat(" ", addrWidth))
			}
			nFields := width / f.size
			pad := lineWidth - nFields*f.width
			padLeft := pad
			// Items past the data are left out; a partial item is
			// completed with zero bytes.
			shown := (len(block) + f.size - 1) / f.size
			for j := 0; j < nFields; j++ {
				next := pad * (nFields - j - 1) / nFields
				w := padLeft - next + f.width
				padLeft = next
				if j >= shown {
					continue
				}
				item := make([]byte, f.size)
				copy(item, block[j*f.size:])
				s := odField(f, item)
				out.WriteString(strings.Repeat(" ", max(0, w-len(s))) + s)
			}
			if f.text {
				// Spaces for the missing fields, then the printable text.
				for j := shown; j < nFields; j++ {
					out.WriteString(strings.Repeat(" ", f.width))
				}
				out.WriteString("  >")
				for _, c := range block {
					if c >= 0x20 && c < 0x7f {
						out.WriteByte(c)
					} else {
						out.WriteByte('.')
					}
				}
				out.WriteByte('<')
			}
			out.WriteByte('\n')
		}
	}
	if radix != 'n' {
		out.WriteString(addr(start+int64(len(data))) + "\n")
	}
}
