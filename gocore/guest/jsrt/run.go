package jsrt

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dop251/goja"

	"amlasandbox/gocore/guest/hostapi"
	"amlasandbox/gocore/wire"
)

// Options are what one run of a script needs from its surroundings.
type Options struct {
	// Stdout and Stderr receive the script's output; every console call is
	// written at once, as one Write, so the host can stream it. Nil
	// discards.
	Stdout, Stderr io.Writer
	// Tools submits tool calls. Nil makes every call reject with
	// "No handler for tool call: mcp:<name>".
	Tools hostapi.Tools
	// ToolList is the registered tools, in registration order; nil means
	// Tools.List().
	ToolList []wire.ToolInfo
	// Shell runs one shell command line with the given stdin, for shell()
	// and shell.run(). Nil makes them reject.
	Shell func(cmd string, stdin string) (stdout, stderr string, exitCode int)
	// MaxCallStack is the call depth at which a RangeError is thrown
	// (0 = DefaultMaxCallStack).
	MaxCallStack int
	// Interrupt, when closed, stops the script at its next JavaScript
	// instruction and Run returns 1. It cannot stop a blocked tool wait or
	// a native function; the host's deadline covers those. (In the WASM
	// guest nothing preempts a running script, so this is a second line of
	// defence for native embedders and tests.)
	Interrupt <-chan struct{}
	// Root, when not empty, is a host directory that stands for the
	// guest's "/" in fs calls (tests). Empty means guest paths are used
	// as they are, which is right inside the guest, where WASI preopens
	// map them.
	Root string
}

