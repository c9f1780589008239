package applets

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const splitUsage = "split [-l N | -b SIZE | -C SIZE | -n CHUNKS] [-a LEN] [-d|-x] [--additional-suffix=S] [-e] [--verbose] [FILE [PREFIX]]"

// splitOptions are split's parsed flags.
type splitOptions struct {
	mode      byte // 'l' lines, 'b' bytes, 'C' line bytes, 'n' chunks
	size      int64
	chunks    int64
	chunkKind byte  // 0 bytes, 'l' whole lines, 'r' round robin
	only      int64 // -n K/N: print chunk K to stdout
	suffixLen int
	fixedLen  bool
	alphabet  string
	start     int64
	addSuffix string
	elide     bool
	verbose   bool
}

// splitApplet writes its input into files PREFIXaa, PREFIXab, ... (x by
// default): every -l lines (1000), -b bytes, -C bytes of whole lines, or
// -n chunks (N equal parts, l/N without splitting lines, r/N round robin,
// K/N only part K on stdout). -d and -x number the files in decimal or
// hex; without -a the suffix grows as GNU split's does (…yz, zaaa, …).
func splitApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "a:b:C:del:n:tx", numeric: true,
		long: map[string]string{"suffix-length:": "a", "bytes:": "b", "line-bytes:": "C", "numeric-suffixes": "d",
			"hex-suffixes": "x", "elide-empty-files": "e", "lines:": "l", "number:": "n",
			"additional-suffix:": "additional-suffix", "verbose": "verbose"}}
	// --numeric-suffixes=FROM and --hex-suffixes=FROM take an optional value.
	var rest []string
	o := splitOptions{mode: 'l', size: 1000, suffixLen: 2, alphabet: "abcdefghijklmnopqrstuvwxyz"}
	for _, a := range args[1:] {
		for _, pre := range []string{"--numeric-suffixes=", "--hex-suffixes="} {
			if v, ok := strings.CutPrefix(a, pre); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					p.errorf("split", "invalid start value for numerical suffix: '%s'", v)
					return 1
				}
				o.start = n
				a = pre[:len(pre)-1]
			}
		}
		rest = append(rest, a)
	}
	opts, operands, err := spec.parse(rest)
	if err != nil {
		return p.gnuUsage("split", err.Error(), splitUsage)
	}
	for _, op := range opts {
		switch op.name {
		case "a":
			n, err := strconv.Atoi(op.val)
			if err != nil || n < 1 {
				p.errorf("split", "invalid suffix length: '%s'", op.val)
				return 1
			}
			o.suffixLen, o.fixedLen = n, true
		case "l", "#":
			n, err := strconv.ParseInt(op.val, 10, 64)
			if err != nil || n < 1 {
				p.errorf("split", "invalid number of lines: '%s'", op.val)
				return 1
			}
			o.mode, o.size = 'l', n
		case "b", "C":
			n, ok := parseSizeSuffix(op.val)
			if !ok || n < 1 {
				p.errorf("split", "invalid number of bytes: '%s'", op.val)
				return 1
			}
			o.mode, o.size = op.name[0], n
		case "n":
			if !o.parseChunks(op.val) {
				p.errorf("split", "invalid number of chunks: '%s'", op.val)
				return 1
			}
			o.mode = 'n'
		case "d":
			o.alphabet = "0123456789"
		case "x":
			o.alphabet = "0123456789abcdef"
		case "e":
			o.elide = true
		case "additional-suffix":
			if strings.Contains(op.val, "/") {
				p.errorf("split", "invalid suffix '%s', contains directory separator", op.val)
				return 1
			}
			o.addSuffix = op.val
		case "verbose":
			o.verbose = true
		case "t":
			return p.gnuUsage("split", "-t (record separator) is not supported", splitUsage)
		}
	}
	if len(operands) > 2 {
		return p.gnuUsage("split", "extra operand '"+operands[2]+"'", splitUsage)
	}
	input, prefix := "-", "x"
	if len(operands) > 0 {
		input = operands[0]
	}
	if len(operands) > 1 {
		prefix = operands[1]
	}
	f, err := p.Open(input)
	if err != nil {
		p.errorf("split", "cannot open '%s' for reading: %s", input, ErrText(err))
		return 1
	}
	defer f.Close()
	if o.mode == 'n' && !o.fixedLen {
		// Enough suffix for every chunk, as GNU sizes it.
		for n, l := o.chunks+o.start-1, 0; ; l++ {
			if n < 1 || l > 0 && pow(int64(len(o.alphabet)), l) > n {
				o.suffixLen = max(o.suffixLen, l)
				break
			}
		}
		o.fixedLen = true
	}
	w := &splitWriter{p: p, o: &o, prefix: prefix}
	var status int
	switch o.mode {
	case 'l':
		status = w.byLines(f)
	case 'b':
		status = w.byBytes(f)
	case 'C':
		status = w.byLineBytes(f)
	default:
		status = w.byChunks(f)
	}
	if cerr := w.close(); cerr != 0 && status == 0 {
		status = cerr
	}
	return status
}

