package shell

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"

	"amlasandbox/guests/shell/applets"
)

// unsetError is ${x:?} or set -u meeting an unset variable: the shell
// reports it and a non-interactive shell exits.
type unsetError struct{ name, msg string }

func (e *unsetError) Error() string { return e.name + ": " + e.msg }

func expandUnset(name, msg string) error { return &unsetError{name, msg} }

// isAtList reports whether pe is "$@"-like: $@, ${a[@]}, ${!a[@]},
// ${!p@}, and their slices and substitutions, which expand to one word
// per element even inside double quotes.
func isAtList(pe *syntax.ParamExp) bool {
	if pe.Length || pe.Param == nil {
		return false
	}
	if pe.Names == syntax.NamesPrefixWords {
		return true
	}
	if pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps && pe.Exp.Word != nil && pe.Exp.Word.Lit() == "A" {
		return false
	}
	if pe.Index == nil {
		return pe.Param.Value == "@" && !pe.Excl
	}
	w, ok := pe.Index.(*syntax.Word)
	return ok && w.Lit() == "@"
}

// pval is the value of a parameter before the operators: a string or a
// list of elements.
type pval struct {
	name  string
	list  []string
	isArr bool // a list: $@, $*, ${a[@]}, ${a[*]}
	star  bool // joined by the first IFS character when quoted
	str   string
	set   bool
	vr    expand.Variable
}

func (v pval) joined(ifs string, sep bool) string {
	if !v.isArr {
		return v.str
	}
	j := " "
	if sep {
		j = ""
		if ifs != "" {
			r, size := utf8.DecodeRuneInString(ifs)
			_ = r
			j = ifs[:size]
		}
	}
	return strings.Join(v.list, j)
}

// ifsValue is $IFS, or its default when unset.
func (r *runner) ifsValue() string {
	vr := r.env.Get("IFS")
	if !vr.IsSet() {
		return " \t\n"
	}
	return vr.String()
}

// param expands one parameter expansion into the current field(s).
func (e *expander) param(pe *syntax.ParamExp, q quoting) error {
	r := e.r
	if pe.Param == nil {
		return fmt.Errorf("this parameter expansion is not supported")
	}
	// ${!prefix*} and ${!prefix@}: the names of variables.
	if pe.Names != 0 {
		var names []string
		r.env.Each(func(name string, vr expand.Variable) bool {
			if strings.HasPrefix(name, pe.Param.Value) && vr.IsSet() {
				names = append(names, name)
			}
			return true
		})
		sort.Strings(names)
		v := pval{isArr: true, list: names, star: pe.Names == syntax.NamesPrefix, set: true}
		return e.emit(v, q)
	}
	v, err := e.lookup(pe)
	if err != nil {
		return err
	}
	if pe.Length {
		n := 0
		switch {
		case v.isArr:
			n = len(v.list)
		default:
			n = utf8.RuneCountInString(v.str)
		}
		if !v.set && r.opts.nounset && !v.isArr {
			return expandUnset(v.name, "unbound variable")
		}
		s := strconv.Itoa(n)
		if q == unquoted {
			e.addSplit(s)
		} else {
			e.add(s, true)
		}
		return nil
	}
	if pe.Exp != nil {
		switch op := pe.Exp.Op; op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset,
			syntax.DefaultUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull:
			return e.conditional(pe, v, q)
		}
	}
	if !v.set && r.opts.nounset && !(v.isArr && (v.name == "@" || v.name == "*")) {
		return expandUnset(v.name, "unbound variable")
	}
	if pe.Slice != nil {
		if v, err = e.slice(pe, v); err != nil {
			return err
		}
	}
	if pe.Repl != nil {
		if v, err = e.replace(pe.Repl, v); err != nil {
			return err
		}
	}
	if pe.Exp != nil {
		if v, err = e.operator(pe, v); err != nil {
			return err
		}
	}
	return e.emit(v, q)
}

