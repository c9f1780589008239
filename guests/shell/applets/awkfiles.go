package applets

// awk's files go through the shell's, not the process's.
//
// GoAWK opens the targets of `print > "f"` and `getline < "f"` itself,
// with os.OpenFile relative to the process's working directory: that
// bypassed the sandbox's disk quota (the shell's files ask the host for
// room before every write, os.OpenFile does not), and relative names
// needed a process-wide chdir, which moved the files of every other
// pipeline stage running at the time. GoAWK has no hook for opening files,
// so the program is changed instead, before it runs:
//
//	print ARGS > DEST     printf __amla_print(DEST, ">", OFS, ORS, ARGS)
//	print ARGS >> DEST    the same with ">>"
//	printf FMT, ARGS > DEST
//	                      printf __amla_write(DEST, ">", sprintf(FMT, ARGS))
//	getline < FILE        getline < __amla_path(FILE)
//	close(NAME)           __amla_close(close(__amla_path(NAME)))
//	fflush(NAME)          __amla_fflush(NAME)
//	fflush()              __amla_fflush_all(fflush())
//
// The __amla_ functions are Go functions (interp.Config.Funcs) that write
// through Proc.Create, so every byte is charged to the quota, and resolve
// names against the applet's own directory. Each returns "" where the
// program prints its result, and printf with an empty format prints
// nothing. GoAWK's own file writes are switched off (NoFileWrites), so a
// redirect this rewrite missed fails instead of writing around the quota.
//
// GoAWK's parser builds its syntax tree in an internal package: the tree
// is changed through reflection (its fields are exported, its types are
// not nameable), printed back to AWK source with the program's own String
// method, which GoAWK keeps parseable, and parsed again. Programs without
// redirections, getline from a file, close or fflush are run as parsed.
//
// What differs from GoAWK's own redirects: print formats numbers that are
// not integers with CONVFMT, not OFMT (the two are "%.6g" unless a script
// changes one of them); output pipes (`print | "cmd"`) stay refused, as
// every command pipe is in the sandbox.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
)

// awkReserved starts the names of the functions the rewrite calls.
const awkReserved = "__amla_"

// awkFiles are the output files of one awk invocation and the functions
// its rewritten program calls.
type awkFiles struct {
	p      *Proc
	stdout *bufio.Writer // awk's standard output (interp.Config.Output)
	open   map[string]*awkFile
	// last is the name __amla_path resolved last: close(NAME) is
	// rewritten so that NAME is resolved (and evaluated) once.
	last string
}

type awkFile struct {
	w *bufio.Writer
	c io.Closer
}

func newAwkFiles(p *Proc, stdout *bufio.Writer) *awkFiles {
	return &awkFiles{p: p, stdout: stdout, open: map[string]*awkFile{}}
}

// funcs are the Go functions of the rewritten program.
func (a *awkFiles) funcs() map[string]any {
	return map[string]any{
		awkReserved + "print": func(dest, mode, ofs, ors string, args ...string) (string, error) {
			return "", a.write(dest, mode, strings.Join(args, ofs)+ors)
		},
		awkReserved + "write": func(dest, mode, text string) (string, error) {
			return "", a.write(dest, mode, text)
		},
		awkReserved + "path": func(name string) string {
			a.last = a.path(name)
			return a.last
		},
		awkReserved + "close": func(inputStatus int) int {
			f, ok := a.open[a.last]
			if !ok {
				return inputStatus // an input stream (getline) or nothing
			}
			delete(a.open, a.last)
			if err := f.close(); err != nil {
				a.p.errorf("awk", "error closing %q: %s", a.last, ErrText(err))
				return -1
			}
			return 0
		},
		awkReserved + "fflush": func(name string) int {
			switch name = a.path(name); name {
			case "-", "/dev/stdout":
				return flushStatus(a.stdout.Flush())
			case "/dev/stderr":
				return 0
			}
			f, ok := a.open[name]
			if !ok {
				a.p.errorf("awk", "error flushing %q: not an output file", name)
				return -1
			}
			return flushStatus(f.w.Flush())
		},
		awkReserved + "fflush_all": func(status int) int {
			for _, f := range a.open {
				if err := f.w.Flush(); err != nil {
					status = -1
				}
			}
			return status
		},
	}
}

func flushStatus(err error) int {
	if err != nil {
		return -1
	}
	return 0
}

// path resolves an awk file name against the applet's directory; the
// names awk gives a meaning of its own stay as they are.
func (a *awkFiles) path(name string) string {
	switch name {
	case "", "-", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return name
	}
	return a.p.Path(name)
}

