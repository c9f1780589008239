package shell

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Word expansion, as bash does it: brace expansion, tilde expansion,
// parameter and arithmetic expansion and command substitution (left to
// right), word splitting on $IFS, pathname expansion, quote removal.
// mvdan.cc/sh/v3/expand splits without keeping the empty fields that a
// non-blank IFS makes and expands "${empty[@]}" to one word, so the shell
// expands words itself; expand's Variable type still holds the values.

// quoting is the context a word part is expanded in.
type quoting int

const (
	unquoted quoting = iota
	dquoted          // inside "..."
	heredoc          // a here-document body or arithmetic text
)

// fpart is a piece of a field; quoted pieces are never split or globbed.
type fpart struct {
	s      string
	quoted bool
}

// expander builds the fields of one word.
type expander struct {
	r      *runner
	fields [][]fpart
	cur    []fpart
	// have: the current field exists even if empty (a quoted part or a
	// delimiter made it).
	have bool
	// split enables field splitting of unquoted expansions.
	split bool
	// ifs is $IFS when splitting.
	ifs string
	// wsDelim: the last split ended a field at IFS white space, so a
	// non-blank IFS character that follows belongs to the same delimiter.
	wsDelim bool
}

func (r *runner) newExpander(split bool) *expander {
	e := &expander{r: r, split: split}
	if split {
		vr := r.env.Get("IFS")
		if vr.IsSet() {
			e.ifs = vr.String()
		} else {
			e.ifs = " \t\n"
		}
	}
	return e
}

// add appends text to the current field.
func (e *expander) add(s string, quoted bool) {
	if quoted {
		e.have = true
	}
	if s == "" {
		return
	}
	e.have = true
	e.wsDelim = false
	e.cur = append(e.cur, fpart{s, quoted})
}

// endField closes the current field (if it exists).
func (e *expander) endField(force bool) {
	if e.have || force {
		e.fields = append(e.fields, e.cur)
	}
	e.cur, e.have = nil, false
}

func isIFSBlank(c rune) bool { return c == ' ' || c == '\t' || c == '\n' }

// addSplit appends the text of an unquoted expansion, splitting it on
// IFS as bash does: runs of IFS white space delimit fields and vanish at
// the edges; each other IFS character delimits a field even if it is
// empty (with the white space around it).
func (e *expander) addSplit(s string) {
	if !e.split || e.ifs == "" {
		e.add(s, false)
		return
	}
	start := -1
	flush := func(i int) {
		if start >= 0 {
			e.add(s[start:i], false)
			start = -1
		}
	}
	for i, c := range s {
		if !strings.ContainsRune(e.ifs, c) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		if isIFSBlank(c) {
			if e.have {
				e.endField(false)
				e.wsDelim = true
			}
			continue
		}
		if e.wsDelim {
			// " , ": the comma joins the white space before it.
			e.wsDelim = false
			continue
		}
		e.endField(true)
		e.wsDelim = false
	}
	flush(len(s))
}

// addList appends the elements of "$@" or ${a[@]}: quoted, each element
// is its own field (the first joins the text before, the last the text
// after); unquoted, each is split.
func (e *expander) addList(elems []string, q quoting) {
	for i, el := range elems {
		if i > 0 {
			if q != unquoted {
				e.endField(true)
			} else if e.have {
				e.endField(false)
			}
			e.wsDelim = false
		}
		if q != unquoted {
			e.add(el, true)
		} else {
			e.addSplit(el)
		}
	}
}

// parts expands the parts of a word in context q; first says the first
// part starts the word (where ~ expands).
func (e *expander) parts(parts []syntax.WordPart, q quoting, first bool) error {
	for i, p := range parts {
		if err := e.part(p, q, first && i == 0, i+1 < len(parts)); err != nil {
			return err
		}
	}
	return nil
}

func (e *expander) part(p syntax.WordPart, q quoting, first, more bool) error {
	r := e.r
	switch p := p.(type) {
	case *syntax.Lit:
		s := p.Value
		if q == unquoted && first && strings.HasPrefix(s, "~") && e.tilde(s, more) {
			return nil
		}
		e.lit(s, q)
	case *syntax.SglQuoted:
		s := p.Value
		if q != unquoted && !p.Dollar {
			// Inside double quotes ("${x:-'q'}") single quotes are text.
			e.add("'"+s+"'", true)
			return nil
		}
		if p.Dollar {
			s, _, _ = expand.Format(nil, s, nil)
			s, _, _ = strings.Cut(s, "\x00")
		}
		e.add(s, true)
	case *syntax.DblQuoted:
		// "${empty[@]}" and "$@" without parameters make no word; any
		// other double quotes make one, even if empty.
		if !onlyLists(p.Parts) {
			e.have = true
		}
		return e.parts(p.Parts, dquoted, false)
	case *syntax.ParamExp:
		return e.param(p, q)
	case *syntax.CmdSubst:
		var buf bytes.Buffer
		if err := r.cmdSubst(&buf, p); err != nil {
			return err
		}
		out := strings.TrimRight(strings.ReplaceAll(buf.String(), "\x00", ""), "\n")
		if q == unquoted {
			e.addSplit(out)
		} else {
			e.add(out, true)
		}
	case *syntax.ArithmExp:
		n, err := r.arithm(p.X)
		if err != nil {
			return err
		}
		s := fmt.Sprint(n)
		if q == unquoted {
			e.addSplit(s)
		} else {
			e.add(s, true)
		}
	case *syntax.ProcSubst:
		path, err := r.procSubst(p)
		if err != nil {
			return err
		}
		e.add(path, q != unquoted)
	case *syntax.ExtGlob:
		e.add(p.Op.String()+p.Pattern.Value+")", false)
	case *syntax.BraceExp:
		// Left over when brace expansion did not apply: literal text.
		e.add(braceText(p), q != unquoted)
	default:
		return fmt.Errorf("unsupported word part %T", p)
	}
	return nil
}

