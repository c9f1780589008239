package applets

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// countArg is a head/tail count: N, -N ("all but the last N" for head) or
// +N ("from the Nth on" for tail).
type countArg struct {
	n     int64
	plus  bool // +N
	minus bool // -N given to -n/-c
}

func parseCount(s string) (countArg, error) {
	var c countArg
	switch {
	case strings.HasPrefix(s, "+"):
		c.plus, s = true, s[1:]
	case strings.HasPrefix(s, "-"):
		c.minus, s = true, s[1:]
	}
	mult := int64(1)
	for suffix, m := range map[string]int64{"k": 1024, "K": 1024, "M": 1 << 20, "G": 1 << 30, "b": 512} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return c, fmt.Errorf("invalid number: '%s'", s)
	}
	c.n = n * mult
	return c, nil
}

// headTailArgs parses the flags shared by head and tail, including the old
// forms -N and (tail) +N.
func headTailArgs(p *Proc, name string, args []string) (lines countArg, bytes bool, files []string, headers int, ok bool) {
	usage := name + " [-n [+-]N] [-c [+-]N] [-qv] [-N] [FILE]..."
	lines = countArg{n: 10}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name == "tail" && i == 0 && len(a) > 1 && a[0] == '+' && isDigits(a[1:]) {
			lines, _ = parseCount(a)
			continue
		}
		rest = append(rest, a)
	}
	spec := flagSpec{short: "n:c:qvf", numeric: true,
		long: map[string]string{"lines:": "n", "bytes:": "c", "quiet": "q", "silent": "q", "verbose": "v"}}
	opts, files, err := spec.parse(rest)
	if err != nil {
		p.usage(name, err.Error(), usage)
		return lines, false, nil, 0, false
	}
	for _, o := range opts {
		switch o.name {
		case "#":
			lines, bytes = countArg{}, false
			lines.n, _ = strconv.ParseInt(o.val, 10, 64)
		case "n", "c":
			c, err := parseCount(o.val)
			if err != nil {
				p.usage(name, err.Error(), usage)
				return lines, false, nil, 0, false
			}
			lines, bytes = c, o.name == "c"
		case "q":
			headers = -1
		case "v":
			headers = 1
		case "f":
			p.errorf(name, "-f is not supported in the sandbox (files do not grow while a script runs)")
			return lines, false, nil, 0, false
		}
	}
	return lines, bytes, inputs(files), headers, true
}

// headApplet prints the first lines (or bytes) of its inputs.
func headApplet(p *Proc, args []string) int {
	return headTail(p, "head", args, func(out *bufio.Writer, r io.Reader, count countArg, byBytes bool) error {
		return headOne(out, r, count, byBytes)
	})
}

// headTail runs head or tail: the shared flags, one "==> name <==" header
// per input when there are several, and one(...) on each input.
func headTail(p *Proc, name string, args []string, one func(*bufio.Writer, io.Reader, countArg, bool) error) int {
	count, byBytes, files, headers, ok := headTailArgs(p, name, args[1:])
	if !ok {
		return 2
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for i, file := range files {
		f, err := p.Open(file)
		if err != nil {
			out.Flush()
			status = p.fileErr(name, file, err)
			continue
		}
		if headers > 0 || headers == 0 && len(files) > 1 {
			if i > 0 {
				out.WriteString("\n")
			}
			fmt.Fprintf(out, "==> %s <==\n", displayName(file))
		}
		err = one(out, f, count, byBytes)
		f.Close()
		if err != nil {
			if brokenPipe(err) {
				return StatusBrokenPipe
			}
			status = p.fileErr(name, file, err)
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed(name, err)
	}
	return status
}

func headOne(out *bufio.Writer, r io.Reader, count countArg, byBytes bool) error {
	if byBytes {
		if count.minus {
			data, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			keep := max(int64(len(data))-count.n, 0)
			_, err = out.Write(data[:keep])
			return err
		}
		_, err := io.CopyN(out, r, count.n)
		if err == io.EOF {
			err = nil
		}
		return err
	}
	br := bufio.NewReader(r)
	if count.minus {
		// All but the last N lines: hold N lines back.
		var held []string
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				held = append(held, line)
				if int64(len(held)) > count.n {
					if _, werr := out.WriteString(held[0]); werr != nil {
						return werr
					}
					held = held[1:]
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	for n := int64(0); n < count.n; n++ {
		line, err := br.ReadString('\n')
		if _, werr := out.WriteString(line); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}
