package applets

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// testApplet evaluates a conditional expression (test and [): file tests
// (-e -f -d -s -r -w -x -L), string tests (-z -n = != < >), integer
// comparisons (-eq -ne -lt -le -gt -ge), -nt -ot -ef, and ! -a -o ( ).
// Status 0 for true, 1 for false, 2 for a malformed expression.
func testApplet(p *Proc, args []string) int {
	name := args[0]
	rest := args[1:]
	if name == "[" {
		if len(rest) == 0 || rest[len(rest)-1] != "]" {
			p.errorf("[", "missing ']'")
			return 2
		}
		rest = rest[:len(rest)-1]
	}
	t := &testParser{p: p, args: rest}
	ok, err := t.eval()
	if err != nil {
		p.errorf(name, "%s", err)
		return 2
	}
	if ok {
		return 0
	}
	return 1
}

type testParser struct {
	p    *Proc
	args []string
	i    int
}

// eval applies POSIX's rules by argument count, then the general grammar.
func (t *testParser) eval() (bool, error) {
	a := t.args
	switch len(a) {
	case 0:
		return false, nil
	case 1:
		return a[0] != "", nil
	case 2:
		if a[0] == "!" {
			return a[1] == "", nil
		}
		if isUnaryTestOp(a[0]) {
			return UnaryTest(t.p, a[0], a[1])
		}
		return false, fmt.Errorf("%s: unary operator expected", a[0])
	case 3:
		if isBinaryTestOp(a[1]) {
			return BinaryTest(t.p, a[1], a[0], a[2])
		}
		if a[0] == "!" {
			sub := &testParser{p: t.p, args: a[1:]}
			ok, err := sub.eval()
			return !ok, err
		}
		if a[0] == "(" && a[2] == ")" {
			return a[1] != "", nil
		}
	case 4:
		if a[0] == "!" {
			sub := &testParser{p: t.p, args: a[1:]}
			ok, err := sub.eval()
			return !ok, err
		}
		if a[0] == "(" && a[3] == ")" {
			sub := &testParser{p: t.p, args: a[1:3]}
			return sub.eval()
		}
	}
	ok, err := t.or()
	if err == nil && t.i < len(t.args) {
		err = fmt.Errorf("%s: too many arguments", t.args[t.i])
	}
	return ok, err
}

func (t *testParser) peek() string {
	if t.i < len(t.args) {
		return t.args[t.i]
	}
	return ""
}

func (t *testParser) or() (bool, error) {
	v, err := t.and()
	for err == nil && t.peek() == "-o" {
		t.i++
		var w bool
		w, err = t.and()
		v = v || w
	}
	return v, err
}

func (t *testParser) and() (bool, error) {
	v, err := t.not()
	for err == nil && t.peek() == "-a" {
		t.i++
		var w bool
		w, err = t.not()
		v = v && w
	}
	return v, err
}

func (t *testParser) not() (bool, error) {
	if t.peek() == "!" {
		t.i++
		v, err := t.not()
		return !v, err
	}
	return t.primary()
}

func (t *testParser) primary() (bool, error) {
	if t.i >= len(t.args) {
		return false, fmt.Errorf("argument expected")
	}
	a := t.args[t.i]
	if a == "(" {
		t.i++
		v, err := t.or()
		if err != nil {
			return false, err
		}
		if t.peek() != ")" {
			return false, fmt.Errorf("missing ')'")
		}
		t.i++
		return v, nil
	}
	if t.i+2 < len(t.args) && isBinaryTestOp(t.args[t.i+1]) {
		t.i += 3
		return BinaryTest(t.p, t.args[t.i-2], a, t.args[t.i-1])
	}
	if isUnaryTestOp(a) && t.i+1 < len(t.args) {
		t.i += 2
		return UnaryTest(t.p, a, t.args[t.i-1])
	}
	t.i++
	return a != "", nil
}

func isUnaryTestOp(op string) bool {
	switch op {
	case "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h", "-z", "-n", "-b", "-c", "-p", "-S", "-t",
		"-g", "-u", "-k", "-O", "-G", "-N", "-a":
		return true
	}
	return false
}

func isBinaryTestOp(op string) bool {
	switch op {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef":
		return true
	}
	return false
}

// UnaryTest evaluates a unary test such as -f FILE or -z STRING; the
// shell's [[ ]] shares it. Paths are resolved against p.Dir.
func UnaryTest(p *Proc, op, x string) (bool, error) {
	switch op {
	case "-z":
		return x == "", nil
	case "-n":
		return x != "", nil
	case "-t":
		return false, nil
	}
	full := p.Path(x)
	if x == "" {
		return false, nil
	}
	if op == "-L" || op == "-h" {
		st, err := os.Lstat(full)
		return err == nil && st.Mode()&os.ModeSymlink != 0, nil
	}
	st, err := os.Stat(full)
	if err != nil {
		return false, nil
	}
	m := st.Mode()
	switch op {
	case "-e", "-a":
		return true, nil
	case "-f":
		return m.IsRegular(), nil
	case "-d":
		return m.IsDir(), nil
	case "-s":
		return st.Size() > 0, nil
	case "-r", "-O", "-G":
		return true, nil
	case "-w":
		return writable(full, m.IsDir()), nil
	case "-x":
		return m.IsDir() || m&0o111 != 0, nil
	case "-b", "-c", "-p", "-S", "-g", "-u", "-k", "-N":
		return false, nil
	}
	return false, fmt.Errorf("%s: unary operator expected", op)
}

// writable reports whether the sandbox lets us write there: only under
// the read-write preopens, not the read-only root.
func writable(full string, dir bool) bool {
	if dir {
		f, err := os.CreateTemp(full, ".wtest*")
		if err != nil {
			return false
		}
		name := f.Name()
		f.Close()
		os.Remove(name)
		return true
	}
	f, err := os.OpenFile(full, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// BinaryTest evaluates x OP y for string, integer and file operators.
func BinaryTest(p *Proc, op, x, y string) (bool, error) {
	switch op {
	case "=", "==":
		return x == y, nil
	case "!=":
		return x != y, nil
	case "<":
		return x < y, nil
	case ">":
		return x > y, nil
	case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		a, err := testInt(x)
		if err != nil {
			return false, err
		}
		b, err := testInt(y)
		if err != nil {
			return false, err
		}
		switch op {
		case "-eq":
			return a == b, nil
		case "-ne":
			return a != b, nil
		case "-lt":
			return a < b, nil
		case "-le":
			return a <= b, nil
		case "-gt":
			return a > b, nil
		default:
			return a >= b, nil
		}
	case "-nt", "-ot":
		sx, errx := os.Stat(p.Path(x))
		sy, erry := os.Stat(p.Path(y))
		if op == "-nt" {
			return errx == nil && (erry != nil || sx.ModTime().After(sy.ModTime())), nil
		}
		return erry == nil && (errx != nil || sx.ModTime().Before(sy.ModTime())), nil
	case "-ef":
		sx, errx := os.Stat(p.Path(x))
		sy, erry := os.Stat(p.Path(y))
		return errx == nil && erry == nil && os.SameFile(sx, sy), nil
	}
	return false, fmt.Errorf("%s: binary operator expected", op)
}

// testInt parses an integer operand (surrounding blanks allowed).
func testInt(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: integer expression expected", s)
	}
	return n, nil
}
