package shell

import (
	crand "crypto/rand"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
)

// vars holds the shell's variables: the global scope and one scope per
// running function call (bash's dynamic scoping: a function sees its
// callers' locals).
type vars struct {
	scopes []map[string]expand.Variable // scopes[0] is global
	// attrs holds the -i, -l and -u attributes, which expand.Variable
	// cannot: per scope, by name, a string of letters.
	attrs []map[string]string
}

func newVars() *vars {
	return &vars{scopes: []map[string]expand.Variable{{}}, attrs: []map[string]string{{}}}
}

// attrsOf returns the attribute letters of the variable name resolves to.
func (v *vars) attrsOf(name string) string {
	_, scope := v.lookup(name)
	if scope < 0 {
		return ""
	}
	return v.attrs[scope][name]
}

// setAttrs adds (or, with off, removes) attribute letters of name in the
// scope that holds it.
func (v *vars) setAttrs(name, letters string, off bool) {
	_, scope := v.lookup(name)
	if scope < 0 {
		scope = 0
	}
	cur := v.attrs[scope][name]
	for _, c := range letters {
		has := strings.ContainsRune(cur, c)
		switch {
		case off && has:
			cur = strings.ReplaceAll(cur, string(c), "")
		case !off && !has:
			cur += string(c)
			// -l and -u exclude each other, as in bash.
			if c == 'l' {
				cur = strings.ReplaceAll(cur, "u", "")
			} else if c == 'u' {
				cur = strings.ReplaceAll(cur, "l", "")
			}
		}
	}
	v.attrs[scope][name] = cur
}

// clone deep-copies the variables for a subshell, which may run
// concurrently with its parent (pipeline stages).
func (v *vars) clone() *vars {
	c := &vars{scopes: make([]map[string]expand.Variable, len(v.scopes)), attrs: make([]map[string]string, len(v.attrs))}
	for i, a := range v.attrs {
		c.attrs[i] = maps.Clone(a)
	}
	for i, s := range v.scopes {
		m := make(map[string]expand.Variable, len(s))
		for k, vr := range s {
			vr.List = slices.Clone(vr.List)
			vr.Indexes = slices.Clone(vr.Indexes)
			vr.Map = maps.Clone(vr.Map)
			m[k] = vr
		}
		c.scopes[i] = m
	}
	return c
}

// push opens the local scope of a function call; pop closes it.
func (v *vars) push() {
	v.scopes = append(v.scopes, map[string]expand.Variable{})
	v.attrs = append(v.attrs, map[string]string{})
}

func (v *vars) pop() {
	v.scopes = v.scopes[:len(v.scopes)-1]
	v.attrs = v.attrs[:len(v.attrs)-1]
}

// lookup finds name in the innermost scope that has it.
func (v *vars) lookup(name string) (expand.Variable, int) {
	for i := len(v.scopes) - 1; i >= 0; i-- {
		if vr, ok := v.scopes[i][name]; ok {
			return vr, i
		}
	}
	return expand.Variable{}, -1
}

// get returns a variable's value.
func (v *vars) get(name string) expand.Variable {
	vr, _ := v.lookup(name)
	return vr
}

// setString assigns a plain string, keeping the variable's attributes.
func (r *runner) setString(name, value string) error {
	return r.env.Set(name, expand.Variable{Set: true, Kind: expand.String, Str: value})
}

// setLocal declares name in the current function's scope.
func (v *vars) setLocal(name string, vr expand.Variable) {
	vr.Local = true
	v.scopes[len(v.scopes)-1][name] = vr
}

// env is the runner's variables as expand.Environ, adding the special
// parameters ($?, $#, $@, $1 ..., $PWD, $RANDOM) computed from the runner.
type env struct{ r *runner }

func (e env) Get(name string) expand.Variable {
	r := e.r
	str := func(s string) expand.Variable { return expand.Variable{Set: true, Kind: expand.String, Str: s} }
	switch name {
	case "?":
		return str(strconv.Itoa(r.status))
	case "#":
		return str(strconv.Itoa(len(r.params)))
	case "@", "*":
		return expand.Variable{Set: true, Kind: expand.Indexed, List: slices.Clone(r.params)}
	case "0":
		return str(r.arg0)
	case "$":
		return str("1")
	case "PPID":
		return str("0")
	case "!":
		return expand.Variable{}
	case "-":
		return str(r.opts.flags())
	case "PWD":
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: r.dir}
	case "PIPESTATUS":
		list := make([]string, len(r.pipeStatus))
		for i, st := range r.pipeStatus {
			list[i] = strconv.Itoa(st)
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: list}
	case "LINENO":
		return str(strconv.FormatUint(uint64(r.line), 10))
	case "RANDOM":
		return str(strconv.Itoa(randomN(32768)))
	case "SECONDS":
		return str(strconv.Itoa(int(time.Since(r.started).Seconds())))
	case "FUNCNAME":
		if len(r.funcNames) == 0 {
			return expand.Variable{}
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: slices.Clone(r.funcNames)}
	case "UID", "EUID":
		return str("1000")
	case "SHELL":
		if vr := r.vars.get(name); vr.IsSet() {
			return vr
		}
		return str("/bin/sh")
	}
	if name != "" && name[0] >= '1' && name[0] <= '9' {
		n, err := strconv.Atoi(name)
		if err != nil {
			return expand.Variable{}
		}
		if n <= len(r.params) {
			return str(r.params[n-1])
		}
		return expand.Variable{}
	}
	vr := r.vars.get(name)
	if vr.Kind == expand.NameRef {
		target := r.resolveRef(name)
		if target == name || r.vars.get(target).Kind == expand.NameRef {
			// No target, or a cycle (declare -n a=b b=a): nothing set.
			return expand.Variable{}
		}
		return e.Get(target)
	}
	return vr
}

