package jsrt

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// scriptName is the file name user code has in stack traces.
const scriptName = "script.js"

// The user's code is the body of an async arrow function that is invoked at
// once (API.md §3.2), so top-level await and return work and declarations
// stay local to the run. The prefix shares the first line with the user's
// code: line numbers are the user's own everywhere and only columns on
// line 1 are shifted, by len(wrapPrefix); syntax errors and printed stacks
// undo that shift.
//
// The outer function receives the depth check and holds the countdown the
// instrumented functions decrement (see recursion.go).
const (
	wrapPrefix = "(function (" + depthCheckName + ") { let " + depthCounterName + " = 1; return (async () => {"
	wrapSuffix = "\n})(); })"
)

// syntaxError is a script that did not parse, located in the user's code.
type syntaxError struct {
	Message string
	Line    int // 1-based line in the user's code
	Column  int // 1-based column in characters
	// Source is the offending line of the user's code ("" when unknown).
	Source string
}

// Error renders the error as the script's stderr shows it: the message with
// its position, then the source line and a caret under the column.
func (e *syntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SyntaxError: %s (line %d, column %d)", e.Message, e.Line, e.Column)
	if e.Source != "" && len(e.Source) <= 200 {
		prefix := fmt.Sprintf("    %d | ", e.Line)
		b.WriteString("\n" + prefix + e.Source + "\n")
		b.WriteString(strings.Repeat(" ", len(prefix)-2) + "| ")
		b.WriteString(strings.Repeat(" ", caretIndent(e.Source, e.Column)) + "^")
	}
	return b.String()
}

// caretIndent is how many columns precede character column col of line,
// keeping tabs so the caret lines up under a tab-indented source line.
func caretIndent(line string, col int) int {
	n := 0
	for i, r := range line {
		if utf8.RuneCountInString(line[:i]) >= col-1 {
			break
		}
		if r == '\t' {
			n += 4
		} else {
			n++
		}
	}
	return n
}

// compileScript wraps, parses, instruments and compiles the user's code.
// globals are the global names defined before it runs (nil: none known).
func compileScript(code string, globals map[string]bool) (*goja.Program, *syntaxError) {
	code = stripHashbang(code)
	src := wrapPrefix + code + wrapSuffix
	prg, err := parser.ParseFile(nil, scriptName, src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			e := list[0]
			return nil, locatesyntaxError(code, e.Message, e.Position.Line, e.Position.Column)
		}
		return nil, &syntaxError{Message: err.Error(), Line: 1, Column: 1}
	}
	base := prg.File.Base()
	instrument(prg, base+len(wrapPrefix), base+len(wrapPrefix)+len(code), globals)
	p, err := goja.CompileAST(prg, false)
	if err != nil {
		var ce *goja.CompilerSyntaxError
		if errors.As(err, &ce) && ce.File != nil {
			pos := ce.File.Position(ce.Offset)
			return nil, locatesyntaxError(code, ce.Message, pos.Line, pos.Column)
		}
		return nil, &syntaxError{Message: err.Error(), Line: 1, Column: 1}
	}
	return p, nil
}

// stripHashbang turns a leading "#!" line into a comment of the same
// length, so positions do not move.
func stripHashbang(code string) string {
	if strings.HasPrefix(code, "#!") {
		return "//" + code[2:]
	}
	return code
}

// locatesyntaxError maps a position in the wrapped source (line, byte
// column) back to the user's code and explains what the engine cannot do.
func locatesyntaxError(code, msg string, line, byteCol int) *syntaxError {
	lines := strings.Split(code, "\n")
	if line == 1 {
		byteCol -= len(wrapPrefix)
	}
	last := len(lines)
	beyond := line > last || (line == last && byteCol > len(lines[last-1])+1) || byteCol < 1
	if beyond {
		// The parser ran into our suffix: the user's code ended while a
		// bracket, brace, parenthesis, string or template was still open,
		// or it closed more than it opened.
		line, byteCol = last, len(lines[last-1])+1
		if !strings.Contains(msg, "end of input") {
			msg = "Unexpected end of input (an unclosed or extra bracket, brace, parenthesis, string or template?)"
		}
	}
	src := strings.TrimRight(lines[line-1], "\r")
	if byteCol > len(src)+1 {
		byteCol = len(src) + 1
	}
	col := utf8.RuneCountInString(src[:byteCol-1]) + 1
	return &syntaxError{
		Message: explainUnsupported(msg, src, byteCol),
		Line:    line,
		Column:  col,
		Source:  src,
	}
}

// explainUnsupported replaces the parser's terse message for syntax the
// engine does not support (API.md deviation #8: never fail silently, say
// what is missing and what to write instead).
func explainUnsupported(msg, line string, byteCol int) string {
	before := strings.TrimSpace(line[:byteCol-1])
	at := line[byteCol-1:]
	switch {
	case strings.Contains(msg, "Async generators are not supported"):
		return "async generator functions (async function*) are not supported by this JavaScript engine; " +
			"return an array, or use a regular generator that yields promises"
	case strings.Contains(msg, "Unexpected token await") && strings.HasSuffix(before, "for") ||
		strings.HasPrefix(at, "await") && strings.HasSuffix(before, "for"):
		return "for await...of is not supported by this JavaScript engine; " +
			"use for (const x of await Promise.all(items)) or await inside a regular for...of loop"
	case strings.Contains(msg, "Unexpected token *") && strings.HasSuffix(strings.TrimRight(before, "* \t"), "async"):
		return "async generator methods (async *name()) are not supported by this JavaScript engine; " +
			"return an array, or use a regular generator that yields promises"
	case strings.HasPrefix(at, "import") && (strings.Contains(msg, "reserved word") || strings.Contains(msg, "Unexpected token")):
		return "import is not supported: there are no modules in the sandbox; use the globals (fs, shell, tool functions) " +
			"or require('fs'), require('path')"
	case strings.HasPrefix(at, "export") && (strings.Contains(msg, "reserved word") || strings.Contains(msg, "Unexpected token")):
		return "export is not supported: the script is not a module; return a value instead"
	}
	return msg
}
