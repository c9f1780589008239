package shell

import (
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"

	"amlasandbox/guests/shell/applets"
)

// setVar assigns a string to a variable, keeping an array's other
// elements (a=v on an array sets element 0) and applying the variable's
// -i, -l and -u attributes.
func (r *runner) setVar(name, value string) error {
	cur := r.env.Get(name)
	var err error
	if value, err = r.applyAttrs(name, value); err != nil {
		return err
	}
	switch cur.Kind {
	case expand.Indexed:
		vr := cur
		vr.List = slices.Clone(cur.List)
		vr.Indexes = slices.Clone(cur.Indexes)
		arraySet(&vr, 0, value)
		return r.env.Set(name, vr)
	case expand.Associative:
		vr := cur
		vr.Map = cloneMap(cur.Map)
		vr.Map["0"] = value
		return r.env.Set(name, vr)
	}
	return r.env.Set(name, expand.Variable{Set: true, Kind: expand.String, Str: value})
}

// setElem assigns NAME[INDEX]=VALUE (or +=) with the subscript as text.
func (r *runner) setElem(name, index, value string, appendTo bool) error {
	cur := r.env.Get(name)
	if cur.Kind == expand.Associative {
		k, err := r.assocKeyText(index)
		if err != nil {
			return err
		}
		vr := cur
		vr.Map = cloneMap(cur.Map)
		if appendTo {
			value = vr.Map[k] + value
		}
		vr.Map[k] = value
		return r.env.Set(name, vr)
	}
	i, err := r.arith(index)
	if err != nil {
		return err
	}
	vr := expand.Variable{Set: true, Kind: expand.Indexed}
	switch cur.Kind {
	case expand.Indexed:
		vr.List = slices.Clone(cur.List)
		vr.Indexes = slices.Clone(cur.Indexes)
	case expand.String:
		if cur.IsSet() {
			vr.List = []string{cur.Str}
		}
	}
	if i < 0 {
		if i += arrayEnd(&vr); i < 0 {
			return fmt.Errorf("%s[%s]: bad array subscript", name, index)
		}
	}
	if appendTo {
		old, _ := arrayGet(&vr, i)
		value = old + value
	}
	if value, err = r.applyAttrs(name, value); err != nil {
		return err
	}
	arraySet(&vr, i, value)
	return r.env.Set(name, vr)
}

// applyAttrs transforms a value by the variable's attributes: -i
// evaluates it as arithmetic, -l and -u change its case.
func (r *runner) applyAttrs(name, value string) (string, error) {
	attrs := r.vars.attrsOf(name)
	if attrs == "" {
		return value, nil
	}
	if strings.Contains(attrs, "i") {
		n, err := r.arith(value)
		if err != nil {
			return "", err
		}
		value = strconv.Itoa(n)
	}
	if strings.Contains(attrs, "l") {
		value = strings.ToLower(value)
	}
	if strings.Contains(attrs, "u") {
		value = strings.ToUpper(value)
	}
	return value, nil
}

// attrFlags is ${x@a}: the attribute letters in bash's order.
func attrFlags(vr expand.Variable) string {
	return declFlags(vr)
}

// declFlags are the letters declare -p prints.
func declFlags(vr expand.Variable) string {
	var b strings.Builder
	switch vr.Kind {
	case expand.Indexed:
		b.WriteByte('a')
	case expand.Associative:
		b.WriteByte('A')
	}
	return b.String()
}

