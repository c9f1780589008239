package applets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/benhoyt/goawk/interp"
	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
)

const awkUsage = "awk [-F FS] [-v VAR=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE | VAR=VALUE]..."

// awkApplet runs an AWK program with GoAWK. There are no processes in the
// sandbox, so system() and command pipes ("cmd" | getline) fail.
func awkApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "F:v:f:", stopAtOperand: true,
		long: map[string]string{"field-separator:": "F", "assign:": "v", "file:": "f"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("awk", err.Error(), awkUsage)
	}
	var src strings.Builder
	fieldSep := " "
	var vars []string
	haveFile := false
	for _, o := range opts {
		switch o.name {
		case "F":
			fieldSep = o.val
			if fieldSep == "t" {
				fieldSep = "\t"
			} else if u, err := lexer.Unescape(fieldSep); err == nil {
				fieldSep = u
			}
		case "v":
			name, val, ok := strings.Cut(o.val, "=")
			if !ok {
				return p.usage("awk", "-v needs VAR=VALUE", awkUsage)
			}
			if u, err := lexer.Unescape(val); err == nil {
				val = u
			}
			vars = append(vars, name, val)
		case "f":
			f, err := p.Open(o.val)
			if err != nil {
				return p.fileErr("awk", o.val, err)
			}
			b, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return p.fileErr("awk", o.val, err)
			}
			src.Write(b)
			src.WriteByte('\n')
			haveFile = true
		}
	}
	if !haveFile {
		if len(operands) == 0 {
			return p.usage("awk", "", awkUsage)
		}
		src.WriteString(operands[0])
		operands = operands[1:]
	}
	out := bufio.NewWriterSize(p.Stdout, 32*1024)
	awkOut := newAwkFiles(p, out)
	prog, err := parseAwk(src.String(), awkOut)
	if err != nil {
		var pe *parser.ParseError
		if errors.As(err, &pe) {
			p.errorf("awk", "line %d:%d: %s", pe.Position.Line, pe.Position.Column, pe.Message)
		} else {
			p.errorf("awk", "%s", err)
		}
		return 2
	}
	// File operands are resolved against the shell's directory; VAR=VALUE
	// operands are assignments, as in every awk.
	files := make([]string, len(operands))
	for i, a := range operands {
		if a == "-" || isAwkAssignment(a) {
			files[i] = a
		} else {
			files[i] = p.Path(a)
		}
	}
	environ := make([]string, 0, 2*len(p.Env))
	names := make([]string, 0, len(p.Env))
	for k := range p.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		environ = append(environ, k, p.Env[k])
	}
	cfg := &interp.Config{
		Stdin:  p.Stdin,
		Output: out,
		Error:  p.Stderr,
		Argv0:  "awk",
		Args:   files,
		Vars:   append([]string{"FS", fieldSep}, vars...),
		Funcs:  awkOut.funcs(),
		NoExec: true,
		// Files are written through awkOut (awkfiles.go), charged to the
		// disk quota and resolved against p.Dir; GoAWK's own writes would
		// be neither.
		NoFileWrites: true,
		Environ:      environ,
	}
	it, err := interp.New(prog)
	if err != nil {
		p.errorf("awk", "%s", err)
		return 2
	}
	status, err := it.ExecuteContext(p.ctx(), cfg)
	if ferr := awkOut.closeAll(); err == nil && ferr != nil {
		err = ferr
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		if brokenPipe(err) {
			return StatusBrokenPipe
		}
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "runtime error: ")
		fmt.Fprintf(p.Stderr, "awk: %s\n", msg)
		if status == 0 {
			status = 2
		}
	}
	return status
}

// isAwkAssignment reports whether an operand is VAR=VALUE.
func isAwkAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
