package casefile

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Case is one test case.
type Case struct {
	Name string
	// Pos is "file:line" of the case's header, for failure messages.
	Pos    string
	Script string
	Stdin  string
	Files  []File
	Dirs   []string
	Env    []string
	Stdout Expect
	Stderr Expect
	Exit   int
	// WantFiles are files whose content is checked after the run.
	WantFiles []File
	NoFiles   []string
	Tools     string
	Calls     Expect
	// NotGNU, when set, says why the case's expectation differs from what
	// GNU coreutils print (the sandbox's own choice), so the check against
	// the real tools skips it.
	NotGNU string
}

// File is a path with its content.
type File struct {
	Path    string
	Content string
}

// Expect is an expected output.
type Expect struct {
	Text string
	// Contains asks only that each line of Text occur in the output.
	Contains bool
	// Set is true when the case has the section.
	Set bool
}

// Check reports whether got meets the expectation.
func (e Expect) Check(got string) bool {
	if !e.Contains {
		return got == e.Text
	}
	for _, l := range strings.Split(strings.TrimSuffix(e.Text, "\n"), "\n") {
		if !strings.Contains(got, l) {
			return false
		}
	}
	return true
}

// Parse reads the cases of one file.
func Parse(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("casefile: %w", err)
	}
	return ParseString(path, string(data))
}

// section is a header being filled.
type section struct {
	kind, arg string
	line      int
	lines     []string
	exact     *string
}

// ParseString reads cases from text; name is used in positions.
func ParseString(name, text string) ([]Case, error) {
	var cases []Case
	var cur *Case
	var sec *section
	var script []string
	finishSection := func() error {
		if sec == nil {
			return nil
		}
		s := sec
		sec = nil
		var content string
		if s.exact != nil {
			content = *s.exact
		} else {
			lines := s.lines
			for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
				lines = lines[:len(lines)-1]
			}
			if len(lines) > 0 {
				content = strings.Join(lines, "\n") + "\n"
			}
		}
		return cur.add(s, content, fmt.Sprintf("%s:%d", name, s.line))
	}
	finishCase := func() error {
		if err := finishSection(); err != nil {
			return err
		}
		if cur != nil {
			cur.Script = strings.Join(script, "\n")
			if cur.Script == "" {
				return fmt.Errorf("%s: case %q has no command", cur.Pos, cur.Name)
			}
			cases = append(cases, *cur)
		}
		script = nil
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			if err := finishCase(); err != nil {
				return nil, err
			}
			cur = &Case{Name: strings.TrimSpace(line[4:]), Pos: fmt.Sprintf("%s:%d", name, lineNo)}
		case cur == nil:
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
				return nil, fmt.Errorf("%s:%d: text outside a case", name, lineNo)
			}
		case strings.HasPrefix(line, "--- "):
			if err := finishSection(); err != nil {
				return nil, err
			}
			s, err := parseHeader(line[4:], lineNo)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, lineNo, err)
			}
			sec = s
		case sec != nil:
			// A content line that would read as a header is written with a
			// leading backslash: \--- or \===; \\ stands for a backslash.
			for _, esc := range []string{`\---`, `\===`, `\\`} {
				if strings.HasPrefix(line, esc) {
					line = line[1:]
					break
				}
			}
			sec.lines = append(sec.lines, line)
		case line == "$" || strings.HasPrefix(line, "$ "):
			script = append(script, strings.TrimPrefix(strings.TrimPrefix(line, "$"), " "))
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		default:
			return nil, fmt.Errorf("%s:%d: expected '$ COMMAND' or '--- SECTION'", name, lineNo)
		}
	}
	if err := finishCase(); err != nil {
		return nil, err
	}
	return cases, nil
}

// parseHeader splits "KIND [ARG] [\"exact\"]".
func parseHeader(h string, line int) (*section, error) {
	s := &section{line: line}
	if i := strings.IndexByte(h, '"'); i >= 0 {
		exact, err := strconv.Unquote(strings.TrimSpace(h[i:]))
		if err != nil {
			return nil, fmt.Errorf("bad quoted content: %v", err)
		}
		s.exact = &exact
		h = h[:i]
	}
	kind, arg, _ := strings.Cut(strings.TrimSpace(h), " ")
	s.kind, s.arg = kind, strings.TrimSpace(arg)
	return s, nil
}

// add stores one finished section in the case.
func (c *Case) add(s *section, content, pos string) error {
	noContent := func() error {
		if content != "" {
			return fmt.Errorf("%s: section %q takes no content", pos, s.kind)
		}
		return nil
	}
	needArg := func() error {
		if s.arg == "" {
			return fmt.Errorf("%s: section %q needs an argument", pos, s.kind)
		}
		return nil
	}
	switch s.kind {
	case "stdin":
		c.Stdin = content
	case "file", "want-file":
		if err := needArg(); err != nil {
			return err
		}
		if s.kind == "file" {
			c.Files = append(c.Files, File{s.arg, content})
		} else {
			c.WantFiles = append(c.WantFiles, File{s.arg, content})
		}
	case "dir", "no-file", "env":
		if err := needArg(); err != nil {
			return err
		}
		if err := noContent(); err != nil {
			return err
		}
		switch s.kind {
		case "dir":
			c.Dirs = append(c.Dirs, s.arg)
		case "no-file":
			c.NoFiles = append(c.NoFiles, s.arg)
		default:
			c.Env = append(c.Env, s.arg)
		}
	case "stdout", "stderr", "calls":
		e := Expect{Text: content, Set: true}
		switch s.arg {
		case "":
		case "~":
			e.Contains = true
		default:
			return fmt.Errorf("%s: unknown modifier %q (want ~)", pos, s.arg)
		}
		switch s.kind {
		case "stdout":
			c.Stdout = e
		case "stderr":
			c.Stderr = e
		default:
			c.Calls = e
		}
	case "exit":
		n, err := strconv.Atoi(s.arg)
		if err != nil {
			return fmt.Errorf("%s: bad exit status %q", pos, s.arg)
		}
		if err := noContent(); err != nil {
			return err
		}
		c.Exit = n
	case "tools":
		c.Tools = content
	case "not-gnu":
		if err := needArg(); err != nil {
			return err
		}
		if err := noContent(); err != nil {
			return err
		}
		c.NotGNU = s.arg
	default:
		return fmt.Errorf("%s: unknown section %q", pos, s.kind)
	}
	return nil
}
