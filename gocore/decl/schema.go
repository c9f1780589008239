package decl

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// kind is what a type of the intermediate form is; both printers render
// the same form, so TypeScript and Python agree on every schema.
type kind uint8

const (
	kUnknown kind = iota // any JSON value
	kNever               // no value (the schema false)
	kString
	kNumber
	kInteger
	kBoolean
	kNull
	kLiteral // lit: one string, number, boolean or null
	kArray   // elem
	kTuple   // items, then elem for the rest (nil: nothing more)
	kObject  // props; extra for other members (nil: not shown)
	kUnion   // alts
	kAllOf   // alts, all at once (an intersection that could not be merged)
	kNamed   // named: a type with a name of its own (a recursive $ref)
)

type typ struct {
	kind   kind
	lit    *value
	elem   *typ
	items  []*typ
	props  []*prop
	extra  *typ
	closed bool // additionalProperties: false
	alts   []*typ
	named  *named
	hint   string // the name an object's type gets where it needs one (Python)
}

type prop struct {
	name     string
	t        *typ
	required bool
	doc      string
	def      *value // the default when it is a JSON scalar
}

// named is a type declared under a name of its own: a $ref target that
// refers back to itself, directly or not.
type named struct {
	hint string
	t    *typ
	doc  string
}

var (
	tUnknown = &typ{kind: kUnknown}
	tNever   = &typ{kind: kNever}
)

// Limits of one schema's conversion; beyond them the rest renders as
// unknown, with a note.
const (
	maxDepth = 32
	maxNodes = 4096
)

// converter turns one schema (a tool's input or output schema) into the
// intermediate form.
type converter struct {
	root      *value
	rootNamed *named
	recursive map[*value]*named
	nodes     int
	notes     []string
	noted     map[string]bool
}

// converted is one schema in the intermediate form.
type converted struct {
	t     *typ
	named []*named // in the order they were first referred to
	notes []string
}

// convertSchema converts the schema text raw (empty: none, unknown); hint
// names its top type ("Input", "Output").
func convertSchema(raw string, hint string) *converted {
	c := &converter{recursive: map[*value]*named{}, noted: map[string]bool{}}
	out := &converted{}
	if strings.TrimSpace(raw) == "" {
		out.t = tUnknown
		return out
	}
	root, err := parseJSON(raw)
	if err != nil {
		out.t = tUnknown
		out.notes = []string{"the schema could not be read (" + err.Error() + "), so its type is unknown"}
		return out
	}
	c.root = root
	c.findRecursion()
	for target, n := range c.recursive {
		if target == root {
			n.hint = hint
			c.rootNamed = n
		}
	}
	out.t = c.convert(root, hint, 0)
	if c.rootNamed != nil {
		c.rootNamed.t = out.t
		out.t = &typ{kind: kNamed, named: c.rootNamed}
	}
	c.breakAliasCycles()
	out.named = c.order(out.t)
	out.notes = c.notes
	return out
}

func (c *converter) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !c.noted[s] && len(c.notes) < 8 {
		c.noted[s] = true
		c.notes = append(c.notes, s)
	}
}

// order lists the named types other than the top one, in a stable order:
// the order their targets appear in a walk of the schema.
func (c *converter) order(top *typ) []*named {
	var list []*named
	seen := map[*named]bool{}
	var walk func(t *typ, depth int)
	walk = func(t *typ, depth int) {
		if t == nil || depth > 4*maxDepth {
			return
		}
		switch t.kind {
		case kNamed:
			if !seen[t.named] {
				seen[t.named] = true
				if t.named != c.rootNamed {
					list = append(list, t.named)
				}
				walk(t.named.t, depth+1)
			}
		case kArray:
			walk(t.elem, depth+1)
		case kTuple:
			for _, it := range t.items {
				walk(it, depth+1)
			}
			walk(t.elem, depth+1)
		case kObject:
			for _, p := range t.props {
				walk(p.t, depth+1)
			}
			walk(t.extra, depth+1)
		case kUnion, kAllOf:
			for _, a := range t.alts {
				walk(a, depth+1)
			}
		}
	}
	walk(top, 0)
	return list
}

