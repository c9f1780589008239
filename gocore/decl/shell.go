package decl

import (
	"strings"
)

// The shell's declarations are what its tool applet takes: one block per
// tool, its usage line as `tool --help` gives it, then indented lines
// with the description, one line per parameter and, when the tool has an
// output schema, the shape of the JSON it prints:
//
//	tool get_weather --city STRING [--units c|f]
//	    The weather in a city.
//	    --city STRING  The city's name.
//	    --units c|f  Default: "c".
//	    Prints JSON: {temp: number, conditions: string}
//
// Required parameters come first, each group in the schema's order. A
// tool whose input is no object of flag-friendly members is called with
// --json '{...}'. The text is for reading, not for a shell parser: tool
// names and flags that need it are quoted as a shell would need them.

// shellLang names the shell's declarations (wire.LangShell).
const shellLang = "shell"

// maxShellType bounds the one-line type of a parameter or of the output.
const maxShellType = 240

// shell renders tools as their shell blocks, a blank line between two.
func (s *Set) shell(tools []*tool) string {
	var b strings.Builder
	for i, t := range tools {
		if i > 0 {
			b.WriteString("\n")
		}
		shellTool(&b, t)
	}
	return b.String()
}

func shellTool(b *strings.Builder, t *tool) {
	t.prepare()
	name := shellWord(t.Name)
	in := topOf(t.in.t)
	var props []*prop
	flags := in.kind == kObject
	if flags {
		for _, p := range in.props {
			if !flagName(p.name) {
				flags = false
				break
			}
		}
	}
	if flags {
		for _, p := range in.props {
			if p.required {
				props = append(props, p)
			}
		}
		for _, p := range in.props {
			if !p.required {
				props = append(props, p)
			}
		}
	}
	b.WriteString("tool " + name)
	if flags {
		for _, p := range props {
			arg := "--" + p.name + " " + shellMeta(p.t)
			if p.required {
				b.WriteString(" " + arg)
			} else {
				b.WriteString(" [" + arg + "]")
			}
		}
		if in.extra != nil && in.extra.kind != kNever {
			b.WriteString(" [--NAME VALUE]...")
		}
	} else {
		b.WriteString(" --json '{...}'")
	}
	b.WriteString("\n")
	const ind = "    "
	for _, l := range cleanLines(t.doc()) {
		if strings.TrimSpace(l) != "" {
			b.WriteString(ind + l + "\n")
		}
	}
	if flags {
		for _, p := range props {
			line := ind + "--" + p.name + " " + shellMeta(p.t)
			if d := firstLine(p.doc); d != "" {
				line += "  " + d
			}
			b.WriteString(line + "\n")
		}
	} else if in.kind != kUnknown {
		b.WriteString(ind + "--json: " + typeLine(in, maxShellType) + "\n")
	}
	if t.hasOut {
		b.WriteString(ind + "Prints JSON: " + typeLine(topOf(t.out.t), maxShellType) + "\n")
	}
}