// lit adds literal text, removing the backslashes that quote in context q.
func (e *expander) lit(s string, q quoting) {
	if !strings.Contains(s, `\`) {
		e.add(s, q != unquoted)
		return
	}
	var plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			e.add(plain.String(), q != unquoted)
			plain.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			plain.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch q {
		case unquoted:
			flush()
			_, size := utf8.DecodeRuneInString(s[i+1:])
			if next != '\n' {
				e.add(s[i+1:i+1+size], true)
			}
			i += size
		default:
			special := "$`\\\n"
			if q == dquoted {
				special += `"`
			}
			if strings.IndexByte(special, next) >= 0 {
				if next != '\n' {
					plain.WriteByte(next)
				}
				i++
			} else {
				plain.WriteByte(c)
			}
		}
	}
	flush()
}

// tilde expands a leading ~, ~/..., ~+ or ~-, reporting whether it used
// s up; other ~user forms stay (the sandbox has no other users).
func (e *expander) tilde(s string, more bool) bool {
	name, tail, hasSlash := strings.Cut(s[1:], "/")
	if !hasSlash && more {
		// ~ followed by another part (~"x"): not a tilde prefix.
		return false
	}
	var dir string
	switch name {
	case "":
		dir = e.r.env.Get("HOME").String()
	case "+":
		dir = e.r.dir
	case "-":
		dir = e.r.env.Get("OLDPWD").String()
	default:
		return false
	}
	e.add(dir, true)
	if hasSlash {
		e.lit("/"+tail, unquoted)
	}
	return true
}

// onlyLists reports whether parts are all "$@"-like list expansions.
func onlyLists(parts []syntax.WordPart) bool {
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		pe, ok := p.(*syntax.ParamExp)
		if !ok || !isAtList(pe) {
			return false
		}
	}
	return true
}

// braceText prints a brace expression back as text.
func braceText(b *syntax.BraceExp) string {
	var sb strings.Builder
	sb.WriteByte('{')
	sep := ","
	if b.Sequence {
		sep = ".."
	}
	for i, el := range b.Elems {
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(el.Lit())
	}
	sb.WriteByte('}')
	return sb.String()
}

// isAssignWord reports whether a word starts NAME=, where bash also
// expands ~ after = and : (a=~ as an argument, export P=~/p).
func isAssignWord(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	name, _, ok := strings.Cut(lit.Value, "=")
	return ok && validName(name)
}

// assignTildeParts splits the literal text of an assignment value so
// that each ~ at its start or after an unquoted colon (and, for a NAME=
// argument, after the first =) starts a tildeLit, where tilde expansion
// applies up to the next / or :.
func assignTildeParts(parts []syntax.WordPart, argument bool) []syntax.WordPart {
	var out []syntax.WordPart
	changed := false
	seenEq := !argument
	for i, p := range parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			out = append(out, p)
			continue
		}
		s := lit.Value
		start := 0
		emit := func(end int, tilde bool) {
			if end > start || tilde {
				piece := syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[start:end]}
				out = append(out, &tildeLit{Lit: piece})
			}
			start = end
		}
		for j := 0; j < len(s); j++ {
			c := s[j]
			if c == '=' && !seenEq {
				seenEq = true
				if j+1 < len(s) && s[j+1] == '~' {
					emit(j+1, false)
					changed = true
				}
				continue
			}
			if c == '~' && seenEq && ((j == 0 && i == 0) || (j > 0 && s[j-1] == ':')) {
				emit(j, false)
				changed = true
			}
		}
		emit(len(s), false)
	}
	if !changed {
		return parts
	}
	return out
}

// fieldsOf expands one word (after brace expansion) into fields.
func (r *runner) fieldsOf(w *syntax.Word, out []string) ([]string, error) {
	e := r.newExpander(true)
	parts := w.Parts
	if isAssignWord(w) {
		parts = assignTildeParts(parts, true)
	}
	if err := e.tildeParts(parts); err != nil {
		return nil, err
	}
	e.endField(false)
	for _, f := range e.fields {
		if !r.opts.noglob {
			if pat, ok := globPattern(f); ok {
				matches, err := r.glob(pat)
				if err != nil {
					return nil, err
				}
				if len(matches) > 0 || r.opts.nullglob {
					out = append(out, matches...)
					continue
				}
			}
		}
		out = append(out, joinField(f))
	}
	return out, nil
}

