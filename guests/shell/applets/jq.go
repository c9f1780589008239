package applets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

const jqUsage = "jq [-rjcsneaR] [-f FILE] [--tab] [--indent N] [--arg NAME VALUE] [--argjson NAME JSON] " +
	"[--slurpfile NAME FILE] [--rawfile NAME FILE] FILTER [FILE]... [--args ARG... | --jsonargs JSON...]"

// Exit statuses of jq.
const (
	jqExitFalsy   = 1 // -e: the last output was false or null
	jqExitUsage   = 2 // bad flags, unreadable or unparsable input
	jqExitCompile = 3 // the filter does not compile
	jqExitNoValue = 4 // -e: no output at all
	jqExitError   = 5 // the filter failed at run time
)

// jqOptions are jq's parsed flags.
type jqOptions struct {
	raw, join, compact, slurp, nullInput, exitStatus, ascii, rawInput, tab bool
	indent                                                                 int
	vars                                                                   []jqVar
	positional                                                             []string
	jsonArgs                                                               bool
	filter                                                                 string
	haveFilter                                                             bool
	fromFile                                                               string // -f FILE
	files                                                                  []string
}

// jqApplet runs a jq filter with gojq. Output is pretty-printed with two
// spaces by default, -c compact, -r raw strings. Object keys come out in
// gojq's documented order, sorted (jq keeps insertion order; gojq keeps
// objects in Go maps), and keys_unsorted, to_entries and with_entries
// follow the same sorted order.
func jqApplet(p *Proc, args []string) int {
	o, status := parseJQArgs(p, args[1:])
	if status != 0 {
		return status
	}
	if _, err := gojq.Parse(o.filter); err != nil {
		p.errorf("jq", "error: %s\n%s", jqParseErrText(o.filter, err), "jq: 1 compile error")
		return jqExitCompile
	}
	// jq's definitions that gojq lacks come first; the user's own
	// definitions still shadow them.
	query, err := gojq.Parse(jqPrelude + o.filter)
	if err != nil {
		p.errorf("jq", "error: %s\n%s", jqParseErrText(o.filter, err), "jq: 1 compile error")
		return jqExitCompile
	}
	named := map[string]any{}
	names := []string{"$ARGS"}
	values := []any{nil}
	for _, v := range o.vars {
		val, status := jqArgValue(p, v.kind, v.text)
		if status != 0 {
			return status
		}
		names = append(names, "$"+v.name)
		values = append(values, val)
		named[v.name] = val
	}
	positional := []any{}
	for _, a := range o.positional {
		var val any = a
		if o.jsonArgs {
			if val, status = jqArgValue(p, "jsonargs", a); status != 0 {
				return status
			}
		}
		positional = append(positional, val)
	}
	values[0] = map[string]any{"positional": positional, "named": named}
	in := &jqInputs{p: p, files: o.files, raw: o.rawInput, slurp: o.slurp}
	code, err := gojq.Compile(query,
		gojq.WithVariables(names),
		gojq.WithEnvironLoader(func() []string {
			env := make([]string, 0, len(p.Env))
			for k, v := range p.Env {
				env = append(env, k+"="+v)
			}
			sort.Strings(env)
			return env
		}),
		gojq.WithInputIter(in),
	)
	if err != nil {
		p.errorf("jq", "error: %s\njq: 1 compile error", err)
		return jqExitCompile
	}
	out := bufio.NewWriter(p.Stdout)
	defer out.Flush()
	status = 0
	var last any
	outputs := 0
	run := func(v any) (stop bool) {
		iter := code.RunWithContext(p.ctx(), v, values...)
		for {
			r, ok := iter.Next()
			if !ok {
				return false
			}
			if err, isErr := r.(error); isErr {
				var halt *gojq.HaltError
				if errors.As(err, &halt) {
					out.Flush()
					if hv := halt.Value(); hv != nil {
						if s, isStr := hv.(string); isStr {
							io.WriteString(p.Stderr, s)
						} else {
							b, _ := gojq.Marshal(hv)
							fmt.Fprintf(p.Stderr, "jq: error (at %s): %s\n", in.where(), b)
						}
					}
					status = halt.ExitCode()
					return true
				}
				if errors.Is(err, p.ctx().Err()) && p.ctx().Err() != nil {
					status = 130
					return true
				}
				out.Flush()
				fmt.Fprintf(p.Stderr, "jq: error (at %s): %s\n", in.where(), err)
				status = jqExitError
				return false
			}
			outputs++
			last = r
			if err := o.write(out, r); err != nil {
				status = p.writeFailed("jq", err)
				return true
			}
		}
	}
	if o.nullInput {
		run(nil)
	} else {
		for {
			v, ok := in.Next()
			if !ok {
				break
			}
			if err, isErr := v.(error); isErr {
				out.Flush()
				fmt.Fprintf(p.Stderr, "jq: error (at %s): %s\n", in.where(), err)
				status = jqExitUsage
				break
			}
			if stop := run(v); stop {
				break
			}
		}
	}
	if err := out.Flush(); err != nil && status == 0 {
		return p.writeFailed("jq", err)
	}
	if status == 0 && o.exitStatus {
		switch {
		case outputs == 0:
			return jqExitNoValue
		case last == nil || last == false:
			return jqExitFalsy
		}
	}
	return status
}