// maxRefDepth bounds chains of namerefs (declare -n a=b b=a).
const maxRefDepth = 8

// resolveRef follows namerefs from name to the variable they name.
func (r *runner) resolveRef(name string) string {
	for i := 0; i < maxRefDepth; i++ {
		vr := r.vars.get(name)
		if vr.Kind != expand.NameRef || vr.Str == "" {
			return name
		}
		name = vr.Str
	}
	return name
}

func (e env) Each(fn func(name string, vr expand.Variable) bool) {
	seen := map[string]bool{}
	v := e.r.vars
	for i := len(v.scopes) - 1; i >= 0; i-- {
		names := slices.Collect(maps.Keys(v.scopes[i]))
		sort.Strings(names)
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			if !fn(n, v.scopes[i][n]) {
				return
			}
		}
	}
}

// Set assigns, unsets (vr not set) or changes the attributes of (vr.Kind ==
// KeepValue) a variable, in the innermost scope that has it, else globally.
func (e env) Set(name string, vr expand.Variable) error {
	v := e.r.vars
	if cur := v.get(name); cur.Kind == expand.NameRef && vr.Kind != expand.NameRef && cur.Str != "" {
		// Assigning through a nameref assigns to the variable it names.
		target := e.r.resolveRef(name)
		if base, index, ok := strings.Cut(target, "["); ok && vr.Kind == expand.String && vr.IsSet() {
			return e.r.setElem(base, strings.TrimSuffix(index, "]"), vr.Str, false)
		}
		name = target
	}
	old, scope := v.lookup(name)
	if old.ReadOnly && (vr.Kind != expand.KeepValue || !vr.ReadOnly) {
		return fmt.Errorf("%s: readonly variable", name)
	}
	if scope < 0 {
		scope = 0
	}
	switch {
	case vr.Kind == expand.KeepValue:
		old.Exported = old.Exported || vr.Exported
		old.ReadOnly = old.ReadOnly || vr.ReadOnly
		if old.Kind == expand.Unknown && !old.Set {
			old.Kind = expand.String
		}
		v.scopes[scope][name] = old
	case !vr.IsSet():
		delete(v.scopes[scope], name)
	default:
		vr.Exported = vr.Exported || old.Exported || e.r.opts.allexport
		vr.ReadOnly = vr.ReadOnly || old.ReadOnly
		vr.Local = old.Local
		if name == "PWD" {
			return nil // the working directory changes only with cd
		}
		v.scopes[scope][name] = vr
	}
	return nil
}

// exported returns the exported variables as applets see them, with the
// command's own NAME=VALUE prefixes added.
func (r *runner) exported(extra map[string]string) map[string]string {
	out := map[string]string{}
	for i := range r.vars.scopes {
		for k, vr := range r.vars.scopes[i] {
			if vr.Exported && vr.IsSet() && vr.Kind == expand.String {
				out[k] = vr.Str
			} else {
				delete(out, k) // a local shadowing an exported global
			}
		}
	}
	out["PWD"] = r.dir
	maps.Copy(out, extra)
	return out
}

// validName reports whether s can name a variable.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellOpts are the options of `set`.
type shellOpts struct {
	errexit, nounset, pipefail, xtrace, noglob, noexec, verbose bool
	nullglob, dotglob, globstar, nocaseglob, extglob            bool
	allexport, noclobber, lastpipe, nocasematch                 bool
	expandAliases                                               bool
}

// flags is $-.
func (o shellOpts) flags() string {
	var b strings.Builder
	for _, f := range []struct {
		on bool
		c  byte
	}{{o.allexport, 'a'}, {o.errexit, 'e'}, {o.noglob, 'f'}, {true, 'h'}, {o.noexec, 'n'}, {o.nounset, 'u'}, {o.verbose, 'v'}, {o.xtrace, 'x'}, {true, 'B'}, {o.noclobber, 'C'}} {
		if f.on {
			b.WriteByte(f.c)
		}
	}
	return b.String()
}

// named maps `set -o NAME` to its flag.
func (o *shellOpts) named(name string) *bool {
	switch name {
	case "errexit":
		return &o.errexit
	case "nounset":
		return &o.nounset
	case "pipefail":
		return &o.pipefail
	case "xtrace":
		return &o.xtrace
	case "noglob":
		return &o.noglob
	case "noexec":
		return &o.noexec
	case "verbose":
		return &o.verbose
	case "allexport":
		return &o.allexport
	case "noclobber":
		return &o.noclobber
	}
	return nil
}

// letter maps `set -X` to its flag.
func (o *shellOpts) letter(c byte) *bool {
	switch c {
	case 'e':
		return &o.errexit
	case 'u':
		return &o.nounset
	case 'x':
		return &o.xtrace
	case 'f':
		return &o.noglob
	case 'n':
		return &o.noexec
	case 'v':
		return &o.verbose
	case 'a':
		return &o.allexport
	case 'C':
		return &o.noclobber
	}
	return nil
}

// $RANDOM's generator is seeded from crypto/rand on first use in a run,
// not at package init: the guest may start from a snapshot taken after
// init, where a generator seeded then would repeat in every run.
var shellRand struct {
	once sync.Once
	r    *rand.Rand
}

func randomN(n int) int {
	shellRand.once.Do(func() {
		var seed [32]byte
		_, _ = crand.Read(seed[:])
		shellRand.r = rand.New(rand.NewChaCha8(seed))
	})
	return shellRand.r.IntN(n)
}
