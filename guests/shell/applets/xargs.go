package applets

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const xargsUsage = "xargs [-0rt] [-n MAX] [-L MAX] [-I REPLACE] [-d DELIM] [COMMAND [ARG]...]"

// xargsApplet runs a command with arguments read from stdin: split on
// blanks and newlines (with ' " and \ quoting), on -d DELIM or on NUL (-0).
// -n limits arguments per command, -L lines per command, -I STR runs once
// per line replacing STR. The command (echo by default) gets no stdin.
func xargsApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "0rtn:L:I:i:d:P:s:x", stopAtOperand: true,
		long: map[string]string{"null": "0", "no-run-if-empty": "r", "verbose": "t",
			"max-args:": "n", "max-lines:": "L", "replace:": "I", "delimiter:": "d", "max-procs:": "P"}}
	opts, command, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("xargs", err.Error(), xargsUsage)
	}
	var nul, noEmpty, verbose bool
	maxArgs, maxLines := 0, 0
	replace, delim := "", ""
	for _, o := range opts {
		switch o.name {
		case "0":
			nul = true
		case "r":
			noEmpty = true
		case "t":
			verbose = true
		case "n", "L":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				return p.usage("xargs", "invalid number '"+o.val+"'", xargsUsage)
			}
			if o.name == "n" {
				maxArgs = n
			} else {
				maxLines = n
			}
		case "I", "i":
			replace = o.val
			if replace == "" {
				replace = "{}"
			}
		case "d":
			delim, _ = backslashEscapes(o.val)
		}
	}
	if len(command) == 0 {
		command = []string{"echo"}
	}
	data, err := io.ReadAll(p.Stdin)
	if err != nil {
		p.errorf("xargs", "read error: %s", ErrText(err))
		return 1
	}
	// Each group is the arguments of one command run.
	var groups [][]string
	switch {
	case replace != "":
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			line = strings.TrimLeft(line, " \t")
			if line == "" {
				continue
			}
			groups = append(groups, substituteAll(command, replace, line))
		}
		command = nil
	case maxLines > 0:
		var cur []string
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			words, err := xargsSplit(line)
			if err != nil {
				p.errorf("xargs", "%s", err)
				return 1
			}
			if len(words) == 0 {
				continue
			}
			cur = append(cur, words...)
			n++
			if n == maxLines {
				groups, cur, n = append(groups, cur), nil, 0
			}
		}
		if len(cur) > 0 {
			groups = append(groups, cur)
		}
	default:
		var items []string
		switch {
		case nul:
			items = strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		case delim != "":
			items = strings.Split(strings.TrimSuffix(string(data), delim), delim)
		default:
			if items, err = xargsSplit(string(data)); err != nil {
				p.errorf("xargs", "%s", err)
				return 1
			}
		}
		if len(items) == 1 && items[0] == "" {
			items = nil
		}
		if maxArgs == 0 {
			maxArgs = len(items)
		}
		for len(items) > 0 {
			n := min(maxArgs, len(items))
			groups = append(groups, items[:n])
			items = items[n:]
		}
	}
	if len(groups) == 0 && !noEmpty && replace == "" {
		groups = [][]string{nil}
	}
	status := 0
	for _, g := range groups {
		if p.cancelled() {
			return 130
		}
		argv := append(append([]string{}, command...), g...)
		if verbose {
			fmt.Fprintln(p.Stderr, strings.Join(argv, " "))
		}
		switch code := p.Exec(strings.NewReader(""), argv); {
		case code == 127 || code == 126:
			return code
		case code == 255:
			p.errorf("xargs", "%s: exited with status 255; aborting", argv[0])
			return 124
		case code == StatusBrokenPipe:
			return code
		case code != 0:
			status = 123
		}
	}
	return status
}

// xargsSplit splits input into words on blanks and newlines, honouring
// single and double quotes and backslashes.
func xargsSplit(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	sc := bufio.NewReader(strings.NewReader(s))
	for {
		r, _, err := sc.ReadRune()
		if err != nil {
			break
		}
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\'' || r == '"':
			inWord = true
			for {
				q, _, err := sc.ReadRune()
				if err != nil || q == '\n' {
					return nil, fmt.Errorf("unmatched %s quote; by default quotes are special to xargs unless you use the -0 option",
						map[rune]string{'\'': "single", '"': "double"}[r])
				}
				if q == r {
					break
				}
				cur.WriteRune(q)
			}
		case r == '\\':
			inWord = true
			if n, _, err := sc.ReadRune(); err == nil {
				cur.WriteRune(n)
			}
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
