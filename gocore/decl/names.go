package decl

import (
	"strconv"
	"strings"

	"amlasandbox/gocore/toolcat"
)

// isASCIIIdent says whether s is an identifier in both languages' ASCII
// subset (letters, digits, '_', not starting with a digit). Names with
// other characters are treated as no identifier: quoted or reached through
// callTool / call_tool, which is always right, where guessing Unicode
// identifier rules (and Python's NFKC folding) could be wrong.
func isASCIIIdent(s string, dollar bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		case c >= '0' && c <= '9' && i > 0:
		case c == '$' && dollar:
		default:
			return false
		}
	}
	return true
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// jsReserved are the words a TypeScript declaration cannot use as the name
// of a function or namespace: reserved words (strict mode included), and
// the names TypeScript keeps for its own types.
var jsReserved = setOf(`break case catch class const continue debugger default delete do else enum
export extends false finally for function if import in instanceof new null return super switch
this throw true try typeof var void while with implements interface let package private protected
public static yield await eval arguments any unknown never string number boolean symbol object
bigint undefined`)

// jsGlobals are the globals of the JavaScript guest that a tool never
// replaces (standard builtins and the prelude's own), as the prelude's
// "id in G" test finds them; the conveniences that yield to a tool of
// the same name (fetch, require, ...) are not here.
var jsGlobals = setOf(`globalThis Infinity NaN undefined Object Function Array Number parseFloat
parseInt Boolean String Symbol Date Promise RegExp Error AggregateError EvalError RangeError
ReferenceError SyntaxError TypeError URIError JSON Math Intl ArrayBuffer SharedArrayBuffer
Atomics DataView Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float16Array
Float32Array Float64Array Uint8ClampedArray BigInt64Array BigUint64Array BigInt Map Set WeakMap
WeakSet WeakRef FinalizationRegistry Proxy Reflect Iterator decodeURI decodeURIComponent encodeURI
encodeURIComponent escape unescape isFinite isNaN eval queueMicrotask structuredClone print
console shell listTools getToolInfo callTool __tools__ setTimeout setInterval setImmediate
clearTimeout clearInterval clearImmediate fs TextEncoder TextDecoder URL URLSearchParams Headers
Request Response AbortController AbortSignal Blob atob btoa`)

// jsYielding are the prelude's conveniences that a plain tool of the same
// name replaces; they still keep a namespace from taking the name.
var jsYielding = setOf(`fetch require process Buffer crypto performance global tools`)

// tsLibTypes are global type names of TypeScript's lib that a generated
// type name must not take.
var tsLibTypes = setOf(`Record Partial Required Readonly Pick Omit Exclude Extract NonNullable
Parameters ReturnType InstanceType Awaited Promise PromiseLike Array ReadonlyArray Map Set Object
Function String Number Boolean Symbol Date RegExp Error JSON Math Iterable Iterator Uppercase
Lowercase Capitalize Uncapitalize ThisType ArrayLike PropertyKey`)

// pyKeywords are Python's keywords, and __debug__, which no code may bind.
var pyKeywords = setOf(`False None True and as assert async await break class continue def del
elif else except finally for from global if import in is lambda nonlocal not or pass raise return
try while with yield __debug__`)

// pyBuiltins are the names of Python 3.13's builtins module: the guest
// gives no tool a global that would hide one, except the conveniences of
// pyYielding.
var pyBuiltins = setOf(`ArithmeticError AssertionError AttributeError BaseException
BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup
False FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError
ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError
KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError None NotADirectoryError
NotImplemented NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError
ProcessLookupError PythonFinalizationError RecursionError ReferenceError ResourceWarning
RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError
SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError
UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning
ZeroDivisionError __build_class__ __debug__ __doc__ __import__ __loader__ __name__ __package__
__spec__ abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr
classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec exit
filter float format frozenset getattr globals hasattr hash help hex id input int isinstance
issubclass iter len license list locals map max memoryview min next object oct open ord pow print
property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple
type vars zip`)

// pyYielding are builtins a tool of the same name replaces.
var pyYielding = setOf(`help exit quit copyright credits license`)

// pyHelpers are the Python guest's own globals, which no tool hides.
var pyHelpers = setOf(`shell list_tools get_tool_info call_tool ToolError ToolDenied ShellError`)

// pyTyping are the names the Python stubs import from typing; a tool's
// namespace or a generated type may not take them.
var pyTyping = setOf(`Any Literal NotRequired TypedDict Never overload`)

// jsName is the JavaScript guest's identifier form of a name, as the
// tool catalogue decides it.
func jsName(s string) string { return toolcat.JSName(s) }

// pyName is the Python guest's identifier form of one part of a name, as
// the tool catalogue decides it.
func pyName(s string) string { return toolcat.PyName(s) }

// jsIdent says whether s can name a TypeScript function or namespace.
func jsIdent(s string) bool { return isASCIIIdent(s, true) && !jsReserved[s] }

// jsPropName is a property name as TypeScript writes it: bare when it is
// an identifier, else a quoted string.
func jsPropName(s string) string {
	if isASCIIIdent(s, true) {
		return s
	}
	return quote(s)
}

// pyIdent says whether s can be a Python parameter or field name in the
// stubs (inside a class too: a name starting with "__" would be mangled).
func pyIdent(s string) bool {
	return isASCIIIdent(s, false) && !pyKeywords[s] && !strings.HasPrefix(s, "__")
}

// pascal makes a type-name part of s: its words capitalised and joined
// ("create_issue" → "CreateIssue"); "" when s has no letter or digit.
func pascal(s string) string {
	var b strings.Builder
	up := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			if up {
				c -= 'a' - 'A'
			}
			b.WriteByte(c)
			up = false
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteByte(c)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}

// names hands out unique names in one scope.
type names struct {
	reserved []map[string]bool // shared, never written
	taken    map[string]bool
}

func newNames(reserved ...map[string]bool) *names {
	return &names{reserved: reserved, taken: map[string]bool{}}
}

func (n *names) has(name string) bool {
	if n.taken[name] {
		return true
	}
	for _, r := range n.reserved {
		if r[name] {
			return true
		}
	}
	return false
}

// unique is base, or base2, base3, ... when taken; "T" goes before a base
// that is empty or starts with a digit.
func (n *names) unique(base string) string {
	if base == "" || base[0] >= '0' && base[0] <= '9' {
		base = "T" + base
	}
	if len(base) > 64 {
		base = base[:64]
	}
	name := base
	for i := 2; n.has(name); i++ {
		name = base + strconv.Itoa(i)
	}
	n.taken[name] = true
	return name
}