// breakAliasCycles removes the references of a named type to itself that
// no object or array stands between ({"anyOf": [{"$ref": "#"}, ...]}, a
// $ref to a $ref to itself): neither language accepts a type alias that
// is its own member. Dropping such a member from a union leaves the same
// set of values; a type that is nothing but such references is unknown.
func (c *converter) breakAliasCycles() {
	var all []*named
	for _, n := range c.recursive {
		if n.t != nil {
			all = append(all, n)
		}
	}
	// direct[n] are the named types n's type is made of without an object
	// or array between them.
	direct := map[*named][]*named{}
	for _, n := range all {
		var list []*named
		var walk func(t *typ)
		walk = func(t *typ) {
			switch t.kind {
			case kNamed:
				list = append(list, t.named)
			case kUnion, kAllOf:
				for _, a := range t.alts {
					walk(a)
				}
			}
		}
		walk(n.t)
		direct[n] = list
	}
	reaches := func(from, to *named) bool {
		seen := map[*named]bool{}
		stack := []*named{from}
		for len(stack) > 0 {
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if m == to {
				return true
			}
			if seen[m] {
				continue
			}
			seen[m] = true
			stack = append(stack, direct[m]...)
		}
		return false
	}
	for _, n := range all {
		if !reaches(n, n) && !containsSelf(direct[n], n) {
			continue
		}
		var strip func(t *typ) *typ
		strip = func(t *typ) *typ {
			switch t.kind {
			case kNamed:
				if t.named == n || reaches(t.named, n) {
					return nil
				}
			case kUnion, kAllOf:
				var keep []*typ
				for _, a := range t.alts {
					if s := strip(a); s != nil {
						keep = append(keep, s)
					}
				}
				switch {
				case len(keep) == 0:
					return nil
				case t.kind == kUnion:
					return union(keep)
				case len(keep) == 1:
					return keep[0]
				}
				return &typ{kind: kAllOf, alts: keep}
			}
			return t
		}
		if n.t = strip(n.t); n.t == nil {
			c.note("a $ref refers to itself without saying what it holds, so its type is unknown")
			n.t = tUnknown
		}
	}
}

func containsSelf(list []*named, n *named) bool {
	for _, m := range list {
		if m == n {
			return true
		}
	}
	return false
}

// subschemas calls f for each subschema of v the converter reads.
func subschemas(v *value, f func(*value)) {
	if !v.isObject() {
		return
	}
	for _, k := range []string{"properties", "patternProperties"} {
		if m := v.get(k); m.isObject() {
			for _, s := range m.vals {
				f(s)
			}
		}
	}
	for _, k := range []string{"additionalProperties", "additionalItems", "items"} {
		if s := v.get(k); s != nil {
			if s.kind == 'a' {
				for _, it := range s.items {
					f(it)
				}
			} else {
				f(s)
			}
		}
	}
	for _, k := range []string{"prefixItems", "oneOf", "anyOf", "allOf"} {
		if a := v.get(k); a != nil && a.kind == 'a' {
			for _, s := range a.items {
				f(s)
			}
		}
	}
}

// findRecursion marks the $ref targets that must be named types: a depth
// first walk that follows refs marks the target of every ref back to a
// target still being walked. Removing those back edges leaves no cycle,
// so inlining every other target ends.
func (c *converter) findRecursion() {
	const (
		walking = 1
		done    = 2
	)
	state := map[*value]int{c.root: walking}
	steps := 0
	var walk func(v *value, depth int)
	walk = func(v *value, depth int) {
		steps++
		if depth > 4*maxDepth || steps > 16*maxNodes || !v.isObject() {
			return
		}
		if ref := v.get("$ref"); ref != nil && ref.kind == 's' {
			target, ok := c.resolve(ref.str)
			if !ok {
				return
			}
			switch state[target] {
			case walking:
				if c.recursive[target] == nil {
					c.recursive[target] = &named{hint: refHint(ref.str)}
				}
			case 0:
				state[target] = walking
				walk(target, depth+1)
				state[target] = done
			}
			return
		}
		subschemas(v, func(s *value) { walk(s, depth+1) })
	}
	walk(c.root, 0)
}

// refHint is a type name for a ref's target: its last pointer segment.
func refHint(ref string) string {
	i := strings.LastIndexByte(ref, '/')
	h := pascal(ref[i+1:])
	if h == "" {
		return "Ref"
	}
	return h
}