func pow(b int64, e int) int64 {
	r := int64(1)
	for ; e > 0; e-- {
		r *= b
	}
	return r
}

// parseSizeSuffix reads SIZE: digits with an optional unit, b (512),
// K/KiB (1024), KB (1000), and so on up to E.
func parseSizeSuffix(s string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	unit := s[i:]
	if unit == "" {
		return n, true
	}
	if unit == "b" {
		return n * 512, true
	}
	pw := strings.IndexByte("KMGTPE", strings.ToUpper(unit[:1])[0])
	if pw < 0 {
		return 0, false
	}
	base := int64(1024)
	switch unit[1:] {
	case "", "iB":
	case "B":
		base = 1000
	default:
		return 0, false
	}
	return n * pow(base, pw+1), true
}

// parseChunks reads -n: N, K/N, l/N, l/K/N, r/N, r/K/N.
func (o *splitOptions) parseChunks(s string) bool {
	if strings.HasPrefix(s, "l/") || strings.HasPrefix(s, "r/") {
		o.chunkKind = s[0]
		s = s[2:]
	}
	k, n, hasK := strings.Cut(s, "/")
	if !hasK {
		n = k
	}
	var err error
	if o.chunks, err = strconv.ParseInt(n, 10, 64); err != nil || o.chunks < 1 {
		return false
	}
	if hasK {
		if o.only, err = strconv.ParseInt(k, 10, 64); err != nil || o.only < 1 || o.only > o.chunks {
			return false
		}
	}
	return true
}

// splitWriter creates the output files in turn.
type splitWriter struct {
	p      *Proc
	o      *splitOptions
	prefix string
	index  int64
	cur    io.WriteCloser
	buf    *bufio.Writer
}

// suffix names file i.
func (w *splitWriter) suffix(i int64) (string, bool) {
	a := w.o.alphabet
	base := int64(len(a))
	i += w.o.start
	digits := func(i int64, n int) string {
		b := make([]byte, n)
		for j := n - 1; j >= 0; j-- {
			b[j] = a[i%base]
			i /= base
		}
		return string(b)
	}
	if w.o.fixedLen {
		if i >= pow(base, w.o.suffixLen) {
			return "", false
		}
		return digits(i, w.o.suffixLen), true
	}
	// GNU's growing suffix: the names whose first digit is not the last
	// of the alphabet, then the last digit and two more places, and so on.
	last := a[len(a)-1:]
	free := w.o.suffixLen
	for k := 0; ; k++ {
		n := (base - 1) * pow(base, free-1)
		if i < n {
			return strings.Repeat(last, k) + digits(i, free), true
		}
		i -= n
		free++
	}
}

// next closes the current file and starts the next one.
func (w *splitWriter) next() int {
	if st := w.close(); st != 0 {
		return st
	}
	suf, ok := w.suffix(w.index)
	if !ok {
		w.p.errorf("split", "output file suffixes exhausted")
		return 1
	}
	w.index++
	name := w.prefix + suf + w.o.addSuffix
	if w.o.verbose {
		fmt.Fprintf(w.p.Stdout, "creating file '%s'\n", name)
	}
	f, err := w.p.Create(name, false)
	if err != nil {
		return w.p.fileErr("split", name, err)
	}
	w.cur, w.buf = f, bufio.NewWriter(f)
	return 0
}