// flagName says whether a member can be given as --name VALUE: the tool
// applet reads a flag up to "=", and "--json" is its own.
func flagName(n string) bool {
	if n == "" || n == "json" || strings.HasPrefix(n, "-") {
		return false
	}
	for _, r := range n {
		if r <= ' ' || r == '=' || r == '\'' || r == '"' || r == '\\' || r == 0x7f || r == 0x85 || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// shellMeta is a parameter's value as the usage line shows it: its
// literals when it is a few (c|f), else its type in capitals (a union of
// one type's values, or of a type and null, as that type).
func shellMeta(t *typ) string {
	t = topOf(t)
	switch t.kind {
	case kLiteral:
		return shellWord(literalText(t.lit))
	case kUnion:
		var lits []string
		base := ""
		for _, a := range t.alts {
			a = topOf(a)
			if a.kind == kNull || (a.kind == kLiteral && a.lit.kind == 'z') {
				continue
			}
			if a.kind == kLiteral {
				lits = append(lits, shellWord(literalText(a.lit)))
			}
			b := shellBase(a)
			if base != "" && b != base {
				return "VALUE"
			}
			base = b
		}
		if len(lits) > 0 && len(lits) <= 6 && len(lits) == countNonNull(t.alts) {
			return strings.Join(lits, "|")
		}
		if base == "" {
			return "VALUE"
		}
		return base
	}
	return shellBase(t)
}

// countNonNull is the number of alternatives that are not null.
func countNonNull(alts []*typ) int {
	n := 0
	for _, a := range alts {
		a = topOf(a)
		if a.kind != kNull && !(a.kind == kLiteral && a.lit.kind == 'z') {
			n++
		}
	}
	return n
}

// shellBase is a type's name in capitals, as tool --help shows it.
func shellBase(t *typ) string {
	switch t.kind {
	case kString:
		return "STRING"
	case kInteger:
		return "INTEGER"
	case kNumber:
		return "NUMBER"
	case kBoolean:
		return "BOOLEAN"
	case kArray, kTuple:
		return "ARRAY"
	case kObject:
		return "OBJECT"
	case kLiteral:
		switch t.lit.kind {
		case 's':
			return "STRING"
		case 'n':
			return "NUMBER"
		case 'b':
			return "BOOLEAN"
		}
	}
	return "VALUE"
}

// literalText is a literal as a flag's value is written: a string bare,
// anything else as JSON.
func literalText(v *value) string {
	if v.kind == 's' {
		return v.str
	}
	return tsLiteral(v)
}

// shellWord is s as one shell word: as it is when it needs no quoting,
// else in single quotes.
func shellWord(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:/+@,%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\'':
			b.WriteString(`'\''`)
		case r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029':
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// typeLine is a type on one line, TypeScript-like, cut at about max bytes
// ("..." for the rest).
func typeLine(t *typ, max int) string {
	var b strings.Builder
	writeOneLine(&b, t, max, 0)
	return b.String()
}

func writeOneLine(b *strings.Builder, t *typ, max, depth int) {
	if b.Len() >= max {
		if !strings.HasSuffix(b.String(), "...") {
			b.WriteString("...")
		}
		return
	}
	if depth > 6 {
		b.WriteString("...")
		return
	}
	switch t.kind {
	case kNamed:
		if t.named != nil && depth == 0 {
			writeOneLine(b, t.named.t, max, depth+1)
			return
		}
		b.WriteString("object")
	case kNever:
		b.WriteString("never")
	case kString:
		b.WriteString("string")
	case kNumber, kInteger:
		b.WriteString("number")
	case kBoolean:
		b.WriteString("boolean")
	case kNull:
		b.WriteString("null")
	case kLiteral:
		b.WriteString(tsLiteral(t.lit))
	case kArray:
		simple := t.elem.kind != kUnion && t.elem.kind != kAllOf
		if !simple {
			b.WriteString("(")
		}
		writeOneLine(b, t.elem, max, depth+1)
		if !simple {
			b.WriteString(")")
		}
		b.WriteString("[]")
	case kTuple:
		b.WriteString("[")
		for i, it := range t.items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeOneLine(b, it, max, depth+1)
		}
		if t.elem != nil {
			if len(t.items) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("...")
			writeOneLine(b, t.elem, max, depth+1)
			b.WriteString("[]")
		}
		b.WriteString("]")
	case kObject:
		if len(t.props) == 0 {
			b.WriteString("object")
			return
		}
		b.WriteString("{")
		for i, p := range t.props {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() >= max {
				b.WriteString("...")
				break
			}
			b.WriteString(jsPropName(p.name))
			if !p.required {
				b.WriteString("?")
			}
			b.WriteString(": ")
			writeOneLine(b, p.t, max, depth+1)
		}
		b.WriteString("}")
	case kUnion, kAllOf:
		sep := " | "
		if t.kind == kAllOf {
			sep = " & "
		}
		for i, a := range t.alts {
			if i > 0 {
				b.WriteString(sep)
			}
			writeOneLine(b, a, max, depth+1)
		}
	default:
		b.WriteString("unknown")
	}
}