// Run runs code as the body of an immediately invoked async function
// (API.md §3.2), to completion: every pending tool call is answered and
// every pending timeout has fired. A resolved value other than undefined
// is printed on stdout; a rejection is printed on stderr. Run returns 0,
// or 1 when the script's promise rejected, it did not parse, an error
// went uncaught elsewhere (a timer callback, an unhandled rejection) or
// it was interrupted; process.exit(n) returns n.
func Run(code string, opts Options) int {
	rt, err := newRuntime(opts)
	if err != nil {
		fmt.Fprintln(orDiscard(opts.Stderr), "amla js: cannot start the JavaScript runtime:", err)
		return 1
	}
	defer rt.close()
	return rt.run(code)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// runtime is one run: a goja VM, its prelude and the event loop's state.
type runtime struct {
	vm             *goja.Runtime
	opts           Options
	stdout, stderr io.Writer
	started        time.Time

	// Builtins captured before user code runs, which may replace them.
	jsonParse, isView                                        goja.Callable
	errorCtor, rangeErrorCtor, typeErrorCtor, uint8ArrayCtor *goja.Object
	// Helpers the prelude hands back.
	describeError, resultText goja.Callable

	pending      map[int64]*pendingCall
	pendingOrder []int64
	timers       timerQueue
	nextTimerID  int64

	main         *goja.Promise
	mainReported bool
	unhandled    []*goja.Promise

	maxDepth    int
	maxGoFrames int
	frames      []goja.StackFrame
	goPCs       []uintptr

	// userLines is the number of lines of the user's code, to tell its
	// stack frames from the wrapper's.
	userLines int

	exitCode int
	stopped  bool // nothing more runs: fatal error, interrupt or exit
	exitReq  *int
	unwatch  chan struct{}
}

// exitSignal is the interrupt value process.exit uses.
type exitSignal struct{}

// interruptSignal is the interrupt value Options.Interrupt uses.
type interruptSignal struct{}

func newRuntime(opts Options) (*runtime, error) {
	rt := &runtime{
		vm:      goja.New(),
		opts:    opts,
		stdout:  orDiscard(opts.Stdout),
		stderr:  orDiscard(opts.Stderr),
		started: time.Now(),
		pending: map[int64]*pendingCall{},
	}
	if opts.ToolList == nil && opts.Tools != nil {
		rt.opts.ToolList = opts.Tools.List()
	}
	rt.maxDepth = opts.MaxCallStack
	if rt.maxDepth <= 0 {
		rt.maxDepth = DefaultMaxCallStack
	}
	rt.maxGoFrames = goFramesPerJSFrame * rt.maxDepth
	rt.vm.SetMaxCallStackSize(backstopFactor*rt.maxDepth + backstopMargin)
	rt.vm.SetPromiseRejectionTracker(rt.trackRejection)
	if err := rt.captureBuiltins(); err != nil {
		return nil, err
	}
	if err := rt.installPrelude(); err != nil {
		return nil, err
	}
	if opts.Interrupt != nil {
		rt.unwatch = make(chan struct{})
		go func(stop <-chan struct{}, done chan struct{}) {
			select {
			case <-stop:
				rt.vm.Interrupt(interruptSignal{})
			case <-done:
			}
		}(opts.Interrupt, rt.unwatch)
	}
	return rt, nil
}

func (rt *runtime) close() {
	if rt.unwatch != nil {
		close(rt.unwatch)
	}
}

func (rt *runtime) captureBuiltins() error {
	get := func(path ...string) (*goja.Object, error) {
		v := rt.vm.GlobalObject().Get(path[0])
		for _, p := range path[1:] {
			v = v.ToObject(rt.vm).Get(p)
		}
		o, ok := v.(*goja.Object)
		if !ok {
			return nil, fmt.Errorf("builtin %v missing", path)
		}
		return o, nil
	}
	var err error
	for _, b := range []struct {
		dst  **goja.Object
		path []string
	}{
		{&rt.errorCtor, []string{"Error"}},
		{&rt.rangeErrorCtor, []string{"RangeError"}},
		{&rt.typeErrorCtor, []string{"TypeError"}},
		{&rt.uint8ArrayCtor, []string{"Uint8Array"}},
	} {
		if *b.dst, err = get(b.path...); err != nil {
			return err
		}
	}
	parse, err := get("JSON", "parse")
	if err != nil {
		return err
	}
	rt.jsonParse, _ = goja.AssertFunction(parse)
	isView, err := get("ArrayBuffer", "isView")
	if err != nil {
		return err
	}
	rt.isView, _ = goja.AssertFunction(isView)
	return nil
}

func (rt *runtime) run(code string) int {
	rt.userLines = strings.Count(code, "\n") + 1
	prg, synErr := compileScript(code, rt.globalNames())
	if synErr != nil {
		rt.errLine(synErr.Error())
		return 1
	}
	wrapper, err := rt.vm.RunProgram(prg)
	if rt.check(err) {
		return rt.finish()
	}
	start, ok := goja.AssertFunction(wrapper)
	if !ok {
		rt.fail("the wrapped script is not a function")
		return rt.finish()
	}
	check := rt.vm.ToValue(rt.checkDepth).(*goja.Object)
	_ = check.DefineDataProperty("name", rt.vm.ToValue(depthCheckName), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	promise, err := start(goja.Undefined(), check)
	if rt.check(err) {
		return rt.finish()
	}
	rt.main, _ = promise.Export().(*goja.Promise)
	if rt.main == nil {
		rt.fail("the wrapped script did not return a promise")
		return rt.finish()
	}
	rt.loop()
	return rt.finish()
}

// globalNames are the names on the global object: builtins, the
// prelude's globals and the tool stubs.
func (rt *runtime) globalNames() map[string]bool {
	names := map[string]bool{}
	for _, n := range rt.vm.GlobalObject().GetOwnPropertyNames() {
		names[n] = true
	}
	return names
}

// loop is the event loop. Promise jobs are drained by goja itself each
// time control returns from the VM; between drains the loop decides what
// happens next:
//
//   - when tool calls are pending: fire the timers that are due, then
//     block for the next answer (Tools.Next) and settle its promise;
//   - otherwise sleep until the earliest timer is due and fire it.
//
// Timers run in real time (a setTimeout of 100 ms waits 100 ms of wall
// clock, which counts towards the run's timeout), in order of due time and
// then of creation. The loop ends when no call is pending and no timer
// could still matter: once the script's promise has settled, intervals
// and unref()'d timers do not keep the run alive (a forgotten
// setInterval would otherwise run until the timeout).
func (rt *runtime) loop() {
	for !rt.stopped {
		rt.observeMain()
		if len(rt.pending) > 0 {
			if rt.fireDueTimers() {
				continue
			}
			rt.awaitTool()
			continue
		}
		t := rt.timers.peek()
		if t == nil || (rt.main.State() != goja.PromiseStatePending && !rt.timers.keepsAlive()) {
			break
		}
		if !rt.sleepUntil(t.due) {
			rt.interrupted()
			break
		}
		rt.fireTimer(rt.timers.pop())
	}
	rt.observeMain()
}

// observeMain prints the script's result or error once its promise has
// settled.
func (rt *runtime) observeMain() {
	if rt.mainReported || rt.main == nil || rt.stopped {
		return
	}
	switch rt.main.State() {
	case goja.PromiseStateFulfilled:
		rt.mainReported = true
		v, err := rt.resultText(goja.Undefined(), rt.main.Result())
		if rt.check(err) {
			return
		}
		if !goja.IsUndefined(v) {
			rt.outLine(v.String())
		}
	case goja.PromiseStateRejected:
		rt.mainReported = true
		rt.reportError(rt.main.Result(), "")
	}
}

// finish reports what is left at the end of the run and returns the exit
// code.
func (rt *runtime) finish() int {
	if rt.exitReq != nil {
		return *rt.exitReq
	}
	if rt.stopped {
		return 1
	}
	for _, p := range rt.unhandled {
		if p == rt.main || p.State() != goja.PromiseStateRejected {
			continue
		}
		rt.reportError(p.Result(), "Uncaught (in promise) ")
	}
	if rt.main != nil && rt.main.State() == goja.PromiseStatePending {
		rt.errLine("Error: the script ended while still awaiting something that can never finish " +
			"(a promise nothing resolves)")
		rt.exitCode = 1
	}
	return rt.exitCode
}

// trackRejection remembers promises rejected without a handler; those
// still unhandled when the run ends are reported. Reporting at the end
// rather than at once lets a script attach its handler late (start a
// call, await something else, then await the call).
func (rt *runtime) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		rt.unhandled = append(rt.unhandled, p)
	case goja.PromiseRejectionHandle:
		for i, q := range rt.unhandled {
			if q == p {
				rt.unhandled = append(rt.unhandled[:i], rt.unhandled[i+1:]...)
				break
			}
		}
	}
}

