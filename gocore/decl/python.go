package decl

import (
	"sort"
	"strings"
)

// python renders tools as a .pyi block: the typing import, the TypedDicts
// and type aliases the signatures use, then the tools: a tool without a
// dot is a module-level "async def"; dotted tools are static methods of
// nested classes, one class per namespace level ("class github:" holds
// "async def create_issue"); the others are overloads of call_tool.
func (s *Set) python(tools []*tool) string {
	p := &pyPrinter{scope: newNames(pyTyping, pyBuiltins, pyKeywords, pyHelpers), used: map[string]bool{},
		objNames: map[*typ]string{}, namedNames: map[*named]string{}}
	root := &pyNode{}
	var rest []*tool
	for _, t := range tools {
		t.prepare()
		if t.pyPath == nil {
			rest = append(rest, t)
			continue
		}
		p.scope.taken[t.pyPath[0]] = true
		n := root
		for _, part := range t.pyPath {
			n = n.child(part)
		}
		n.tool = t
	}
	var body strings.Builder
	for _, n := range root.kids {
		if body.Len() > 0 {
			body.WriteString("\n")
		}
		p.node(&body, n, "")
	}
	if len(rest) > 0 {
		p.used["overload"] = true
		p.used["Any"] = true
		for _, t := range rest {
			if body.Len() > 0 {
				body.WriteString("\n")
			}
			body.WriteString("@overload\n")
			p.function(&body, t, "", "call_tool", true)
		}
		body.WriteString("\n@overload\nasync def call_tool(name: str, params: dict[str, Any] | None = None, /, **kwargs: Any) -> Any: ...\n")
	}
	var out strings.Builder
	if len(p.used) > 0 {
		var used []string
		for k := range p.used {
			used = append(used, k)
		}
		sort.Strings(used)
		out.WriteString("from typing import " + strings.Join(used, ", ") + "\n\n")
	}
	if p.defs.Len() > 0 {
		out.WriteString(p.defs.String())
		out.WriteString("\n")
	}
	out.WriteString(body.String())
	return out.String()
}

// pyNode is one level of the Python namespaces: a tool, or a class of
// tools, in the order the tools came.
type pyNode struct {
	name string
	tool *tool
	kids []*pyNode
}

func (n *pyNode) child(name string) *pyNode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	k := &pyNode{name: name}
	n.kids = append(n.kids, k)
	return k
}

type pyPrinter struct {
	scope      *names
	used       map[string]bool
	defs       strings.Builder
	objNames   map[*typ]string
	namedNames map[*named]string
	base       string // the type-name prefix of the tool being written
}

func (p *pyPrinter) node(b *strings.Builder, n *pyNode, ind string) {
	if n.tool != nil {
		name := n.name
		if ind != "" {
			b.WriteString(ind + "@staticmethod\n")
		}
		p.function(b, n.tool, ind, name, false)
		return
	}
	b.WriteString(ind + "class " + n.name + ":\n")
	for i, k := range n.kids {
		if i > 0 {
			b.WriteString("\n")
		}
		p.node(b, k, ind+"    ")
	}
}