// jqPrelude defines what jq has and gojq lacks. keys_unsorted is keys:
// gojq's objects have no order but the sorted one.
const jqPrelude = `def leaf_paths: paths(scalars);
def keys_unsorted: keys;
`

// jqTypeName names a value's jq type for error messages.
func jqTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}

// jqVar is one --arg, --argjson, --slurpfile or --rawfile.
type jqVar struct{ kind, name, text string }

// parseJQArgs parses jq's command line, whose long options take one or two
// arguments.
func parseJQArgs(p *Proc, args []string) (jqOptions, int) {
	o := jqOptions{indent: 2}
	bad := func(format string, a ...any) (jqOptions, int) {
		return o, p.usage("jq", fmt.Sprintf(format, a...), jqUsage)
	}
	restMode := "" // "args" or "jsonargs" after --args / --jsonargs
	for i := 0; i < len(args); i++ {
		a := args[i]
		need := func(n int) ([]string, bool) {
			if i+n >= len(args) {
				return nil, false
			}
			vals := args[i+1 : i+1+n]
			i += n
			return vals, true
		}
		switch {
		case a == "--":
			restMode = "files"
		case restMode == "" && strings.HasPrefix(a, "--"):
			switch name := a[2:]; name {
			case "raw-output":
				o.raw = true
			case "join-output":
				o.raw, o.join = true, true
			case "compact-output":
				o.compact = true
			case "slurp":
				o.slurp = true
			case "null-input":
				o.nullInput = true
			case "exit-status":
				o.exitStatus = true
			case "ascii-output":
				o.ascii = true
			case "raw-input":
				o.rawInput = true
			case "sort-keys", "color-output", "monochrome-output", "unbuffered", "seq":
			case "tab":
				o.tab = true
			case "indent":
				v, ok := need(1)
				if !ok {
					return bad("--indent takes one parameter")
				}
				n, err := strconv.Atoi(v[0])
				if err != nil || n < 0 || n > 7 {
					return bad("cannot indent more than 7 characters")
				}
				o.indent = n
			case "arg", "argjson", "slurpfile", "rawfile":
				v, ok := need(2)
				if !ok {
					return bad("--%s takes two parameters (e.g. --%s varname value)", name, name)
				}
				o.vars = append(o.vars, jqVar{name, v[0], v[1]})
			case "args", "jsonargs":
				restMode = name
			case "from-file":
				v, ok := need(1)
				if !ok {
					return bad("--from-file takes a parameter")
				}
				o.fromFile = v[0]
			default:
				return bad("unknown option: %s", a)
			}
		case restMode == "" && len(a) > 1 && a[0] == '-':
			for _, c := range a[1:] {
				switch c {
				case 'r':
					o.raw = true
				case 'j':
					o.raw, o.join = true, true
				case 'c':
					o.compact = true
				case 's':
					o.slurp = true
				case 'n':
					o.nullInput = true
				case 'e':
					o.exitStatus = true
				case 'a':
					o.ascii = true
				case 'R':
					o.rawInput = true
				case 'S', 'C', 'M':
				case 'f':
					v, ok := need(1)
					if !ok {
						return bad("-f takes a parameter (the file holding the filter)")
					}
					o.fromFile = v[0]
				default:
					return bad("unknown option: -%c", c)
				}
			}
		case !o.haveFilter:
			o.filter, o.haveFilter = a, true
		case restMode == "args" || restMode == "jsonargs":
			o.positional = append(o.positional, a)
			o.jsonArgs = restMode == "jsonargs"
		default:
			o.files = append(o.files, a)
		}
	}
	if o.fromFile != "" {
		// With -f the filter comes from the file, and the first operand
		// is an input like the rest.
		if o.haveFilter {
			o.files = append([]string{o.filter}, o.files...)
		}
		f, err := p.Open(o.fromFile)
		if err != nil {
			p.errorf("jq", "Could not open %s: %s", o.fromFile, ErrText(err))
			return o, jqExitUsage
		}
		text, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			p.errorf("jq", "Could not open %s: %s", o.fromFile, ErrText(err))
			return o, jqExitUsage
		}
		o.filter, o.haveFilter = string(text), true
	}
	if !o.haveFilter {
		return bad("no filter given")
	}
	return o, 0
}