// emit adds a value to the fields in context q.
func (e *expander) emit(v pval, q quoting) error {
	if !v.isArr {
		if q == unquoted {
			e.addSplit(v.str)
		} else {
			e.add(v.str, true)
		}
		return nil
	}
	if q != unquoted && v.star {
		e.add(v.joined(e.r.ifsValue(), true), true)
		return nil
	}
	e.addList(v.list, q)
	return nil
}

// lookup finds the value pe names (following ${!ref} indirection).
func (e *expander) lookup(pe *syntax.ParamExp) (pval, error) {
	r := e.r
	name := pe.Param.Value
	index := pe.Index
	if pe.Excl {
		if idx, ok := index.(*syntax.Word); ok && (idx.Lit() == "@" || idx.Lit() == "*") {
			// ${!a[@]}: the indices or keys.
			vr := r.env.Get(name)
			keys := arrayKeys(vr)
			return pval{name: name, isArr: true, list: keys, star: idx.Lit() == "*", set: true}, nil
		}
		if vr := r.vars.get(name); vr.Kind == expand.NameRef && index == nil {
			// ${!ref} of a nameref is the name it refers to.
			return pval{name: name, str: vr.Str, set: vr.Str != ""}, nil
		}
		ref, err := e.lookupPlain(name, index)
		if err != nil {
			return pval{}, err
		}
		target := ref.joined(r.ifsValue(), false)
		if !ref.set || target == "" {
			return pval{name: name}, nil
		}
		refName, refIndex, err := parseRef(target)
		if err != nil {
			return pval{}, err
		}
		return e.lookupText(refName, refIndex)
	}
	return e.lookupPlain(name, index)
}

// parseRef splits NAME or NAME[INDEX] (an indirect reference).
func parseRef(s string) (string, *string, error) {
	name, rest, hasIdx := strings.Cut(s, "[")
	if !(validName(name) || isDigitString(name) || name == "@" || name == "*" || name == "#" || name == "?") {
		return "", nil, fmt.Errorf("%s: invalid indirect expansion", s)
	}
	if !hasIdx {
		return name, nil, nil
	}
	if !strings.HasSuffix(rest, "]") {
		return "", nil, fmt.Errorf("%s: invalid indirect expansion", s)
	}
	idx := strings.TrimSuffix(rest, "]")
	return name, &idx, nil
}

// lookupText is lookup with the subscript given as text.
func (e *expander) lookupText(name string, index *string) (pval, error) {
	if index == nil {
		return e.lookupPlain(name, nil)
	}
	if *index == "@" || *index == "*" {
		return e.lookupPlain(name, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: *index}}})
	}
	r := e.r
	vr := r.env.Get(name)
	if vr.Kind == expand.Associative {
		k, err := r.assocKeyText(*index)
		if err != nil {
			return pval{}, err
		}
		s, ok := vr.Map[k]
		return pval{name: name, str: s, set: ok}, nil
	}
	i, err := r.arith(*index)
	if err != nil {
		return pval{}, err
	}
	s, ok := elemGet(&vr, i)
	return pval{name: name, str: s, set: ok}, nil
}

