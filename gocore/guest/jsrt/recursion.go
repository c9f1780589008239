package jsrt

import (
	goruntime "runtime"
	"strings"

	"github.com/dop251/goja"
)

// Deep recursion must end in a RangeError the script can catch, as in Node.
// goja's own limit (SetMaxCallStackSize) raises a Go-level
// *goja.StackOverflowError that JavaScript catch blocks never see: it
// unwinds straight to the nearest Go caller. So we enforce the limit
// ourselves, in JavaScript terms, and keep goja's limit only as a backstop
// higher up:
//
//   - user functions that may take part in a recursion (instrument.go says
//     which) start with `--__amla_n > 0 || (__amla_n = __amla_chk())`,
//     added to the parsed AST with the function's own source position, so
//     no line or column moves;
//   - __amla_chk measures the real depth and throws a RangeError when it is
//     at the limit; otherwise it returns how many calls may pass before the
//     next check (at most 256), fewer the closer the depth is to the limit,
//     so the limit cannot be overshot by more than a few frames.
//
// The check bounds two depths: JavaScript frames (MaxCallStack, as Node
// counts them) and Go frames, because recursion through native code
// (getters, callbacks of map/sort, toJSON, async functions) nests Go calls,
// which in the guest use the WASM stack; overflowing that traps and kills
// the instance instead of throwing.
//
// Recursion that never passes through an instrumented function still hits
// goja's backstop, which ends the run with an uncaught "RangeError: Maximum
// call stack size exceeded"; unwinding it through many native frames is
// slow (goja re-panics at each one), which is why the backstop is kept low.
// Native-nested recursion of that kind can also exhaust the WASM stack
// first, which the host sees as a trap.
const (
	depthCheckName   = "__amla_chk"
	depthCounterName = "__amla_n"

	// DefaultMaxCallStack is the call depth at which a RangeError is thrown
	// when Options.MaxCallStack is 0. JavaScript-to-JavaScript calls do not
	// use the Go stack in goja, but calls through native functions (map
	// callbacks, getters, toJSON) do, and in the guest that stack is the
	// WASM stack: keep this modest.
	DefaultMaxCallStack = 2000

	// goja's own, uncatchable limit sits at backstopFactor*limit +
	// backstopMargin. It counts internal frames CaptureCallStack does not
	// report (an async function call takes two), so it must be well above
	// the limit the check enforces.
	backstopFactor = 2
	backstopMargin = 1000

	maxCheckInterval = 256

	// goFramesPerJSFrame sets the Go stack budget: maxGoFrames is this
	// times the JavaScript limit. Calls that go through native code
	// (getters, map callbacks, toJSON, async functions) recurse in Go, up to
	// about 9 Go frames per JavaScript call (goFramesPerCall), and in the
	// guest Go frames live on the WASM stack. Measured on wasmtime v39:
	// with its default max_wasm_stack of 512 KiB such recursion traps at
	// 10,000 to 14,000 Go frames; 4 x 2000 = 8,000 fits. A host that raises
	// MaxCallStack should give the guest about 256 bytes of WASM stack per
	// unit (max_wasm_stack >= MaxCallStack * 256).
	goFramesPerJSFrame = 4
	goFramesPerCall    = 10
)

// checkDepth is __amla_chk: it throws a RangeError at the depth limit and
// otherwise returns the number of calls until the next check.
func (rt *runtime) checkDepth(goja.FunctionCall) goja.Value {
	// The whole stack, not CaptureCallStack(limit): a bounded capture
	// counts internal entries too (an async call has an invisible one), so
	// it would see fewer frames than there are.
	frames := rt.vm.CaptureCallStack(0, rt.frames[:0])
	rt.frames = frames[:0]
	depth := len(frames)
	goDepth := rt.goDepth()
	if depth > rt.maxDepth || goDepth > rt.maxGoFrames {
		panic(rt.stackOverflow())
	}
	next := min((rt.maxDepth-depth)/8, (rt.maxGoFrames-goDepth)/(8*goFramesPerCall))
	return rt.vm.ToValue(max(1, min(next, maxCheckInterval)))
}

// goDepth is the number of Go frames on the stack, counted up to
// maxGoFrames+1. The buffer starts small: scripts that never recurse
// through native code never need a big one.
func (rt *runtime) goDepth() int {
	if rt.goPCs == nil {
		rt.goPCs = make([]uintptr, 256)
	}
	n := goruntime.Callers(0, rt.goPCs)
	if n == len(rt.goPCs) && n <= rt.maxGoFrames {
		rt.goPCs = make([]uintptr, rt.maxGoFrames+1)
		n = goruntime.Callers(0, rt.goPCs)
	}
	return n
}

// stackOverflow is the catchable RangeError Node throws, with its stack
// cut to the innermost frames (a full one would list thousands).
func (rt *runtime) stackOverflow() *goja.Object {
	e := rt.newErrorOf(rt.rangeErrorCtor, "Maximum call stack size exceeded")
	if s, ok := e.Get("stack").Export().(string); ok {
		_ = e.Set("stack", truncateStack(s, maxStackFrames))
	}
	return e
}

// truncateStack keeps the header and the first n "at" lines of a stack.
func truncateStack(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	frames := 0
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "at ") {
			frames++
			if frames > n {
				return strings.Join(lines[:i], "") + "\t... more frames\n"
			}
		}
	}
	return s
}
