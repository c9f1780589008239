package jsrt

import (
	"embed"
	_ "embed"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// The prelude is this Go code plus prelude.js: Go provides the natives
// (output, tool calls, files, the shell, timers, byte conversions), the
// script builds the globals a user sees from them. prelude.js evaluates to
// a function that receives the natives and returns the helpers Go needs.
//
//go:embed prelude.js
var preludeSource string

// sectionFiles are the parts of the prelude compiled on first use.
//
//go:embed prelude_*.js
var sectionFiles embed.FS

const preludeName = "prelude.js"

var (
	preludeOnce    sync.Once
	preludeProgram *goja.Program
	preludeErr     error
)

// compiledPrelude compiles prelude.js once per process (node -e runs
// reuse it).
func compiledPrelude() (*goja.Program, error) {
	preludeOnce.Do(func() {
		preludeProgram, preludeErr = goja.Compile(preludeName, preludeSource, true)
	})
	return preludeProgram, preludeErr
}

func (rt *runtime) installPrelude() error {
	prg, err := compiledPrelude()
	if err != nil {
		return err
	}
	v, err := rt.vm.RunProgram(prg)
	if err != nil {
		return err
	}
	setup, ok := goja.AssertFunction(v)
	if !ok {
		return fmt.Errorf("%s does not evaluate to a function", preludeName)
	}
	helpers, err := setup(goja.Undefined(), rt.natives())
	if err != nil {
		return err
	}
	h := helpers.ToObject(rt.vm)
	for _, f := range []struct {
		dst  *goja.Callable
		name string
	}{
		{&rt.describeError, "describeError"},
		{&rt.resultText, "resultText"},
	} {
		fn, ok := goja.AssertFunction(h.Get(f.name))
		if !ok {
			return fmt.Errorf("%s does not provide %s", preludeName, f.name)
		}
		*f.dst = fn
	}
	return nil
}

// natives is the object prelude.js receives.
func (rt *runtime) natives() *goja.Object {
	n := rt.vm.NewObject()
	set := func(o *goja.Object, name string, v interface{}) {
		val := rt.vm.ToValue(v)
		if f, ok := val.(*goja.Object); ok {
			if _, callable := goja.AssertFunction(f); callable {
				// goja names Go functions after their Go symbol; stacks
				// should say "at readFile (native)".
				_ = f.DefineDataProperty("name", rt.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
		}
		if err := o.Set(name, val); err != nil {
			panic(err)
		}
	}
	set(n, "section", func(name string) (string, error) {
		body, err := sectionFiles.ReadFile("prelude_" + name + ".js")
		if err != nil {
			return "", fmt.Errorf("prelude section %q: %w", name, err)
		}
		return "(() => {\n" + string(body) + "\n})()", nil
	})
	set(n, "write", rt.write)
	set(n, "submit", func(c goja.FunctionCall) goja.Value {
		return rt.submitTool(c.Argument(0).String(), c.Argument(1).String())
	})
	set(n, "tools", rt.toolsValue())
	set(n, "hasShell", rt.opts.Shell != nil)
	set(n, "shell", rt.shell)
	set(n, "setTimer", rt.setTimer)
	set(n, "clearTimer", rt.clearTimer)
	set(n, "refTimer", rt.refTimer)
	set(n, "exit", rt.exit)
	set(n, "now", func() float64 { return float64(time.Since(rt.started).Nanoseconds()) / 1e6 })
	set(n, "timeOrigin", float64(rt.started.UnixNano())/1e6)
	set(n, "promiseState", rt.promiseState)
	set(n, "cleanStack", func(s string) string { return cleanStack(s, maxStackFrames, rt.userLines) })
	set(n, "workDir", workDir)
	fsObj := rt.vm.NewObject()
	for name, f := range rt.fsNatives() {
		set(fsObj, name, f)
	}
	set(n, "fs", fsObj)
	for name, f := range rt.encodingNatives() {
		set(n, name, f)
	}
	return n
}

// write(fd, text) writes one chunk of output at once.
func (rt *runtime) write(c goja.FunctionCall) goja.Value {
	w := rt.stdout
	if c.Argument(0).ToInteger() == 2 {
		w = rt.stderr
	}
	_, _ = io.WriteString(w, c.Argument(1).String())
	return goja.Undefined()
}

func (rt *runtime) toolsValue() goja.Value {
	entries := toolEntries(rt.opts.ToolList)
	out := make([]interface{}, len(entries))
	for i, e := range entries {
		o := rt.vm.NewObject()
		_ = o.Set("name", e.Name)
		_ = o.Set("jsName", e.JSName)
		_ = o.Set("description", e.Description)
		if e.Schema != "" {
			_ = o.Set("schema", e.Schema)
		}
		out[i] = o
	}
	return rt.vm.ToValue(out)
}

// shell(cmd, stdin) runs a command line in the sandbox shell.
func (rt *runtime) shell(cmd, stdin string) map[string]interface{} {
	if rt.opts.Shell == nil {
		rt.throw(rt.errorCtor, "shell is not available in this runtime")
	}
	stdout, stderr, code := rt.opts.Shell(cmd, stdin)
	return map[string]interface{}{"stdout": stdout, "stderr": stderr, "exitCode": code}
}

// exit(code) is process.exit: it stops the script at once.
func (rt *runtime) exit(code goja.Value) {
	c := 0
	if code != nil && !goja.IsUndefined(code) {
		f := code.ToFloat()
		if !math.IsNaN(f) {
			c = int(f)
		}
	}
	rt.exitReq = &c
	rt.vm.Interrupt(exitSignal{})
}

// promiseState(p) is [state, value] for console's Promise display.
func (rt *runtime) promiseState(v goja.Value) goja.Value {
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return goja.Undefined()
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return rt.vm.ToValue([]interface{}{"fulfilled", p.Result()})
	case goja.PromiseStateRejected:
		return rt.vm.ToValue([]interface{}{"rejected", p.Result()})
	}
	return rt.vm.ToValue([]interface{}{"pending"})
}

// maxStackFrames is how many frames a printed stack shows.
const maxStackFrames = 10

var (
	stackFrameRe = regexp.MustCompile(`^\s*at (.*)$`)
	stackPCRe    = regexp.MustCompile(`(:\d+:\d+)\(\d+\)`)
	stackPosRe   = regexp.MustCompile(regexp.QuoteMeta(scriptName) + `:(\d+):(\d+)`)
)

// cleanStack turns goja's stack text into Node's shape: the frame lines
// only (the header is printed separately), indented "    at ...", without
// goja's bytecode offsets, with positions in the user's terms, without the
// frames of the wrapper and the prelude, and at most n frames. userLines is
// the number of lines of user code (frames past it are the wrapper's). The
// result is "" or starts with a newline.
func cleanStack(s string, n, userLines int) string {
	var b strings.Builder
	frames, dropped := 0, 0
	for _, line := range strings.Split(s, "\n") {
		m := stackFrameRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		frame := stackPCRe.ReplaceAllString(m[1], "$1")
		if strings.Contains(frame, preludeName+":") || strings.HasPrefix(frame, depthCheckName+" ") {
			continue
		}
		keep := true
		frame = stackPosRe.ReplaceAllStringFunc(frame, func(pos string) string {
			sm := stackPosRe.FindStringSubmatch(pos)
			line, _ := strconv.Atoi(sm[1])
			col, _ := strconv.Atoi(sm[2])
			if line == 1 {
				col -= len(wrapPrefix)
			}
			if line > userLines || col < 1 {
				keep = false
			}
			return scriptName + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
		})
		if !keep {
			continue
		}
		if frames == n {
			dropped++
			continue
		}
		b.WriteString("\n    at " + frame)
		frames++
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "\n    ... %d more", dropped)
	}
	return b.String()
}