// lookupPlain reads NAME or NAME[INDEX].
func (e *expander) lookupPlain(name string, index syntax.ArithmExpr) (pval, error) {
	r := e.r
	switch name {
	case "@", "*":
		return pval{name: name, isArr: true, list: r.params, star: name == "*", set: len(r.params) > 0}, nil
	}
	if ref := r.vars.get(name); ref.Kind == expand.NameRef && ref.Str != "" {
		target := r.resolveRef(name)
		if base, idx, ok := strings.Cut(target, "["); ok && index == nil {
			i := strings.TrimSuffix(idx, "]")
			return e.lookupText(base, &i)
		}
		name = target
	}
	vr := r.env.Get(name)
	if index == nil {
		if vr.Kind == expand.Indexed || vr.Kind == expand.Associative {
			s, ok := elemGet(&vr, 0)
			if vr.Kind == expand.Associative {
				s, ok = vr.Map["0"]
			}
			return pval{name: name, str: s, set: ok, vr: vr}, nil
		}
		return pval{name: name, str: vr.Str, set: vr.IsSet(), vr: vr}, nil
	}
	if w, ok := index.(*syntax.Word); ok && (w.Lit() == "@" || w.Lit() == "*") {
		var list []string
		switch vr.Kind {
		case expand.Indexed:
			list = slices.Clone(vr.List)
		case expand.Associative:
			for _, k := range sortedKeys(vr.Map) {
				list = append(list, vr.Map[k])
			}
		default:
			if vr.IsSet() {
				list = []string{vr.Str}
			}
		}
		return pval{name: name, isArr: true, list: list, star: w.Lit() == "*", set: len(list) > 0, vr: vr}, nil
	}
	if vr.Kind == expand.Associative {
		var k string
		var err error
		if w, ok := index.(*syntax.Word); ok {
			k, err = r.literal(w)
		} else {
			k = nodeArithText(index)
		}
		if err != nil {
			return pval{}, err
		}
		s, ok := vr.Map[k]
		return pval{name: name + "[" + k + "]", str: s, set: ok}, nil
	}
	i, err := r.arithm(index)
	if err != nil {
		return pval{}, err
	}
	s, ok := elemGet(&vr, i)
	return pval{name: fmt.Sprintf("%s[%d]", name, i), str: s, set: ok}, nil
}

// conditional is ${x-w} ${x:-w} ${x+w} ${x:+w} ${x=w} ${x:=w} ${x?w} ${x:?w}:
// the word, when used, expands in the context of the expansion itself.
func (e *expander) conditional(pe *syntax.ParamExp, v pval, q quoting) error {
	op := pe.Exp.Op
	colon := op == syntax.AlternateUnsetOrNull || op == syntax.DefaultUnsetOrNull ||
		op == syntax.ErrorUnsetOrNull || op == syntax.AssignUnsetOrNull
	present := v.set
	if colon && present {
		present = v.joined(e.r.ifsValue(), true) != ""
	}
	word := pe.Exp.Word
	var parts []syntax.WordPart
	if word != nil {
		parts = word.Parts
	}
	switch op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if !present {
			return nil
		}
		return e.parts(parts, q, q == unquoted)
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if present {
			return e.emit(v, q)
		}
		return e.parts(parts, q, q == unquoted)
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if present {
			return e.emit(v, q)
		}
		msg := "parameter null or not set"
		if word != nil {
			s, err := e.r.literal(word)
			if err != nil {
				return err
			}
			if s != "" {
				msg = s
			}
		}
		return expandUnset(v.name, msg)
	default: // assign
		if present {
			return e.emit(v, q)
		}
		if pe.Index != nil || v.name == "@" || v.name == "*" || !validName(pe.Param.Value) {
			return fmt.Errorf("$%s: cannot assign in this way", pe.Param.Value)
		}
		s, err := e.r.assignValue(word)
		if err != nil {
			return err
		}
		if err := e.r.setVar(pe.Param.Value, s); err != nil {
			return err
		}
		return e.emit(pval{str: s, set: true}, q)
	}
}