// write appends text to dest, opening it on first use (">" truncates it
// then, ">>" appends), as awk does.
func (a *awkFiles) write(dest, mode, text string) error {
	name := a.path(dest)
	switch name {
	case "-", "/dev/stdout":
		_, err := a.stdout.WriteString(text)
		return err
	case "/dev/stderr":
		if err := a.stdout.Flush(); err != nil {
			return err
		}
		_, err := io.WriteString(a.p.Stderr, text)
		return err
	case "":
		return errors.New("output redirection error: empty file name")
	}
	f, ok := a.open[name]
	if !ok {
		w, err := a.p.Create(name, mode == ">>")
		if err != nil {
			return fmt.Errorf("output redirection error: %s: %s", dest, ErrText(err))
		}
		f = &awkFile{w: bufio.NewWriterSize(w, 32*1024), c: w}
		a.open[name] = f
	}
	if _, err := f.w.WriteString(text); err != nil {
		return fmt.Errorf("%s: %s", dest, ErrText(err))
	}
	return nil
}

func (f *awkFile) close() error {
	err := f.w.Flush()
	if cerr := f.c.Close(); err == nil {
		err = cerr
	}
	return err
}

// closeAll flushes and closes every file still open when the program
// ends, and returns the first error.
func (a *awkFiles) closeAll() error {
	var first error
	for name, f := range a.open {
		if err := f.close(); err != nil && first == nil {
			first = fmt.Errorf("%s: %s", name, ErrText(err))
		}
	}
	a.open = map[string]*awkFile{}
	return first
}

// parseAwk parses src for a run with files: the program as written when it
// opens no file, else rewritten so that it opens them through files.
func parseAwk(src string, files *awkFiles) (*parser.Program, error) {
	cfg := &parser.ParserConfig{Funcs: files.funcs()}
	prog, err := parser.ParseProgram([]byte(src), cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range prog.Functions {
		if strings.HasPrefix(f.Name, awkReserved) {
			return nil, fmt.Errorf("function name %q is reserved (names starting with %s are)", f.Name, awkReserved)
		}
	}
	rw, err := newAwkRewriter()
	if err != nil {
		return nil, err
	}
	if !rw.rewrite(reflect.ValueOf(&prog.ResolvedProgram.Program).Elem()) {
		return prog, nil
	}
	again, err := parser.ParseProgram([]byte(prog.String()), cfg)
	if err != nil {
		// The printed program did not parse: a gap between GoAWK's printer
		// and its parser, not the script's fault. Say so rather than run
		// the program with files outside the quota.
		return nil, fmt.Errorf("this program's file redirections are not supported (%v)", err)
	}
	return again, nil
}

// awkRewriter changes a parsed program's syntax tree; its node types and
// the nodes it reuses come from a template program.
type awkRewriter struct {
	printfStmt, userCall, strExpr, callExpr reflect.Type
	ofs, ors, field0                        reflect.Value
	changed                                 bool
}

// awkTemplate holds one node of each kind the rewrite makes.
const awkTemplate = `BEGIN { printf __amla_print("", ">", OFS, ORS, $0); printf sprintf("") }`

var (
	awkTemplateOnce sync.Once
	awkTemplateRW   awkRewriter
	awkTemplateErr  error
)

func newAwkRewriter() (*awkRewriter, error) {
	awkTemplateOnce.Do(func() {
		funcs := newAwkFiles(nil, nil).funcs()
		prog, err := parser.ParseProgram([]byte(awkTemplate), &parser.ParserConfig{Funcs: funcs})
		if err != nil {
			awkTemplateErr = fmt.Errorf("awk: template: %w", err)
			return
		}
		begin := prog.Begin[0]
		first := reflect.ValueOf(begin[0]) // *PrintfStmt
		call := first.Elem().FieldByName("Args").Index(0).Elem()
		args := call.Elem().FieldByName("Args")
		second := reflect.ValueOf(begin[1]).Elem().FieldByName("Args").Index(0).Elem()
		awkTemplateRW = awkRewriter{
			printfStmt: first.Type().Elem(),
			userCall:   call.Type().Elem(),
			strExpr:    args.Index(1).Elem().Type().Elem(),
			callExpr:   second.Type().Elem(),
			ofs:        args.Index(2),
			ors:        args.Index(3),
			field0:     args.Index(4),
		}
	})
	if awkTemplateErr != nil {
		return nil, awkTemplateErr
	}
	rw := awkTemplateRW
	return &rw, nil
}

// rewrite walks v (a node, a slice of nodes, or a field holding one) and
// changes what opens files; it reports whether anything changed.
func (rw *awkRewriter) rewrite(v reflect.Value) bool {
	rw.walk(v)
	return rw.changed
}

func (rw *awkRewriter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		rw.walk(v.Elem())
		if repl, ok := rw.replacement(v.Elem()); ok {
			v.Set(repl)
			rw.changed = true
		}
	case reflect.Pointer:
		if !v.IsNil() {
			rw.walk(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rw.walk(v.Index(i))
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				rw.walk(v.Field(i))
			}
		}
	}
}