// function writes one tool's "async def" at indent ind, named name; for
// call_tool its first parameter is the tool's registered name.
func (p *pyPrinter) function(b *strings.Builder, t *tool, ind, name string, callTool bool) {
	base := pascal(strings.Join(t.pyPath, "_"))
	if t.pyPath == nil {
		base = pascal(t.Name)
	}
	if base == "" {
		base = "Tool"
	}
	p.base = base
	in := topOf(t.in.t)
	var params []string
	var args []string // the docstring's Args lines
	keywords := !callTool && in.kind == kObject
	if keywords {
		for _, pr := range in.props {
			if !pyIdent(pr.name) {
				keywords = false
			}
		}
	}
	if callTool {
		p.used["Literal"] = true
		params = append(params, "name: Literal["+quote(t.Name)+"]")
	}
	switch {
	case keywords:
		var req, opt []string
		for _, pr := range in.props {
			ty := p.typ(pr.t)
			if pr.required {
				req = append(req, pr.name+": "+ty)
			} else {
				def := "..."
				if pr.def != nil && fits(pr.t, pr.def, 0) {
					def = pyLiteral(pr.def)
				}
				opt = append(opt, pr.name+": "+ty+" = "+def)
			}
			if d := oneLine(pr.doc); d != "" {
				args = append(args, pr.name+": "+d)
			}
		}
		if len(req)+len(opt) > 0 {
			params = append(append(append(params, "*"), req...), opt...)
		}
		if in.extra != nil {
			rest := "kwargs"
			for hasProp(in, rest) {
				rest += "_"
			}
			params = append(params, "**"+rest+": "+p.typ(in.extra))
		}
	case in.kind == kObject && len(in.props) == 0 && in.extra == nil && !callTool:
	case in.kind == kUnknown && !callTool:
		p.used["Any"] = true
		params = append(params, "**kwargs: Any")
	default:
		param := "params: " + p.typ(t.in.t)
		if optionalInput(in) {
			param += " = ..."
		}
		params = append(params, param, "/")
	}
	ret := "Any"
	if t.hasOut {
		ret = p.typ(t.out.t)
	} else {
		p.used["Any"] = true
	}
	sig := ind + "async def " + name + "(" + strings.Join(params, ", ") + ") -> " + ret + ":"
	if len(sig) > 100 && len(params) > 0 {
		sig = ind + "async def " + name + "(\n" + ind + "    " + strings.Join(params, ",\n"+ind+"    ") + ",\n" + ind + ") -> " + ret + ":"
	}
	doc := t.doc()
	if len(args) > 0 {
		doc = strings.TrimSpace(doc + "\n\nArgs:\n    " + strings.Join(args, "\n    "))
	}
	if strings.TrimSpace(doc) == "" {
		b.WriteString(sig + " ...\n")
		return
	}
	b.WriteString(sig + "\n")
	pyDoc(b, ind+"    ", doc)
}

// typ is the Python type of t. An object with members is a TypedDict,
// named for where it is in the tool's schema (p.base + its hint).
func (p *pyPrinter) typ(t *typ) string {
	switch t.kind {
	case kNever:
		p.used["Never"] = true
		return "Never"
	case kString:
		return "str"
	case kNumber:
		return "float"
	case kInteger:
		return "int"
	case kBoolean:
		return "bool"
	case kNull:
		return "None"
	case kLiteral:
		if lit, ok := pyLiteralType(t.lit); ok {
			p.used["Literal"] = true
			return "Literal[" + lit + "]"
		}
		return pyScalarType(t.lit)
	case kArray:
		return "list[" + p.typ(t.elem) + "]"
	case kTuple:
		alts := append([]*typ{}, t.items...)
		if t.elem != nil {
			alts = append(alts, t.elem)
		}
		return "list[" + p.typ(union(alts)) + "]"
	case kObject:
		if len(t.props) == 0 {
			switch {
			case t.extra != nil:
				return "dict[str, " + p.typ(t.extra) + "]"
			case t.closed:
				p.used["Never"] = true
				return "dict[str, Never]"
			}
			p.used["Any"] = true
			return "dict[str, Any]"
		}
		if n := p.objNames[t]; n != "" {
			return n
		}
		p.objNames[t] = p.scope.unique(p.base + t.hint)
		p.typedDict(t, p.objNames[t], "")
		return p.objNames[t]
	case kNamed:
		n := t.named
		if name, ok := p.namedNames[n]; ok {
			return name
		}
		name := p.scope.unique(p.base + n.hint)
		p.namedNames[n] = name
		if n.t.kind == kObject && len(n.t.props) > 0 {
			p.objNames[n.t] = name
			p.typedDict(n.t, name, n.doc)
		} else {
			expr := p.typ(n.t)
			p.addDef("type " + name + " = " + expr + "\n")
		}
		return name
	case kUnion:
		return p.union(t.alts)
	case kAllOf:
		// Python has no intersection type: the first part stands for all.
		return p.typ(t.alts[0])
	}
	p.used["Any"] = true
	return "Any"
}

