package decl

import (
	"strings"
)

// typeScript renders tools as a .d.ts block: a tool with a global is a
// declared function; the tools of a namespace are functions of one
// "declare namespace"; the others are overloads of callTool, at the end.
// Each tool's input type is "<Name>Input", its output type "<Name>Output"
// (unknown without an output schema), in the scope of its function.
func (s *Set) typeScript(tools []*tool) string {
	var b strings.Builder
	global := newNames(tsLibTypes)
	spaces := map[string][]*tool{}
	var order []string
	var rest []*tool
	for _, t := range tools {
		t.prepare()
		switch {
		case t.jsFn == "":
			rest = append(rest, t)
		case t.jsNS == "":
			order = append(order, "\x00"+t.Name)
		default:
			if spaces[t.jsNS] == nil {
				order = append(order, t.jsNS)
			}
			spaces[t.jsNS] = append(spaces[t.jsNS], t)
		}
	}
	for _, key := range order {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if strings.HasPrefix(key, "\x00") {
			t := s.byName[key[1:]]
			p := &tsPrinter{b: &b, scope: global}
			p.tool(t, "", "declare function ", t.jsFn)
			continue
		}
		b.WriteString("declare namespace " + key + " {\n")
		scope := newNames(tsLibTypes)
		for i, t := range spaces[key] {
			if i > 0 {
				b.WriteString("\n")
			}
			p := &tsPrinter{b: &b, scope: scope}
			p.tool(t, "  ", "function ", t.jsFn)
		}
		b.WriteString("}\n")
	}
	for _, t := range rest {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		p := &tsPrinter{b: &b, scope: global}
		p.tool(t, "", "declare function ", "callTool")
	}
	return b.String()
}

type tsPrinter struct {
	b     *strings.Builder
	scope *names
	names map[*named]string
}

// Precedence of a rendered type, to know where it needs parentheses.
const (
	precAtom = iota
	precIntersection
	precUnion
)

// tool writes one tool's types and function at indent ind; fn is the
// function's name, or "callTool" for an overload that takes the tool's
// registered name first.
func (p *tsPrinter) tool(t *tool, ind, decl, fn string) {
	p.names = map[*named]string{}
	base := pascal(t.Name)
	if t.jsFn != "" {
		base = pascal(t.jsFn)
	}
	if base == "" {
		base = "Tool"
	}
	inName := p.scope.unique(base + "Input")
	if t.in.t.kind == kNamed {
		p.names[t.in.t.named] = inName
	}
	p.namedTypes(t.in, base, ind)
	typeDoc := ""
	if t.in.t.kind == kNamed {
		typeDoc = t.in.t.named.doc
	}
	jsDoc(p.b, ind, typeDoc)
	inType := p.typ(topOf(t.in.t), ind)
	p.b.WriteString(ind + "type " + inName + " = " + inType + ";\n")
	outRef := "unknown"
	if t.hasOut {
		outName := p.scope.unique(base + "Output")
		if t.out.t.kind == kNamed {
			p.names[t.out.t.named] = outName
		}
		p.namedTypes(t.out, base, ind)
		p.b.WriteString(ind + "type " + outName + " = " + p.typ(topOf(t.out.t), ind) + ";\n")
		outRef = outName
	}
	jsDoc(p.b, ind, t.doc())
	arg := "input: " + inName
	if optionalInput(t.in.t) {
		arg = "input?: " + inName
	}
	if fn == "callTool" {
		arg = "name: " + quote(t.Name) + ", " + arg
	}
	p.b.WriteString(ind + decl + fn + "(" + arg + "): Promise<" + outRef + ">;\n")
}

// topOf is the type a top-level name stands for (its definition when it
// is a named type).
func topOf(t *typ) *typ {
	if t.kind == kNamed {
		return t.named.t
	}
	return t
}