// resolve follows a local ref ("#", "#/$defs/Name", any JSON pointer into
// the schema). Other refs (URLs, anchors, ids) are not followed.
func (c *converter) resolve(ref string) (*value, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, false
	}
	v := c.root
	if frag == "" {
		return v, true
	}
	if frag[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case v.isObject():
			v = v.get(tok)
		case v != nil && v.kind == 'a':
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.items) {
				return nil, false
			}
			v = v.items[i]
		default:
			return nil, false
		}
		if v == nil {
			return nil, false
		}
	}
	if v.kind != 'o' && v.kind != 'b' {
		return nil, false
	}
	return v, true
}

// convert is the type of schema v; hint names it if it needs a name.
func (c *converter) convert(v *value, hint string, depth int) *typ {
	c.nodes++
	if c.nodes > maxNodes {
		c.note("the schema has more than %d parts; the rest is typed as unknown", maxNodes)
		return tUnknown
	}
	if depth > maxDepth {
		c.note("the schema nests deeper than %d levels; deeper parts are typed as unknown", maxDepth)
		return tUnknown
	}
	if v == nil {
		return tUnknown
	}
	if v.kind == 'b' {
		if v.b {
			return tUnknown
		}
		return tNever
	}
	if v.kind != 'o' {
		return tUnknown
	}
	if ref := v.get("$ref"); ref != nil && ref.kind == 's' {
		target, ok := c.resolve(ref.str)
		if !ok {
			c.note("$ref %s could not be followed, so its type is unknown", quote(ref.str))
			return tUnknown
		}
		if n := c.recursive[target]; n != nil {
			if n.t == nil && n != c.rootNamed {
				n.t = tUnknown // while it converts, a ref back to it is that name
				n.doc = docOf(target)
				n.t = c.convert(target, n.hint, depth+1)
			}
			return &typ{kind: kNamed, named: n}
		}
		return c.convert(target, hint, depth+1)
	}
	var parts []*typ
	if base := c.base(v, hint, depth); base != nil {
		parts = append(parts, base)
	}
	if all := v.get("allOf"); all != nil && all.kind == 'a' {
		for i, s := range all.items {
			if t := c.convert(s, altHint(hint, s, i, len(all.items)), depth+1); t.kind != kUnknown {
				parts = append(parts, t)
			}
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts := v.get(k)
		if alts == nil || alts.kind != 'a' {
			continue
		}
		var ts []*typ
		for i, s := range alts.items {
			if !typed(s) {
				continue
			}
			ts = append(ts, c.convert(s, altHint(hint, s, i, len(alts.items)), depth+1))
		}
		if len(ts) > 0 {
			parts = append(parts, union(ts))
		}
	}
	if len(parts) == 0 {
		return tUnknown
	}
	t := intersect(parts)
	if t.kind == kObject {
		t.hint = hint // a merge of parts is named for where it is, not for a part
	}
	if nb := v.get("nullable"); nb != nil && nb.kind == 'b' && nb.b {
		t = union([]*typ{t, {kind: kNull}})
	}
	return t
}

// typed says whether schema v says anything about a value's type (an
// alternative of oneOf that only lists required members does not).
func typed(v *value) bool {
	if v == nil || v.kind == 'b' {
		return v != nil
	}
	for _, k := range []string{"type", "enum", "const", "$ref", "properties", "items", "prefixItems",
		"additionalProperties", "patternProperties", "oneOf", "anyOf", "allOf"} {
		if v.get(k) != nil {
			return true
		}
	}
	return false
}

// altHint names an alternative of a union: by its title, by the constant
// of a discriminating property ("type": {"const": "card"} → Card), or by
// its position.
func altHint(hint string, s *value, i, n int) string {
	if n == 1 {
		return hint
	}
	if t := pascal(s.get("title").text()); t != "" {
		return hint + t
	}
	if props := s.get("properties"); props.isObject() {
		for _, p := range props.vals {
			if k := p.get("const"); k != nil && k.kind == 's' && pascal(k.str) != "" {
				return hint + pascal(k.str)
			}
			if e := p.get("enum"); e != nil && e.kind == 'a' && len(e.items) == 1 && pascal(e.items[0].text()) != "" {
				return hint + pascal(e.items[0].text())
			}
		}
	}
	return hint + "Option" + strconv.Itoa(i+1)
}

// base is the type that v's own keywords (type, enum, const, properties,
// items) give, nil when they give none.
func (c *converter) base(v *value, hint string, depth int) *typ {
	if k := v.get("const"); k != nil {
		if scalar(k) {
			return &typ{kind: kLiteral, lit: k}
		}
	}
	if e := v.get("enum"); e != nil && e.kind == 'a' && len(e.items) > 0 {
		lits := make([]*typ, 0, len(e.items))
		ok := true
		for _, it := range e.items {
			if !scalar(it) {
				ok = false
				break
			}
			lits = append(lits, &typ{kind: kLiteral, lit: it})
		}
		if ok {
			return union(lits)
		}
	}
	var names []string
	switch tv := v.get("type"); {
	case tv == nil:
	case tv.kind == 's':
		names = []string{tv.str}
	case tv.kind == 'a':
		for _, it := range tv.items {
			if it.kind == 's' {
				names = append(names, it.str)
			}
		}
	}
	if names == nil {
		switch {
		case v.get("properties") != nil || v.get("additionalProperties") != nil || v.get("patternProperties") != nil:
			names = []string{"object"}
		case v.get("items") != nil || v.get("prefixItems") != nil:
			names = []string{"array"}
		default:
			return nil
		}
	}
	var ts []*typ
	for _, n := range names {
		switch n {
		case "string":
			ts = append(ts, &typ{kind: kString})
		case "number":
			ts = append(ts, &typ{kind: kNumber})
		case "integer":
			ts = append(ts, &typ{kind: kInteger})
		case "boolean":
			ts = append(ts, &typ{kind: kBoolean})
		case "null":
			ts = append(ts, &typ{kind: kNull})
		case "array":
			ts = append(ts, c.array(v, hint, depth))
		case "object":
			ts = append(ts, c.object(v, hint, depth))
		default:
			c.note("type %s is no JSON Schema type, so it is typed as unknown", quote(n))
			return tUnknown
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return union(ts)
}

func scalar(v *value) bool {
	switch v.kind {
	case 's', 'b', 'z':
		return true
	case 'n':
		f, err := strconv.ParseFloat(v.str, 64)
		return err == nil && !math.IsInf(f, 0)
	}
	return false
}

func (c *converter) array(v *value, hint string, depth int) *typ {
	item := hint + "Item"
	if pre := v.get("prefixItems"); pre != nil && pre.kind == 'a' {
		t := &typ{kind: kTuple}
		for _, s := range pre.items {
			t.items = append(t.items, c.convert(s, item, depth+1))
		}
		t.elem = c.rest(v.get("items"), item, depth)
		return t
	}
	items := v.get("items")
	if items != nil && items.kind == 'a' {
		t := &typ{kind: kTuple}
		for _, s := range items.items {
			t.items = append(t.items, c.convert(s, item, depth+1))
		}
		t.elem = c.rest(v.get("additionalItems"), item, depth)
		return t
	}
	return &typ{kind: kArray, elem: c.convert(items, item, depth+1)}
}

// rest is the type of a tuple's further items; nil when there are none.
func (c *converter) rest(s *value, hint string, depth int) *typ {
	if s != nil && s.kind == 'b' && !s.b {
		return nil
	}
	return c.convert(s, hint, depth+1)
}

func (c *converter) object(v *value, hint string, depth int) *typ {
	t := &typ{kind: kObject, hint: hint}
	required := map[string]bool{}
	if r := v.get("required"); r != nil && r.kind == 'a' {
		for _, it := range r.items {
			if it.kind == 's' {
				required[it.str] = true
			}
		}
	}
	if props := v.get("properties"); props.isObject() {
		seen := map[string]int{}
		for i, name := range props.keys {
			s := props.vals[i]
			p := &prop{name: name, required: required[name], doc: docOf(c.described(s))}
			p.t = c.convert(s, hint+pascal(name), depth+1)
			if d := c.described(s).get("default"); d != nil && scalar(d) {
				p.def = d
			}
			if j, dup := seen[name]; dup {
				t.props[j] = p // a repeated key: the last one counts, as in JSON.parse
				continue
			}
			seen[name] = len(t.props)
			t.props = append(t.props, p)
		}
	}
	var extras []*typ
	if pp := v.get("patternProperties"); pp.isObject() {
		for _, s := range pp.vals {
			extras = append(extras, c.convert(s, hint+"Value", depth+1))
		}
	}
	switch ap := v.get("additionalProperties"); {
	case ap == nil:
	case ap.kind == 'b' && !ap.b:
		t.closed = true
	default:
		extras = append(extras, c.convert(ap, hint+"Value", depth+1))
	}
	if len(extras) > 0 {
		t.extra = union(extras)
	}
	return t
}

// described is the schema whose description a property shows: itself, or
// the target of its $ref when it has no description of its own.
func (c *converter) described(s *value) *value {
	if !s.isObject() || s.get("description") != nil {
		return s
	}
	if ref := s.get("$ref"); ref != nil && ref.kind == 's' {
		if target, ok := c.resolve(ref.str); ok && target.isObject() {
			return target
		}
	}
	return s
}

// docOf is the documentation of a schema: its description (or title),
// then its format, default and deprecation.
func docOf(s *value) string {
	if !s.isObject() {
		return ""
	}
	var lines []string
	if d := strings.TrimSpace(s.get("description").text()); d != "" {
		lines = append(lines, d)
	} else if t := strings.TrimSpace(s.get("title").text()); t != "" {
		lines = append(lines, t)
	}
	var facts []string
	if f := s.get("format").text(); f != "" {
		facts = append(facts, "Format: "+f+".")
	}
	if d := s.get("default"); d != nil && scalar(d) {
		facts = append(facts, "Default: "+jsonText(d)+".")
	}
	if dep := s.get("deprecated"); dep != nil && dep.kind == 'b' && dep.b {
		facts = append(facts, "Deprecated.")
	}
	if len(facts) > 0 {
		lines = append(lines, strings.Join(facts, " "))
	}
	return strings.Join(lines, "\n")
}

// jsonText is a scalar's JSON text.
func jsonText(v *value) string {
	switch v.kind {
	case 's':
		return quote(v.str)
	case 'n':
		return v.str
	case 'b':
		return strconv.FormatBool(v.b)
	}
	return "null"
}

// union is the union of ts: nested unions flattened, an unknown member
// makes it unknown, never members dropped.
func union(ts []*typ) *typ {
	var alts []*typ
	for _, t := range ts {
		switch t.kind {
		case kUnknown:
			return tUnknown
		case kNever:
			continue
		case kUnion:
			alts = append(alts, t.alts...)
		default:
			alts = append(alts, t)
		}
	}
	switch len(alts) {
	case 0:
		return tNever
	case 1:
		return alts[0]
	}
	return &typ{kind: kUnion, alts: alts}
}

// intersect is all of ts at once: objects merge into one object (members
// of both; required where either requires them), an object and a union of
// objects distribute (each alternative merged with the object), anything
// else stays an intersection.
func intersect(ts []*typ) *typ {
	if len(ts) == 1 {
		return ts[0]
	}
	acc := ts[0]
	for _, t := range ts[1:] {
		acc = meet(acc, t)
	}
	return acc
}

func meet(a, b *typ) *typ {
	switch {
	case a.kind == kUnknown:
		return b
	case b.kind == kUnknown:
		return a
	case a.kind == kObject && b.kind == kObject:
		return mergeObjects(a, b)
	case a.kind == kObject && b.kind == kUnion && allObjects(b.alts):
		alts := make([]*typ, len(b.alts))
		for i, alt := range b.alts {
			alts[i] = mergeObjects(a, alt)
		}
		return &typ{kind: kUnion, alts: alts}
	case b.kind == kObject && a.kind == kUnion && allObjects(a.alts):
		return meet(b, a)
	}
	var alts []*typ
	for _, t := range []*typ{a, b} {
		if t.kind == kAllOf {
			alts = append(alts, t.alts...)
		} else {
			alts = append(alts, t)
		}
	}
	return &typ{kind: kAllOf, alts: alts}
}

func allObjects(ts []*typ) bool {
	for _, t := range ts {
		if t.kind != kObject {
			return false
		}
	}
	return true
}

func mergeObjects(a, b *typ) *typ {
	m := &typ{kind: kObject, hint: b.hint, closed: a.closed && b.closed}
	if m.hint == "" || len(b.props) == 0 {
		m.hint = a.hint
	}
	index := map[string]int{}
	for _, src := range []*typ{a, b} {
		for _, p := range src.props {
			if i, ok := index[p.name]; ok {
				old := m.props[i]
				q := *p
				q.required = old.required || p.required
				if q.doc == "" {
					q.doc = old.doc
				}
				if p.t.kind == kUnknown {
					q.t = old.t
				}
				m.props[i] = &q
				continue
			}
			index[p.name] = len(m.props)
			m.props = append(m.props, p)
		}
	}
	switch {
	case a.extra != nil && b.extra != nil:
		m.extra = a.extra
	case a.extra != nil:
		m.extra = a.extra
	default:
		m.extra = b.extra
	}
	return m
}
