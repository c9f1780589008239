package typescript

import (
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/evanw/esbuild/pkg/api"
)

// Caps on what Strip accepts.
const (
	// MaxSourceBytes is the largest script Strip transforms.
	MaxSourceBytes = 1 << 20
	// MaxNesting is the deepest nesting of brackets, and the longest run
	// of prefix operators, Strip accepts.
	MaxNesting = 1000
)

// File is the name errors give the script.
const File = "script.ts"

// Error is a script Strip refused: a syntax error at Line:Column (1-based,
// in the user's source), or a cap exceeded (Line 0).
type Error struct {
	Line, Column int
	Message      string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "SyntaxError: " + e.Message
	}
	return fmt.Sprintf("SyntaxError: %s\n    at %s:%d:%d", e.Message, File, e.Line, e.Column)
}

// Strip returns source as JavaScript for the guest, or an *Error.
func Strip(source string) (string, error) {
	if len(source) > MaxSourceBytes {
		return "", &Error{Message: fmt.Sprintf("the TypeScript source is %d bytes; at most %d are accepted", len(source), MaxSourceBytes)}
	}
	if err := checkNesting(source); err != nil {
		return "", err
	}
	// A shebang line is a comment to the guest; esbuild keeps it only on
	// the first line, so make it a comment here.
	if strings.HasPrefix(source, "#!") {
		source = "//" + source[2:]
	}
	res := transform(source)
	// The guest runs the script inside an async function, where return is
	// allowed, but esbuild parses it as a module once it sees top-level
	// await or an import, and refuses a return there. Such a return is
	// parsed as a throw instead (same line, same column) and turned back
	// into a return in the output.
	patched, returns, ok := patchReturns(source, res.Errors)
	if ok {
		res = transform(patched)
	}
	if len(res.Errors) > 0 {
		return "", syntaxError(res.Errors[0])
	}
	code, err := layout(string(res.Code), res.Map, returns)
	if err != nil {
		return "", err
	}
	return code, nil
}

func transform(source string) api.TransformResult {
	return api.Transform(source, api.TransformOptions{
		Loader:        api.LoaderTS,
		Target:        api.ES2023,
		Sourcemap:     api.SourceMapExternal,
		LegalComments: api.LegalCommentsNone,
		Sourcefile:    File,
		Charset:       api.CharsetUTF8,
	})
}

func syntaxError(m api.Message) *Error {
	e := &Error{Message: m.Text}
	if m.Location != nil {
		e.Line = m.Location.Line
		// esbuild counts columns in bytes from 0; the guest's stack
		// traces count characters from 1.
		lineText := m.Location.LineText
		col := min(m.Location.Column, len(lineText))
		e.Column = len([]rune(lineText[:col])) + 1
	}
	return e
}

const topLevelReturn = "Top-level return cannot be used inside an ECMAScript module"

// patchReturns replaces each top-level return esbuild refuses by a throw
// of the same value ("return x" -> "throw  x", a bare "return" -> "throw
// 0;"), and returns the patched source and the returns' positions (0-based
// line and UTF-16 column, as the source map counts). ok is false when errs
// are not all about top-level returns, or a return was not where esbuild
// said.
func patchReturns(source string, errs []api.Message) (patched string, returns map[pos]bool, ok bool) {
	lines := strings.SplitAfter(source, "\n")
	var found []pos
	var bare []bool
	for round := 0; len(errs) > 0; round++ {
		if round > strings.Count(source, "return") {
			return source, nil, false
		}
		for _, m := range errs {
			if !strings.Contains(m.Text, topLevelReturn) || m.Location == nil {
				if round == 0 {
					return source, nil, false
				}
				continue // a real error, reported from the patched source
			}
			p := pos{m.Location.Line - 1, m.Location.Column}
			if p.line >= len(lines) || p.col > len(lines[p.line]) || !strings.HasPrefix(lines[p.line][p.col:], "return") {
				return source, nil, false
			}
			l := lines[p.line]
			rest := strings.TrimLeft(l[p.col+len("return"):], " \t")
			if rest == "" || rest[0] == '\n' || rest[0] == '\r' || rest[0] == ';' || rest[0] == '}' {
				lines[p.line] = l[:p.col] + "throw 0;" + l[p.col+len("return"):]
				bare = append(bare, true)
			} else {
				bare = append(bare, false)
				lines[p.line] = l[:p.col] + "throw " + l[p.col+len("return"):]
			}
			found = append(found, p)
		}
		patched = strings.Join(lines, "")
		errs = nil
		for _, m := range transform(patched).Errors {
			if strings.Contains(m.Text, topLevelReturn) {
				errs = append(errs, m)
			}
		}
	}
	if len(found) == 0 {
		return source, nil, false
	}
	returns = map[pos]bool{}
	for i, p := range found {
		returns[pos{p.line, len(utf16.Encode([]rune(lines[p.line][:p.col])))}] = bare[i]
	}
	return patched, returns, true
}