// tildeParts expands parts, treating tildeLit pieces as word starts.
func (e *expander) tildeParts(parts []syntax.WordPart) error {
	for i, p := range parts {
		if tl, ok := p.(*tildeLit); ok {
			s := tl.Value
			if strings.HasPrefix(s, "~") {
				// In an assignment the prefix ends at / or :.
				end := strings.IndexAny(s, "/:")
				if end < 0 {
					end = len(s)
				}
				if e.tilde(s[:end], i+1 < len(parts) && end == len(s)) {
					e.lit(s[end:], unquoted)
					continue
				}
			}
			e.lit(s, unquoted)
			continue
		}
		if err := e.part(p, unquoted, i == 0, i+1 < len(parts)); err != nil {
			return err
		}
	}
	return nil
}

// tildeLit is a literal piece that may start with a tilde prefix.
type tildeLit struct{ syntax.Lit }

// joined ends the last field and returns the fields joined by spaces (a
// word expanded where no splitting happens). With quote, quoted parts pass
// through it, so they match themselves in a pattern or a regexp.
func (e *expander) joined(quote func(string) string) string {
	e.endField(false)
	var b strings.Builder
	for i, f := range e.fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		if quote == nil {
			b.WriteString(joinField(f))
			continue
		}
		for _, p := range f {
			if p.quoted {
				b.WriteString(quote(p.s))
			} else {
				b.WriteString(p.s)
			}
		}
	}
	return b.String()
}

func joinField(f []fpart) string {
	if len(f) == 1 {
		return f[0].s
	}
	var b strings.Builder
	for _, p := range f {
		b.WriteString(p.s)
	}
	return b.String()
}

// globPattern returns a field as a pattern when it has unquoted pattern
// characters.
func globPattern(f []fpart) (string, bool) {
	meta := false
	for _, p := range f {
		if !p.quoted && strings.ContainsAny(p.s, "*?[(") {
			meta = true
			break
		}
	}
	if !meta {
		return "", false
	}
	var b strings.Builder
	for _, p := range f {
		if p.quoted {
			b.WriteString(pattern.QuoteMeta(p.s, pattern.ExtendedOperators))
		} else {
			b.WriteString(p.s)
		}
	}
	pat := b.String()
	return pat, hasGlobMeta(pat)
}

// fields expands words as command arguments.
func (r *runner) fields(words ...*syntax.Word) ([]string, error) {
	r.substRan = false
	var out []string
	for _, w := range words {
		if !hasBraces(w) {
			var err error
			if out, err = r.fieldsOf(w, out); err != nil {
				return nil, wrapExpand(err)
			}
			continue
		}
		c := *w
		c.Parts = append([]syntax.WordPart(nil), w.Parts...)
		if !syntax.SplitBraces(&c) {
			var err error
			if out, err = r.fieldsOf(w, out); err != nil {
				return nil, wrapExpand(err)
			}
			continue
		}
		for _, bw := range expand.Braces(&c) {
			var err error
			if out, err = r.fieldsOf(bw, out); err != nil {
				return nil, wrapExpand(err)
			}
		}
	}
	return out, nil
}

func hasBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, "{") {
				return true
			}
		case *syntax.BraceExp:
			return true
		}
	}
	return false
}

// literal expands one word without splitting or globbing (assignments,
// redirection targets, case words, [[ ]] operands).
func (r *runner) literal(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, `\~`) {
			return lit.Value, nil
		}
	}
	e := r.newExpander(false)
	if err := e.parts(w.Parts, unquoted, true); err != nil {
		return "", wrapExpand(err)
	}
	return e.joined(nil), nil
}

// assignValue expands the value of NAME=VALUE: no splitting or globbing,
// and ~ expands at the start and after each unquoted colon.
func (r *runner) assignValue(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	e := r.newExpander(false)
	if err := e.tildeParts(assignTildeParts(w.Parts, false)); err != nil {
		return "", wrapExpand(err)
	}
	return e.joined(nil), nil
}

// document expands a here-document body (or arithmetic text).
func (r *runner) document(w *syntax.Word) (string, error) {
	e := r.newExpander(false)
	if err := e.parts(w.Parts, heredoc, false); err != nil {
		return "", wrapExpand(err)
	}
	return e.joined(nil), nil
}

// pattern expands a word as a shell pattern: quoted text matches itself,
// unquoted expansions keep their pattern characters.
func (r *runner) pattern(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	e := r.newExpander(false)
	if err := e.parts(w.Parts, unquoted, false); err != nil {
		return "", wrapExpand(err)
	}
	return e.joined(func(s string) string { return pattern.QuoteMeta(s, pattern.ExtendedOperators) }), nil
}

// regexWord expands the right side of =~: quoted parts match literally.
func (r *runner) regexWord(w *syntax.Word) (string, error) {
	e := r.newExpander(false)
	if err := e.parts(w.Parts, unquoted, false); err != nil {
		return "", wrapExpand(err)
	}
	return e.joined(regexpQuote), nil
}