// replacement is what node n (a pointer to a syntax node) becomes, if it
// changes. A getline's file is changed in place.
func (rw *awkRewriter) replacement(n reflect.Value) (reflect.Value, bool) {
	if n.Kind() != reflect.Pointer || n.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	node := n.Elem()
	switch node.Type().Name() {
	case "PrintStmt", "PrintfStmt":
		redirect := lexer.Token(node.FieldByName("Redirect").Int())
		if redirect != lexer.GREATER && redirect != lexer.APPEND {
			return reflect.Value{}, false
		}
		mode := ">"
		if redirect == lexer.APPEND {
			mode = ">>"
		}
		dest := node.FieldByName("Dest")
		args := node.FieldByName("Args")
		var call reflect.Value
		if node.Type().Name() == "PrintStmt" {
			callArgs := []reflect.Value{dest, rw.str(mode), rw.ofs, rw.ors}
			if args.Len() == 0 {
				callArgs = append(callArgs, rw.field0)
			}
			for i := 0; i < args.Len(); i++ {
				callArgs = append(callArgs, args.Index(i))
			}
			call = rw.user("print", callArgs...)
		} else {
			sprintf := reflect.New(rw.callExpr)
			sprintf.Elem().FieldByName("Func").SetInt(int64(lexer.F_SPRINTF))
			sprintf.Elem().FieldByName("Args").Set(args)
			call = rw.user("write", dest, rw.str(mode), rw.expr(sprintf))
		}
		stmt := reflect.New(rw.printfStmt)
		stmt.Elem().FieldByName("Args").Set(rw.exprs(args.Type(), call))
		stmt.Elem().FieldByName("Start").Set(node.FieldByName("Start"))
		stmt.Elem().FieldByName("End").Set(node.FieldByName("End"))
		return stmt, true
	case "GetlineExpr":
		file := node.FieldByName("File")
		if !file.IsNil() {
			file.Set(rw.user("path", file))
			rw.changed = true
		}
	case "CallExpr":
		args := node.FieldByName("Args")
		switch lexer.Token(node.FieldByName("Func").Int()) {
		case lexer.F_CLOSE:
			closeCall := reflect.New(rw.callExpr)
			closeCall.Elem().FieldByName("Func").SetInt(int64(lexer.F_CLOSE))
			closeCall.Elem().FieldByName("Args").Set(rw.exprs(args.Type(), rw.user("path", args.Index(0))))
			return rw.user("close", rw.expr(closeCall)), true
		case lexer.F_FFLUSH:
			if args.Len() > 0 {
				return rw.user("fflush", args.Index(0)), true
			}
			return rw.user("fflush_all", n), true
		}
	}
	return reflect.Value{}, false
}

// user is a call of the Go function __amla_<name> with args, as an Expr.
func (rw *awkRewriter) user(name string, args ...reflect.Value) reflect.Value {
	call := reflect.New(rw.userCall)
	call.Elem().FieldByName("Name").SetString(awkReserved + name)
	field := call.Elem().FieldByName("Args")
	field.Set(rw.exprs(field.Type(), args...))
	return rw.expr(call)
}

// str is a string literal, as an Expr.
func (rw *awkRewriter) str(s string) reflect.Value {
	v := reflect.New(rw.strExpr)
	v.Elem().FieldByName("Value").SetString(s)
	return rw.expr(v)
}

// expr wraps node n as a value of the Expr interface type.
func (rw *awkRewriter) expr(n reflect.Value) reflect.Value {
	e := reflect.New(rw.ofs.Type()).Elem()
	e.Set(n)
	return e
}

// exprs is a []Expr (of sliceType) holding vals.
func (rw *awkRewriter) exprs(sliceType reflect.Type, vals ...reflect.Value) reflect.Value {
	s := reflect.MakeSlice(sliceType, 0, len(vals))
	for _, v := range vals {
		if v.Kind() != reflect.Interface {
			v = rw.expr(v)
		}
		s = reflect.Append(s, v)
	}
	return s
}