// jqArgValue is the value of --arg, --argjson, --slurpfile or --rawfile.
func jqArgValue(p *Proc, kind, v string) (any, int) {
	switch kind {
	case "arg":
		return v, 0
	case "argjson", "jsonargs":
		val, err := jqDecode([]byte(v))
		if err != nil {
			p.errorf("jq", "invalid JSON text passed to --%s", kind)
			return nil, jqExitUsage
		}
		return val, 0
	}
	f, err := p.Open(v)
	if err != nil {
		p.errorf("jq", "error: Could not open %s: %s", v, ErrText(err))
		return nil, jqExitUsage
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		p.errorf("jq", "error: Could not read %s: %s", v, ErrText(err))
		return nil, jqExitUsage
	}
	if kind == "rawfile" {
		return string(data), 0
	}
	var vals []any
	dec := newJQDecoder(bytes.NewReader(data))
	for {
		val, err := dec.Decode()
		if err == io.EOF {
			break
		} else if err != nil {
			p.errorf("jq", "error: %s: %s", v, err)
			return nil, jqExitUsage
		}
		vals = append(vals, val)
	}
	if vals == nil {
		vals = []any{}
	}
	return vals, 0
}

// jqDecode decodes exactly one JSON value (jqdecode.go: big integers and
// decimals keep their text).
func jqDecode(data []byte) (any, error) {
	dec := newJQDecoder(bytes.NewReader(data))
	v, err := dec.Decode()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Decode(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// write prints one result in the selected format.
func (o *jqOptions) write(out *bufio.Writer, v any) error {
	if s, ok := v.(string); ok && o.raw {
		if _, err := out.WriteString(s); err != nil {
			return err
		}
	} else {
		indent := strings.Repeat(" ", o.indent)
		switch {
		case o.compact:
			indent = ""
		case o.tab:
			indent = "\t"
		}
		var buf bytes.Buffer
		if err := jqEncode(&buf, v, indent, 0); err != nil {
			return err
		}
		b := buf.Bytes()
		if o.ascii {
			b = asciiJSON(b)
		}
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	if !o.join {
		return out.WriteByte('\n')
	}
	return nil
}

// asciiJSON escapes every non-ASCII character of JSON text as \uXXXX.
func asciiJSON(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r < 128 {
			out.WriteByte(b[0])
		} else if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		} else {
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		b = b[size:]
	}
	return out.Bytes()
}

// jqParseErrText points at the offending token of a filter.
func jqParseErrText(filter string, err error) string {
	var pe *gojq.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s (at offset %d of %q)", err, pe.Offset, filter)
	}
	return err.Error()
}

// jqInputs yields jq's inputs one value at a time: JSON values from the
// files (or stdin), or raw lines with -R; with -s, one array (or one
// string) of everything. It also serves input/inputs in filters.
type jqInputs struct {
	p     *Proc
	files []string
	raw   bool
	slurp bool

	started bool
	queue   []string
	cur     io.ReadCloser
	curName string
	dec     *jqDecoder
	lines   *bufio.Reader
	done    bool
}

// where names the current input for error messages.
func (in *jqInputs) where() string {
	if in.curName == "" || in.curName == "-" {
		return "<stdin>"
	}
	return in.curName
}

// open moves to the next file; false when there are none left.
func (in *jqInputs) open() (bool, error) {
	if !in.started {
		in.started = true
		in.queue = inputs(in.files)
	}
	if in.cur != nil {
		in.cur.Close()
		in.cur = nil
	}
	if len(in.queue) == 0 {
		return false, nil
	}
	name := in.queue[0]
	in.queue = in.queue[1:]
	f, err := in.p.Open(name)
	if err != nil {
		return false, fmt.Errorf("Could not open %s: %s", name, ErrText(err))
	}
	in.cur, in.curName = f, name
	if in.raw {
		in.lines = bufio.NewReader(f)
	} else {
		in.dec = newJQDecoder(f)
	}
	return true, nil
}

// next returns the next single value (not slurped).
func (in *jqInputs) next() (any, bool) {
	for {
		if in.cur == nil {
			ok, err := in.open()
			if err != nil {
				return err, true
			}
			if !ok {
				return nil, false
			}
		}
		if in.raw {
			line, err := in.lines.ReadString('\n')
			if line != "" {
				return strings.TrimSuffix(line, "\n"), true
			}
			if err != nil && err != io.EOF {
				return err, true
			}
		} else {
			v, err := in.dec.Decode()
			if err == nil {
				return v, true
			}
			if err != io.EOF {
				in.done = true
				return fmt.Errorf("Cannot parse input: %s", err), true
			}
		}
		in.cur.Close()
		in.cur = nil
	}
}

// Next implements gojq.Iter.
func (in *jqInputs) Next() (any, bool) {
	if in.done {
		return nil, false
	}
	if !in.slurp {
		return in.next()
	}
	in.done = true
	if in.raw {
		var b strings.Builder
		for {
			if in.cur == nil {
				ok, err := in.open()
				if err != nil {
					return err, true
				}
				if !ok {
					return b.String(), true
				}
			}
			if _, err := io.Copy(&b, in.lines); err != nil {
				return err, true
			}
			in.cur.Close()
			in.cur = nil
		}
	}
	all := []any{}
	for {
		v, ok := in.next()
		if !ok {
			return all, true
		}
		if err, isErr := v.(error); isErr {
			return err, true
		}
		all = append(all, v)
	}
}

// jqEncode writes v as JSON with object keys sorted (gojq's order):
// compact when indent is "", else pretty with indent per level, like jq.
func jqEncode(b *bytes.Buffer, v any, indent string, level int) error {
	newline := func(l int) {
		if indent != "" {
			b.WriteByte('\n')
			for i := 0; i < l; i++ {
				b.WriteString(indent)
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			kb, err := gojq.Marshal(k)
			if err != nil {
				return err
			}
			b.Write(kb)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			if err := jqEncode(b, v[k], indent, level+1); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			if err := jqEncode(b, e, indent, level+1); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte(']')
	default:
		sb, err := gojq.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(sb)
	}
	return nil
}