func (w *splitWriter) close() int {
	if w.cur == nil {
		return 0
	}
	err := w.buf.Flush()
	if cerr := w.cur.Close(); err == nil {
		err = cerr
	}
	w.cur = nil
	if err != nil {
		return w.p.writeFailed("split", err)
	}
	return 0
}

func (w *splitWriter) write(b []byte) int {
	if _, err := w.buf.Write(b); err != nil {
		return w.p.writeFailed("split", err)
	}
	return 0
}

func (w *splitWriter) byLines(r io.Reader) int {
	br := bufio.NewReaderSize(r, 64*1024)
	var n int64
	midLine := false // the last piece read ended inside a long line
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if !midLine {
				if n%w.o.size == 0 {
					if st := w.next(); st != 0 {
						return st
					}
				}
				n++
			}
			if st := w.write(line); st != 0 {
				return st
			}
			midLine = err == bufio.ErrBufferFull
		}
		switch {
		case err == bufio.ErrBufferFull:
		case err == io.EOF:
			return 0
		case err != nil:
			return w.p.fileErr("split", "-", err)
		}
	}
}

func (w *splitWriter) byBytes(r io.Reader) int {
	buf := make([]byte, 64*1024)
	left := int64(0)
	for {
		k, err := r.Read(buf)
		data := buf[:k]
		for len(data) > 0 {
			if left == 0 {
				if st := w.next(); st != 0 {
					return st
				}
				left = w.o.size
			}
			take := min(int64(len(data)), left)
			if st := w.write(data[:take]); st != 0 {
				return st
			}
			data, left = data[take:], left-take
		}
		if err != nil {
			return 0
		}
	}
}

// byLineBytes puts as many whole lines as fit in SIZE bytes in each file;
// a longer line is cut into SIZE pieces.
func (w *splitWriter) byLineBytes(r io.Reader) int {
	data, err := io.ReadAll(r)
	if err != nil {
		return w.p.fileErr("split", "-", err)
	}
	for len(data) > 0 {
		take := int64(len(data))
		if take > w.o.size {
			take = w.o.size
			if i := bytes.LastIndexByte(data[:take], '\n'); i >= 0 {
				take = int64(i + 1)
			}
		}
		if st := w.next(); st != 0 {
			return st
		}
		if st := w.write(data[:take]); st != 0 {
			return st
		}
		data = data[take:]
	}
	return 0
}

func (w *splitWriter) byChunks(r io.Reader) int {
	data, err := io.ReadAll(r)
	if err != nil {
		return w.p.fileErr("split", "-", err)
	}
	n := w.o.chunks
	size := int64(len(data))
	parts := make([][]byte, n)
	switch w.o.chunkKind {
	case 'r':
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i, l := range lines {
			parts[int64(i)%n] = append(parts[int64(i)%n], l...)
		}
	case 'l':
		// Chunk i ends at the first line end at or after (i+1)*size/n.
		start := int64(0)
		for i := int64(0); i < n; i++ {
			end := (i + 1) * size / n
			if end < start {
				end = start
			}
			if i == n-1 {
				end = size
			} else if end > 0 && end < size && data[end-1] != '\n' {
				if j := bytes.IndexByte(data[end:], '\n'); j >= 0 {
					end += int64(j) + 1
				} else {
					end = size
				}
			}
			parts[i] = data[start:end]
			start = end
		}
	default:
		for i := int64(0); i < n; i++ {
			parts[i] = data[i*size/n : (i+1)*size/n]
		}
	}
	if w.o.only > 0 {
		if _, err := w.p.Stdout.Write(parts[w.o.only-1]); err != nil {
			return w.p.writeFailed("split", err)
		}
		return 0
	}
	for _, part := range parts {
		if len(part) == 0 && w.o.elide {
			continue
		}
		if st := w.next(); st != 0 {
			return st
		}
		if st := w.write(part); st != 0 {
			return st
		}
	}
	return 0
}