// union writes a union: its literals in one Literal[...], None last.
func (p *pyPrinter) union(alts []*typ) string {
	var lits, parts []string
	seen := map[string]bool{}
	none := false
	for _, a := range alts {
		if a.kind == kLiteral || a.kind == kNull {
			if a.kind == kNull || a.lit.kind == 'z' {
				none = true
				continue
			}
			if lit, ok := pyLiteralType(a.lit); ok {
				if !seen["L"+lit] {
					seen["L"+lit] = true
					lits = append(lits, lit)
				}
				continue
			}
		}
		s := p.typ(a)
		if s == "Any" {
			return "Any"
		}
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	if len(lits) > 0 {
		p.used["Literal"] = true
		parts = append([]string{"Literal[" + strings.Join(lits, ", ") + "]"}, parts...)
	}
	if none {
		parts = append(parts, "None")
	}
	return strings.Join(parts, " | ")
}

// typedDict writes the TypedDict name of object t: in the class syntax
// when every key is an identifier, else in the functional syntax.
func (p *pyPrinter) typedDict(t *typ, name, doc string) {
	p.used["TypedDict"] = true
	fields := make([]string, len(t.props))
	classSyntax := true
	for i, pr := range t.props {
		ty := p.typ(pr.t)
		if !pr.required {
			p.used["NotRequired"] = true
			ty = "NotRequired[" + ty + "]"
		}
		fields[i] = ty
		if !pyIdent(pr.name) {
			classSyntax = false
		}
	}
	var b strings.Builder
	if classSyntax {
		b.WriteString("class " + name + "(TypedDict):\n")
		pyDoc(&b, "    ", doc)
		for i, pr := range t.props {
			b.WriteString("    " + pr.name + ": " + fields[i] + "\n")
			pyDoc(&b, "    ", pr.doc)
		}
	} else {
		if d := oneLine(doc); d != "" {
			b.WriteString("# " + d + "\n")
		}
		b.WriteString(name + " = TypedDict(" + quote(name) + ", {\n")
		for i, pr := range t.props {
			if pr.name == "" {
				// Python's TypedDict cannot have a key "".
				b.WriteString("    # a member named \"\" is left out: a TypedDict cannot name it\n")
				continue
			}
			b.WriteString("    " + quote(pr.name) + ": " + fields[i] + ",")
			if d := oneLine(pr.doc); d != "" {
				b.WriteString("  # " + d)
			}
			b.WriteString("\n")
		}
		b.WriteString("})\n")
	}
	p.addDef(b.String())
}

func (p *pyPrinter) addDef(text string) {
	if p.defs.Len() > 0 {
		p.defs.WriteString("\n")
	}
	p.defs.WriteString(text)
}

func hasProp(t *typ, name string) bool {
	for _, p := range t.props {
		if p.name == name {
			return true
		}
	}
	return false
}

// integral says whether a JSON number is written as an integer.
func integral(n string) bool { return !strings.ContainsAny(n, ".eE") }

// pyLiteralType is a scalar as an argument of Literal[...]; false for the
// kinds Literal cannot hold (floats, null).
func pyLiteralType(v *value) (string, bool) {
	switch v.kind {
	case 's':
		return quote(v.str), true
	case 'n':
		return v.str, integral(v.str)
	case 'b':
		if v.b {
			return "True", true
		}
		return "False", true
	}
	return "", false
}

func pyScalarType(v *value) string {
	switch v.kind {
	case 's':
		return "str"
	case 'n':
		return "float"
	case 'b':
		return "bool"
	}
	return "None"
}

// pyLiteral is a scalar as a Python value.
func pyLiteral(v *value) string {
	switch v.kind {
	case 's':
		return quote(v.str)
	case 'n':
		return v.str
	case 'b':
		if v.b {
			return "True"
		}
		return "False"
	}
	return "None"
}

// fits says whether the scalar v is a value of t, so that it can be a
// parameter's default without the stub contradicting itself.
func fits(t *typ, v *value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch t.kind {
	case kUnknown:
		return true
	case kString:
		return v.kind == 's'
	case kNumber:
		return v.kind == 'n'
	case kInteger:
		return v.kind == 'n' && integral(v.str)
	case kBoolean:
		return v.kind == 'b'
	case kNull:
		return v.kind == 'z'
	case kLiteral:
		if t.lit.kind == 'n' && !integral(t.lit.str) {
			return v.kind == 'n'
		}
		return t.lit.kind == v.kind && t.lit.str == v.str && t.lit.b == v.b
	case kUnion:
		for _, a := range t.alts {
			if fits(a, v, depth+1) {
				return true
			}
		}
	case kNamed:
		return fits(t.named.t, v, depth+1)
	}
	return false
}