// optionalInput says whether a call may leave its input out: when it is an
// object with no required member (or unknown).
func optionalInput(t *typ) bool {
	t = topOf(t)
	switch t.kind {
	case kUnknown:
		return true
	case kObject:
		for _, p := range t.props {
			if p.required {
				return false
			}
		}
		return true
	}
	return false
}

// namedTypes names and writes the named types of one schema.
func (p *tsPrinter) namedTypes(c *converted, base, ind string) {
	var fresh []*named
	for _, n := range c.named {
		if _, ok := p.names[n]; !ok { // the top type is named already
			p.names[n] = p.scope.unique(base + n.hint)
			fresh = append(fresh, n)
		}
	}
	for _, n := range fresh {
		jsDoc(p.b, ind, n.doc)
		p.b.WriteString(ind + "type " + p.names[n] + " = " + p.typ(n.t, ind) + ";\n")
	}
}

func (p *tsPrinter) typ(t *typ, ind string) string {
	s, _ := p.render(t, ind)
	return s
}

func (p *tsPrinter) render(t *typ, ind string) (string, int) {
	switch t.kind {
	case kNever:
		return "never", precAtom
	case kString:
		return "string", precAtom
	case kNumber, kInteger:
		return "number", precAtom
	case kBoolean:
		return "boolean", precAtom
	case kNull:
		return "null", precAtom
	case kLiteral:
		return tsLiteral(t.lit), precAtom
	case kNamed:
		if n, ok := p.names[t.named]; ok {
			return n, precAtom
		}
		return "unknown", precAtom
	case kArray:
		e, prec := p.render(t.elem, ind)
		if prec != precAtom {
			e = "(" + e + ")"
		}
		return e + "[]", precAtom
	case kTuple:
		parts := make([]string, 0, len(t.items)+1)
		for _, it := range t.items {
			parts = append(parts, p.typ(it, ind))
		}
		if t.elem != nil {
			e, prec := p.render(t.elem, ind)
			if prec != precAtom {
				e = "(" + e + ")"
			}
			parts = append(parts, "..."+e+"[]")
		}
		return "[" + strings.Join(parts, ", ") + "]", precAtom
	case kObject:
		return p.object(t, ind)
	case kUnion, kAllOf:
		sep, prec := " | ", precUnion
		if t.kind == kAllOf {
			sep, prec = " & ", precIntersection
		}
		seen := map[string]bool{}
		var parts []string
		for _, a := range t.alts {
			s, ap := p.render(a, ind)
			if ap >= prec && ap != precAtom {
				s = "(" + s + ")"
			}
			if !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
		if len(parts) == 1 {
			return parts[0], precAtom
		}
		return strings.Join(parts, sep), prec
	}
	return "unknown", precAtom
}

func (p *tsPrinter) object(t *typ, ind string) (string, int) {
	if len(t.props) == 0 {
		switch {
		case t.extra != nil:
			return "Record<string, " + p.typ(t.extra, ind) + ">", precAtom
		case t.closed:
			return "Record<string, never>", precAtom
		}
		return "Record<string, unknown>", precAtom
	}
	var b strings.Builder
	in := ind + "  "
	b.WriteString("{\n")
	for _, pr := range t.props {
		jsDoc(&b, in, pr.doc)
		opt := "?"
		if pr.required {
			opt = ""
		}
		b.WriteString(in + jsPropName(pr.name) + opt + ": " + p.typ(pr.t, in) + ";\n")
	}
	if t.extra != nil && t.extra.kind == kUnknown {
		b.WriteString(in + "[key: string]: unknown;\n")
	}
	b.WriteString(ind + "}")
	if t.extra != nil && t.extra.kind != kUnknown {
		// An index signature would have to admit every member's type too.
		return b.String() + " & Record<string, " + p.typ(t.extra, ind) + ">", precIntersection
	}
	return b.String(), precAtom
}

func tsLiteral(v *value) string {
	switch v.kind {
	case 's':
		return quote(v.str)
	case 'n':
		return v.str
	case 'b':
		if v.b {
			return "true"
		}
		return "false"
	}
	return "null"
}