// slice is ${x:off:len}, ${a[@]:off:len}, ${@:off:len}.
func (e *expander) slice(pe *syntax.ParamExp, v pval) (pval, error) {
	r := e.r
	off, err := r.arithm(pe.Slice.Offset)
	if err != nil {
		return v, err
	}
	if v.isArr {
		list := v.list
		if v.name == "@" || v.name == "*" {
			list = append([]string{r.arg0}, r.params...)
		} else if v.vr.Kind == expand.Indexed && v.vr.Indexes != nil {
			// Offsets of a sparse array count indices, not elements.
			start := 0
			if off < 0 {
				off += arrayEnd(&v.vr)
			}
			for start < len(v.vr.Indexes) && v.vr.Indexes[start] < off {
				start++
			}
			list, off = list[start:], 0
		}
		if off < 0 {
			off += len(list)
			if off < 0 {
				return pval{name: v.name, isArr: true, star: v.star}, nil
			}
		}
		if off > len(list) {
			off = len(list)
		}
		list = list[off:]
		if pe.Slice.Length != nil {
			n, err := r.arithm(pe.Slice.Length)
			if err != nil {
				return v, err
			}
			if n < 0 {
				return v, fmt.Errorf("%d: substring expression < 0", n)
			}
			list = list[:min(n, len(list))]
		}
		v.list = list
		return v, nil
	}
	runes := []rune(v.str)
	if off < 0 {
		off += len(runes)
		if off < 0 {
			v.str = ""
			return v, nil
		}
	}
	if off > len(runes) {
		off = len(runes)
	}
	runes = runes[off:]
	if pe.Slice.Length != nil {
		n, err := r.arithm(pe.Slice.Length)
		if err != nil {
			return v, err
		}
		if n < 0 {
			n += len(runes)
			if n < 0 {
				return v, fmt.Errorf("%d: substring expression < 0", n-len(runes))
			}
		}
		runes = runes[:min(n, len(runes))]
	}
	v.str = string(runes)
	return v, nil
}

// compilePattern turns a shell pattern into a regular expression.
func compilePattern(pat string, mode pattern.Mode) (*regexp.Regexp, error) {
	expr, err := pattern.Regexp(pat, mode|pattern.ExtendedOperators)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(expr)
}

// each applies fn to the value or to every element.
func (v pval) each(fn func(string) string) pval {
	if v.isArr {
		out := make([]string, len(v.list))
		for i, s := range v.list {
			out[i] = fn(s)
		}
		v.list = out
		return v
	}
	v.str = fn(v.str)
	return v
}

// replace is ${x/pat/rep}, ${x//pat/rep}, ${x/#pat/rep}, ${x/%pat/rep}.
func (e *expander) replace(rp *syntax.Replace, v pval) (pval, error) {
	r := e.r
	orig := rp.Orig
	anchor := byte(0)
	if orig != nil && len(orig.Parts) > 0 {
		if lit, ok := orig.Parts[0].(*syntax.Lit); ok && (strings.HasPrefix(lit.Value, "#") || strings.HasPrefix(lit.Value, "%")) {
			anchor = lit.Value[0]
			parts := slices.Clone(orig.Parts)
			parts[0] = &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: lit.Value[1:]}
			orig = &syntax.Word{Parts: parts}
		}
	}
	pat, err := r.pattern(orig)
	if err != nil {
		return v, err
	}
	with := ""
	if rp.With != nil {
		if with, err = r.literal(rp.With); err != nil {
			return v, err
		}
	}
	if pat == "" && anchor == 0 {
		return v, nil
	}
	re, err := compilePattern(pat, 0)
	if err != nil {
		return v, nil
	}
	expr := re.String()
	switch anchor {
	case '#':
		re = regexp.MustCompile("^(?:" + expr + ")")
	case '%':
		re = regexp.MustCompile("(?:" + expr + ")$")
	}
	return v.each(func(s string) string {
		if anchor == '%' {
			// The longest match that ends the string.
			for i := 0; i <= len(s); i++ {
				if loc := re.FindStringIndex(s[i:]); loc != nil && loc[0] == 0 {
					return s[:i] + with
				}
			}
			return s
		}
		if rp.All && anchor == 0 {
			var b strings.Builder
			rest := s
			for rest != "" {
				loc := re.FindStringIndex(rest)
				if loc == nil {
					break
				}
				if loc[1] == loc[0] {
					// An empty match replaces nothing; move on.
					_, size := utf8.DecodeRuneInString(rest)
					b.WriteString(rest[:size])
					rest = rest[size:]
					continue
				}
				b.WriteString(rest[:loc[0]])
				b.WriteString(with)
				rest = rest[loc[1]:]
			}
			b.WriteString(rest)
			return b.String()
		}
		loc := re.FindStringIndex(s)
		if loc == nil || (loc[0] == loc[1] && anchor == 0) {
			return s
		}
		return s[:loc[0]] + with + s[loc[1]:]
	}), nil
}