// declQuote quotes a value as declare -p does: in double quotes with
// \ " $ ` escaped.
func declQuote(s string) string {
	for _, c := range s {
		if c < ' ' && c != '\t' && c != '\n' {
			return applets.ANSICQuote(s)
		}
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if strings.ContainsRune("\\\"$`", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

// declValue is an array's value as declare -p prints it.
func declValue(vr expand.Variable) string {
	var parts []string
	switch vr.Kind {
	case expand.Indexed:
		for i, v := range vr.List {
			idx := i
			if vr.Indexes != nil {
				idx = vr.Indexes[i]
			}
			parts = append(parts, fmt.Sprintf("[%d]=%s", idx, declQuote(v)))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case expand.Associative:
		for _, k := range sortedKeys(vr.Map) {
			key := k
			if strings.ContainsAny(k, " \t\n\"'\\$`()[]*?;&|<>") {
				key = declQuote(k)
			}
			parts = append(parts, fmt.Sprintf("[%s]=%s", key, declQuote(vr.Map[k])))
		}
		if len(parts) == 0 {
			return "()"
		}
		return "(" + strings.Join(parts, " ") + " )"
	}
	return declQuote(vr.Str)
}

// glob expands a pattern against the sandbox's files: each path segment
// with pattern characters matches the names of its directory, in byte
// order; * and ? skip names starting with a dot unless dotglob is on;
// ** matches any depth with globstar.
func (r *runner) glob(pat string) ([]string, error) {
	abs := strings.HasPrefix(pat, "/")
	segs := strings.Split(strings.Trim(pat, "/"), "/")
	if pat == "/" {
		return []string{"/"}, nil
	}
	base := r.dir
	prefix := ""
	if abs {
		base, prefix = "/", "/"
	}
	mode := pattern.EntireString
	if r.opts.dotglob {
		mode |= pattern.GlobLeadingDot
	}
	if r.opts.nocaseglob {
		mode |= pattern.NoGlobCase
	}
	trailingSlash := strings.HasSuffix(pat, "/") && pat != "/"
	cur := []globCand{{base, prefix}}
	for i, seg := range segs {
		last := i == len(segs)-1
		var next []globCand
		if seg == "" {
			continue
		}
		if !hasGlobMeta(seg) {
			lit := unquotePattern(seg)
			for _, c := range cur {
				disk := path.Join(c.disk, lit)
				if last || trailingSlash {
					if _, err := os.Lstat(disk); err != nil {
						continue
					}
				}
				next = append(next, globCand{disk, c.shown + lit + sep(last, trailingSlash)})
			}
			cur = next
			continue
		}
		if seg == "**" && r.opts.globstar {
			for _, c := range cur {
				next = append(next, c)
				next = walkDirs(c.disk, c.shown, r.opts.dotglob, next)
			}
			if last {
				// ** alone at the end matches files too.
				var all []globCand
				for _, c := range cur {
					all = walkAll(c.disk, c.shown, r.opts.dotglob, all)
				}
				cur = all
				break
			}
			cur = next
			continue
		}
		match, err := wholeMatcher(seg, mode&^pattern.EntireString)
		if err != nil {
			return nil, err
		}
		dotOK := strings.HasPrefix(seg, ".") || r.opts.dotglob
		for _, c := range cur {
			entries, err := os.ReadDir(c.disk)
			if err != nil {
				continue
			}
			for _, ent := range entries {
				name := ent.Name()
				if strings.HasPrefix(name, ".") && !dotOK {
					continue
				}
				if (name == "." || name == "..") && !strings.HasPrefix(seg, ".") {
					continue
				}
				if !match(name) {
					continue
				}
				disk := path.Join(c.disk, name)
				if !last || trailingSlash {
					if st, err := os.Stat(disk); err != nil || !st.IsDir() {
						continue
					}
				}
				next = append(next, globCand{disk, c.shown + name + sep(last, trailingSlash)})
			}
		}
		cur = next
	}
	out := make([]string, 0, len(cur))
	for _, c := range cur {
		out = append(out, c.shown)
	}
	sort.Strings(out)
	return out, nil
}

func sep(last, trailingSlash bool) string {
	if !last || trailingSlash {
		return "/"
	}
	return ""
}

// globCand is a path found so far: on disk, and as the glob prints it.
type globCand struct{ disk, shown string }

// walkDirs lists every directory below dir (for **/).
func walkDirs(disk, shown string, dot bool, out []globCand) []globCand {
	entries, err := os.ReadDir(disk)
	if err != nil {
		return out
	}
	for _, ent := range entries {
		if strings.HasPrefix(ent.Name(), ".") && !dot {
			continue
		}
		if ent.IsDir() {
			d := globCand{path.Join(disk, ent.Name()), shown + ent.Name() + "/"}
			out = append(out, d)
			out = walkDirs(d.disk, d.shown, dot, out)
		}
	}
	return out
}

// walkAll lists everything below dir (for a final **).
func walkAll(disk, shown string, dot bool, out []globCand) []globCand {
	entries, err := os.ReadDir(disk)
	if err != nil {
		return out
	}
	for _, ent := range entries {
		if strings.HasPrefix(ent.Name(), ".") && !dot {
			continue
		}
		d := globCand{path.Join(disk, ent.Name()), shown + ent.Name()}
		out = append(out, d)
		if ent.IsDir() {
			out = walkAll(d.disk, d.shown+"/", dot, out)
		}
	}
	return out
}

// unquotePattern removes the backslashes of a pattern without pattern
// characters.
func unquotePattern(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