// reportError prints an uncaught error on stderr as API.md §3.2 says:
// "<Name>: <message>", then the stack when there is one.
func (rt *runtime) reportError(v goja.Value, prefix string) {
	rt.exitCode = 1
	text, err := rt.describeError(goja.Undefined(), v)
	if err != nil || goja.IsUndefined(text) {
		rt.errLine(prefix + fmt.Sprint(v))
		return
	}
	rt.errLine(prefix + text.String())
}

// check handles an error from entering the VM (running a program, calling
// a function, settling a promise). It reports whether the run must stop.
func (rt *runtime) check(err error) bool {
	if err == nil {
		return rt.stopped
	}
	var interrupted *goja.InterruptedError
	var overflow *goja.StackOverflowError
	var exception *goja.Exception
	switch {
	case errors.As(err, &interrupted):
		if _, ok := interrupted.Value().(exitSignal); ok {
			rt.stopped = true
			return true
		}
		rt.interrupted()
	case errors.As(err, &overflow):
		// The backstop: recursion that no instrumented function saw.
		rt.errLine("RangeError: Maximum call stack size exceeded" + cleanStack(overflow.String(), maxStackFrames, rt.userLines))
		rt.stopped = true
	case errors.As(err, &exception):
		// Thrown out of a function the loop called (a timer callback).
		rt.reportError(exception.Value(), "Uncaught ")
	default:
		rt.fail(err.Error())
	}
	return rt.stopped
}

func (rt *runtime) interrupted() {
	if !rt.stopped {
		rt.errLine("Error: script execution was interrupted")
	}
	rt.stopped = true
}

// fail ends the run on an internal error.
func (rt *runtime) fail(msg string) {
	rt.errLine("amla js: internal error: " + msg)
	rt.stopped = true
}

func (rt *runtime) outLine(s string) { _, _ = io.WriteString(rt.stdout, s+"\n") }
func (rt *runtime) errLine(s string) { _, _ = io.WriteString(rt.stderr, s+"\n") }

// newError is a JavaScript Error with message msg.
func (rt *runtime) newError(msg string) *goja.Object { return rt.newErrorOf(rt.errorCtor, msg) }

func (rt *runtime) newErrorOf(ctor *goja.Object, msg string) *goja.Object {
	o, err := rt.vm.New(ctor, rt.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return o
}

// throw raises a JavaScript exception from a native function.
func (rt *runtime) throw(ctor *goja.Object, msg string) {
	panic(rt.newErrorOf(ctor, msg))
}