// operator applies # ## % %% ^ ^^ , ,, and @OP.
func (e *expander) operator(pe *syntax.ParamExp, v pval) (pval, error) {
	r := e.r
	op := pe.Exp.Op
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		pat, err := r.pattern(pe.Exp.Word)
		if err != nil {
			return v, err
		}
		re, err := compilePattern(pat, pattern.EntireString)
		if err != nil {
			return v, nil
		}
		prefix := op == syntax.RemSmallPrefix || op == syntax.RemLargePrefix
		longest := op == syntax.RemLargePrefix || op == syntax.RemLargeSuffix
		return v.each(func(s string) string { return removeMatch(s, re, prefix, longest) }), nil
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		var re *regexp.Regexp
		if pe.Exp.Word != nil {
			pat, err := r.pattern(pe.Exp.Word)
			if err != nil {
				return v, err
			}
			if pat != "" {
				if re, err = compilePattern(pat, pattern.EntireString); err != nil {
					return v, nil
				}
			}
		}
		upper := op == syntax.UpperFirst || op == syntax.UpperAll
		all := op == syntax.UpperAll || op == syntax.LowerAll
		return v.each(func(s string) string { return changeCase(s, re, upper, all) }), nil
	case syntax.OtherParamOps:
		return e.transform(pe, v)
	}
	return v, fmt.Errorf("this parameter expansion is not supported")
}

// removeMatch removes the shortest or longest prefix or suffix matching re.
func removeMatch(s string, re *regexp.Regexp, prefix, longest bool) string {
	n := len(s)
	if prefix {
		if longest {
			for i := n; i >= 0; i-- {
				if re.MatchString(s[:i]) {
					return s[i:]
				}
			}
			return s
		}
		for i := 0; i <= n; i++ {
			if re.MatchString(s[:i]) {
				return s[i:]
			}
		}
		return s
	}
	if longest {
		for i := 0; i <= n; i++ {
			if re.MatchString(s[i:]) {
				return s[:i]
			}
		}
		return s
	}
	for i := n; i >= 0; i-- {
		if re.MatchString(s[i:]) {
			return s[:i]
		}
	}
	return s
}

// changeCase is ^ ^^ , ,, (only characters matching re, if given).
func changeCase(s string, re *regexp.Regexp, upper, all bool) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && !all {
			b.WriteString(s[i:])
			break
		}
		if re == nil || re.MatchString(string(c)) {
			if upper {
				c = unicode.ToUpper(c)
			} else {
				c = unicode.ToLower(c)
			}
		}
		b.WriteRune(c)
	}
	return b.String()
}

// transform is ${x@Q} and the other @ operators.
func (e *expander) transform(pe *syntax.ParamExp, v pval) (pval, error) {
	r := e.r
	op := ""
	if pe.Exp.Word != nil {
		op = pe.Exp.Word.Lit()
	}
	switch op {
	case "Q":
		return v.each(shellQuote), nil
	case "E":
		return v.each(func(s string) string {
			out, _, _ := expand.Format(nil, s, nil)
			return out
		}), nil
	case "P":
		return v, fmt.Errorf("${%s@P}: prompt expansion is not supported (there is no prompt)", pe.Param.Value)
	case "U":
		return v.each(strings.ToUpper), nil
	case "u":
		return v.each(func(s string) string { return changeCase(s, nil, true, false) }), nil
	case "L":
		return v.each(strings.ToLower), nil
	case "K", "k":
		return v.each(shellQuote), nil
	case "a":
		vr := r.env.Get(pe.Param.Value)
		return v.each(func(string) string { return attrFlags(vr) }), nil
	case "A":
		name := pe.Param.Value
		vr := r.env.Get(name)
		if v.isArr || vr.Kind == expand.Indexed || vr.Kind == expand.Associative {
			return pval{str: "declare -" + declFlags(vr) + " " + name + "=" + declValue(vr), set: true}, nil
		}
		if !v.set {
			return pval{}, nil
		}
		flags := attrFlags(vr)
		if flags == "" {
			return pval{str: name + "=" + shellQuote(v.str), set: true}, nil
		}
		return pval{str: "declare -" + flags + " " + name + "=" + shellQuote(v.str), set: true}, nil
	}
	return v, fmt.Errorf("${%s@%s}: bad substitution", pe.Param.Value, op)
}