// pos is a 0-based line and column.
type pos struct{ line, col int }

// checkNesting refuses source nested deeper than MaxNesting: brackets
// outside strings and comments, and runs of prefix operators (each level
// is a level of recursion in esbuild's parser and printer).
func checkNesting(src string) error {
	depth, run := 0, 0
	line, col := 1, 1
	refuse := func(what string) error {
		return &Error{Message: fmt.Sprintf("%s at %s:%d:%d; the TypeScript source is refused before it is parsed", what, File, line, col)}
	}
	// templates holds, for each template literal being read, the bracket
	// depth its current ${ substitution started at.
	var templates []int
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '\n':
			line, col = line+1, 0
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				i--
				continue
			}
			if i+1 < len(src) && src[i+1] == '*' {
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil // esbuild reports the unterminated comment
				}
				line += strings.Count(src[i:i+2+end], "\n")
				i += end + 3
				continue
			}
		case '\'', '"':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '`':
			templates = append(templates, -1)
			i = skipTemplateText(src, i+1, &line)
			if i < len(src) && src[i] == '$' {
				depth++
				if depth > MaxNesting {
					return refuse(fmt.Sprintf("brackets nested more than %d deep", MaxNesting))
				}
				templates[len(templates)-1] = depth
				i++
			} else {
				templates = templates[:len(templates)-1]
			}
		case '(', '[', '{':
			depth++
			if depth > MaxNesting {
				return refuse(fmt.Sprintf("brackets nested more than %d deep", MaxNesting))
			}
		case ')', ']', '}':
			if c == '}' && len(templates) > 0 && templates[len(templates)-1] == depth {
				depth--
				i = skipTemplateText(src, i+1, &line)
				if i < len(src) && src[i] == '$' {
					depth++
					if depth > MaxNesting {
						return refuse(fmt.Sprintf("brackets nested more than %d deep", MaxNesting))
					}
					templates[len(templates)-1] = depth
					i++
				} else {
					templates = templates[:len(templates)-1]
				}
				continue
			}
			if depth > 0 {
				depth--
			}
		}
		switch c {
		case '!', '~', '+', '-', '<', '?', '=', '>':
			// Prefix operators, type arguments, conditionals and arrows
			// chained without brackets nest as deep as the run is long.
			run++
			if run > 2*MaxNesting {
				return refuse(fmt.Sprintf("more than %d operators in a row (each nests a level)", 2*MaxNesting))
			}
		case ' ', '\t', '\n', '\r', ':':
		default:
			if !isIdent(c) {
				run = 0
			}
		}
		col++
	}
	return nil
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// skipTemplateText returns the index of the backtick ending the template
// text starting at i, or of the '$' of a "${" in it (len(src) if neither).
func skipTemplateText(src string, i int, line *int) int {
	for ; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '\n':
			*line++
		case '`':
			return i
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				return i
			}
		}
	}
	return i
}