// shellQuote quotes as ${x@Q} does: 'text', with ' as '\”.
func shellQuote(s string) string {
	for _, c := range s {
		if c < ' ' || c == 0x7f {
			return applets.ANSICQuote(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// arrayKeys lists the indices of an indexed array or the keys of an
// associative one.
func arrayKeys(vr expand.Variable) []string {
	switch vr.Kind {
	case expand.Indexed:
		keys := make([]string, len(vr.List))
		for i := range vr.List {
			idx := i
			if vr.Indexes != nil {
				idx = vr.Indexes[i]
			}
			keys[i] = strconv.Itoa(idx)
		}
		return keys
	case expand.Associative:
		return sortedKeys(vr.Map)
	}
	if vr.IsSet() {
		return []string{"0"}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	return keys
}

// varString is a variable's value as $x gives it.
func varString(vr expand.Variable) string {
	switch vr.Kind {
	case expand.Indexed:
		s, _ := elemGet(&vr, 0)
		return s
	case expand.Associative:
		return vr.Map["0"]
	}
	return vr.Str
}

// elemGet reads element i of an array (negative counts from the end); a
// string is element 0.
func elemGet(vr *expand.Variable, i int) (string, bool) {
	switch vr.Kind {
	case expand.Indexed:
		if i < 0 {
			i += arrayEnd(vr)
			if i < 0 {
				return "", false
			}
		}
		return arrayGet(vr, i)
	case expand.Associative:
		s, ok := vr.Map[strconv.Itoa(i)]
		return s, ok
	}
	if vr.IsSet() && (i == 0 || i == -1) {
		return vr.Str, true
	}
	return "", false
}

// regexpQuote escapes text for a Go regular expression.
func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

// wholeMatcher compiles a pattern matched against whole strings (case,
// [[ == ]], a glob's path segment). Extended globs are understood; the
// negation !(...) when it is the whole pattern, which is how scripts use
// it (rm !(*.txt)); elsewhere it is refused by name.
func wholeMatcher(pat string, mode pattern.Mode) (func(string) bool, error) {
	re, err := compilePattern(pat, mode|pattern.EntireString)
	if err == nil {
		return re.MatchString, nil
	}
	var neg *pattern.NegExtGlobError
	if errors.As(err, &neg) && strings.HasPrefix(pat, "!(") && len(neg.Groups) == 1 &&
		neg.Groups[0].Start == 0 && neg.Groups[0].End == len(pat) {
		inner, ierr := compilePattern("@("+pat[2:], mode|pattern.EntireString)
		if ierr != nil {
			return nil, ierr
		}
		return func(s string) bool { return !inner.MatchString(s) }, nil
	}
	if neg != nil {
		return nil, fmt.Errorf("%s: !(...) is supported only as a whole pattern", pat)
	}
	return nil, err
}

// hasGlobMeta reports whether a pattern has special characters,
// extended-glob groups included (pattern.HasMeta misses @(...)).
func hasGlobMeta(pat string) bool {
	if pattern.HasMeta(pat, pattern.ExtendedOperators) {
		return true
	}
	for i := 0; i+1 < len(pat); i++ {
		if pat[i] == '\\' {
			i++
			continue
		}
		if pat[i+1] == '(' && strings.IndexByte("?*+@!", pat[i]) >= 0 {
			return true
		}
	}
	return false
}
