package netpolicy

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"amlasandbox/gocore/capability"
)

// Defaults of the NetworkPolicy fields (the Python class has the same).
const (
	DefaultMaxRequests      = 100
	DefaultMaxRequestBytes  = 10 << 20
	DefaultMaxResponseBytes = 10 << 20
	DefaultTimeout          = 30 * time.Second
	DefaultMaxConcurrent    = 8
)

// Fixed limits of the floor.
const (
	// MaxURLAndHeaderBytes bounds the URL plus all request header names
	// and values.
	MaxURLAndHeaderBytes = 64 << 10
	// MaxJSONParamBytes: a JSON body up to this size is decoded into the
	// "json" parameter; a bigger one leaves it absent.
	MaxJSONParamBytes = 1 << 20
	// MaxResponseHeaderBytes bounds the response's header block.
	MaxResponseHeaderBytes = 256 << 10
)

// Policy is a parsed network policy: the allow rules, the secrets and the
// limits of the floor. It is safe for concurrent use. Authorize keeps the
// rules' call budgets; an Executor keeps max_requests and max_concurrent.
type Policy struct {
	Rules            []*Rule
	MaxRequests      int64
	MaxRequestBytes  int64
	MaxResponseBytes int64
	Timeout          time.Duration
	MaxConcurrent    int

	secrets    []*Secret // sorted by name
	inject     []injectRule
	private    privateAllowance
	ports      map[int]bool
	extraCerts []*x509.Certificate
	scrub      *scrubber

	mu   sync.Mutex
	used []int64 // calls per rule
}

// Secret is one entry of the policy's secrets: a value the guest never
// sees. Where lists the places of a request its placeholder may be bound
// in ("header", "query", "path", "body").
type Secret struct {
	Name        string
	Hosts       []string
	Where       []string
	Expose      bool
	Placeholder string

	value string
	hosts []hostPattern
	where map[string]bool
}

// Places a secret's placeholder may be bound in.
const (
	WhereHeader = "header"
	WhereQuery  = "query"
	WherePath   = "path"
	WhereBody   = "body"
)

type injectRule struct {
	host    hostPattern
	key     string // the inject_headers key, for refusals
	headers []injectHeader
}

type injectHeader struct {
	name  string
	parts []templatePart
}

// templatePart is literal text, or (secret != nil) a secret's value.
type templatePart struct {
	text   string
	secret *Secret
}

var secretNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParsePolicy reads a network policy from its JSON form (the Python
// NetworkPolicy's to_dict; see the package documentation for the shape).
// Every error is a *ConfigError naming the field at fault. Placeholders
// for the secrets are drawn at random; SetPlaceholders replaces them.
func ParsePolicy(data []byte) (*Policy, error) {
	v, err := capability.ParseJSON(data)
	if err != nil {
		return nil, configErr("", err.Error())
	}
	o, ok := v.(*capability.Object)
	if !ok {
		return nil, configErr("", "expected a JSON object, got "+capability.TypeName(v))
	}
	p := &Policy{
		MaxRequests:      DefaultMaxRequests,
		MaxRequestBytes:  DefaultMaxRequestBytes,
		MaxResponseBytes: DefaultMaxResponseBytes,
		Timeout:          DefaultTimeout,
		MaxConcurrent:    DefaultMaxConcurrent,
		ports:            map[int]bool{80: true, 443: true},
	}
	known := map[string]bool{}
	for _, k := range []string{"allow", "secrets", "inject_headers", "max_requests", "max_request_bytes",
		"max_response_bytes", "timeout", "max_concurrent", "allow_private", "extra_ca_certs"} {
		known[k] = true
	}
	for _, k := range o.Keys() {
		if !known[k] {
			return nil, configErr(k, "unknown field")
		}
	}
	get := func(k string) (any, bool) {
		x, ok := o.Get(k)
		return x, ok && x != nil
	}
	// Secrets first: inject_headers refers to them.
	if x, ok := get("secrets"); ok {
		if err := p.parseSecrets(x); err != nil {
			return nil, err
		}
	}
	if x, ok := get("allow"); ok {
		l, ok := x.(capability.List)
		if !ok {
			return nil, configErr("allow", "expected a list, got "+capability.TypeName(x))
		}
		for i, e := range l {
			r, err := parseRuleValue(e, "allow["+itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			r.finish(i)
			p.Rules = append(p.Rules, r)
			p.ports[r.Port] = true
		}
	}
	p.used = make([]int64, len(p.Rules))
	for _, f := range []struct {
		key string
		dst *int64
		min int64
	}{
		{"max_requests", &p.MaxRequests, 0},
		{"max_request_bytes", &p.MaxRequestBytes, 0},
		{"max_response_bytes", &p.MaxResponseBytes, 0},
	} {
		if x, ok := get(f.key); ok {
			n, err := intField(x, f.key, f.min)
			if err != nil {
				return nil, err
			}
			*f.dst = n
		}
	}
	if x, ok := get("max_concurrent"); ok {
		n, err := intField(x, "max_concurrent", 1)
		if err != nil {
			return nil, err
		}
		p.MaxConcurrent = int(min(n, 1<<16))
	}
	if x, ok := get("timeout"); ok {
		var f float64
		switch t := x.(type) {
		case float64:
			f = t
		case *big.Int:
			f, _ = new(big.Float).SetInt(t).Float64()
		default:
			return nil, configErr("timeout", "expected a number of seconds, got "+capability.TypeName(x))
		}
		if !(f > 0) || math.IsInf(f, 0) || f > 7*24*3600 {
			return nil, configErr("timeout", "must be a positive number of seconds (at most a week), got "+capability.Repr(x))
		}
		p.Timeout = time.Duration(f * float64(time.Second))
	}
	if x, ok := get("allow_private"); ok {
		entries, err := stringList(x, "allow_private")
		if err != nil {
			return nil, err
		}
		if p.private, err = parseAllowPrivate(entries); err != nil {
			return nil, err
		}
	} else {
		p.private = privateAllowance{hosts: map[string]bool{}}
	}
	if x, ok := get("extra_ca_certs"); ok {
		s, ok := x.(string)
		if !ok {
			return nil, configErr("extra_ca_certs", "expected PEM text, got "+capability.TypeName(x))
		}
		certs, err := parsePEMCerts(s)
		if err != nil {
			return nil, configErr("extra_ca_certs", err.Error())
		}
		p.extraCerts = certs
	}
	if x, ok := get("inject_headers"); ok {
		if err := p.parseInject(x); err != nil {
			return nil, err
		}
	}
	if err := p.newPlaceholders(); err != nil {
		return nil, configErr("secrets", err.Error())
	}
	return p, nil
}

func parsePEMCerts(s string) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	rest := []byte(s)
	n := 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, errorf("certificate %d: %v", n+1, err)
		}
		certs = append(certs, c)
		n++
	}
	if n == 0 {
		return nil, errorf("no PEM certificate found (pass the PEM text, not a path)")
	}
	return certs, nil
}

func intField(x any, field string, min int64) (int64, error) {
	n, ok := x.(*big.Int)
	if !ok {
		return 0, configErr(field, "expected an int, got "+capability.TypeName(x))
	}
	if !n.IsInt64() || n.Int64() < min {
		return 0, configErr(field, "must be an int >= "+strconv.FormatInt(min, 10)+", got "+n.String())
	}
	return n.Int64(), nil
}

func stringList(x any, field string) ([]string, error) {
	l, ok := x.(capability.List)
	if !ok {
		return nil, configErr(field, "expected a list of str, got "+capability.TypeName(x))
	}
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, configErr(field+"["+itoa(i)+"]", "expected a str, got "+capability.TypeName(e))
		}
		out[i] = s
	}
	return out, nil
}

// parseRuleValue reads one allow entry: a rule string, or an object
// {"url", "methods", "constraints", "max_calls", "require_approval"} (the
// Python HttpRule). An object's url may carry verbs only when it has no
// "methods"; without either, the rule allows GET (HttpRule's default).
func parseRuleValue(v any, field string) (*Rule, error) {
	if s, ok := v.(string); ok {
		r, err := ParseRule(s)
		if err != nil {
			return nil, configErr(field, err.Error())
		}
		return r, nil
	}
	o, ok := v.(*capability.Object)
	if !ok {
		return nil, configErr(field, "expected a rule string or an object, got "+capability.TypeName(v))
	}
	for _, k := range o.Keys() {
		switch k {
		case "url", "methods", "constraints", "max_calls", "require_approval":
		default:
			return nil, configErr(field+"."+k, "unknown field")
		}
	}
	u, ok := o.Get("url")
	us, isStr := u.(string)
	if !ok || !isStr {
		return nil, configErr(field+".url", "expected a str")
	}
	r, err := ParseRule(us)
	if err != nil {
		return nil, configErr(field+".url", err.Error())
	}
	hasVerb := strings.ContainsAny(strings.TrimSpace(us), " \t")
	if m, ok := o.Get("methods"); ok && m != nil {
		if hasVerb {
			return nil, configErr(field+".methods", "the url already names its verbs")
		}
		ms, err := stringList(m, field+".methods")
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			return nil, configErr(field+".methods", "empty list: the rule would allow nothing")
		}
		r.Methods = nil
		for i, s := range ms {
			u, err := parseVerb(s)
			if err != nil {
				return nil, configErr(field+".methods["+itoa(i)+"]", err.Error())
			}
			if u == "*" {
				r.Methods = nil
				break
			}
			r.Methods = append(r.Methods, u)
		}
	} else if !hasVerb {
		r.Methods = []string{"GET"}
	}
	if c, ok := o.Get("constraints"); ok && c != nil {
		cs, err := parseConstraints(c, field+".constraints")
		if err != nil {
			return nil, err
		}
		r.Constraints = cs
	}
	if m, ok := o.Get("max_calls"); ok && m != nil {
		n, err := intField(m, field+".max_calls", 0)
		if err != nil {
			return nil, err
		}
		r.MaxCalls = &n
	}
	if a, ok := o.Get("require_approval"); ok && a != nil {
		b, ok := a.(bool)
		if !ok {
			return nil, configErr(field+".require_approval", "expected a bool, got "+capability.TypeName(a))
		}
		r.RequireApproval = b
	}
	return r, nil
}

// parseConstraints reads a rule's constraints: a list of constraint dicts
// (ConstraintSet.to_dict), or an object {param: spec} in the DSL of
// create_sandbox_tool: "<=N" ">=N" "<N" ">N" "==N" "!=N" (N an int, or a
// float when it has a "."), "startswith:S" "endswith:S" "contains:S", a
// list (one of these values), a number or bool (equal to it). A string
// that is none of these is an error: it would leave the rule
// unconstrained.
func parseConstraints(v any, field string) (capability.ConstraintSet, error) {
	switch x := v.(type) {
	case capability.List:
		var cs capability.ConstraintSet
		for i, e := range x {
			c, err := capability.ConstraintFromValue(e)
			if err != nil {
				return nil, configErr(field+"["+itoa(i)+"]", err.Error())
			}
			if t, ok := unknownConstraintType(c); ok {
				return nil, configErr(field+"["+itoa(i)+"]", "unknown constraint type: "+quote(t))
			}
			cs = append(cs, c)
		}
		return cs, nil
	case *capability.Object:
		var cs capability.ConstraintSet
		for _, param := range x.Keys() {
			spec, _ := x.Get(param)
			f := field + "." + param
			switch s := spec.(type) {
			case string:
				c, err := parseDSL(param, s)
				if err != nil {
					return nil, configErr(f, err.Error())
				}
				cs = append(cs, c)
			case capability.List:
				cs = append(cs, capability.In(param, s...))
			case *big.Int, float64, bool:
				cs = append(cs, capability.EQ(param, s))
			default:
				return nil, configErr(f, "expected a constraint string, a list or a number, got "+capability.TypeName(spec))
			}
		}
		return cs, nil
	}
	return nil, configErr(field, "expected an object {param: spec} or a list of constraints, got "+capability.TypeName(v))
}

func parseDSL(param, spec string) (capability.Constraint, error) {
	for _, op := range []struct {
		prefix string
		make   func(string, any) capability.Constraint
	}{
		{"<=", capability.LE}, {">=", capability.GE}, {"==", capability.EQ},
		{"!=", capability.NE}, {"<", capability.LT}, {">", capability.GT},
	} {
		if rest, ok := strings.CutPrefix(spec, op.prefix); ok {
			t := strings.TrimSpace(rest)
			if strings.Contains(t, ".") {
				f, err := strconv.ParseFloat(t, 64)
				if err != nil {
					return capability.Constraint{}, errorf("invalid numeric value in constraint: %q", t)
				}
				return op.make(param, f), nil
			}
			n, ok := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), 10)
			if !ok || t == "" {
				return capability.Constraint{}, errorf("invalid numeric value in constraint: %q", t)
			}
			return op.make(param, n), nil
		}
	}
	for _, st := range []struct {
		prefix string
		make   func(string, string) capability.Constraint
	}{
		{"startswith:", capability.StartsWith}, {"endswith:", capability.EndsWith}, {"contains:", capability.Contains},
	} {
		if rest, ok := strings.CutPrefix(spec, st.prefix); ok {
			return st.make(param, rest), nil
		}
	}
	return capability.Constraint{}, errorf("not a constraint: %q (use <=N, >=N, <N, >N, ==N, !=N, startswith:S, endswith:S or contains:S)", spec)
}

func (p *Policy) parseSecrets(x any) error {
	o, ok := x.(*capability.Object)
	if !ok {
		return configErr("secrets", "expected an object {name: secret}, got "+capability.TypeName(x))
	}
	for _, name := range o.Keys() {
		field := "secrets." + name
		if !secretNameRE.MatchString(name) {
			return configErr(field, "a secret's name must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)")
		}
		sv, _ := o.Get(name)
		so, ok := sv.(*capability.Object)
		if !ok {
			return configErr(field, "expected an object {value, hosts, where, expose}, got "+capability.TypeName(sv))
		}
		for _, k := range so.Keys() {
			switch k {
			case "value", "hosts", "where", "expose":
			default:
				return configErr(field+"."+k, "unknown field")
			}
		}
		s := &Secret{Name: name, Expose: true, Where: []string{WhereHeader}}
		val, _ := so.Get("value")
		if s.value, ok = val.(string); !ok {
			return configErr(field+".value", "expected a str, got "+capability.TypeName(val))
		}
		if len(s.value) < 4 {
			return configErr(field+".value", "a secret's value must be at least 4 bytes long")
		}
		if strings.ContainsAny(s.value, "\r\n\x00") {
			return configErr(field+".value", "a secret's value cannot hold CR, LF or NUL")
		}
		hv, ok := so.Get("hosts")
		if !ok || hv == nil {
			return configErr(field+".hosts", "a secret must name the hosts it may be sent to")
		}
		hosts, err := stringList(hv, field+".hosts")
		if err != nil {
			return err
		}
		if len(hosts) == 0 {
			return configErr(field+".hosts", "a secret must name the hosts it may be sent to")
		}
		for i, h := range hosts {
			hp, err := parseHostPattern(strings.TrimSpace(h))
			if err != nil {
				return configErr(field+".hosts["+itoa(i)+"]", err.Error())
			}
			if hp.any {
				return configErr(field+".hosts["+itoa(i)+"]", "\"*\" is not accepted: name the hosts")
			}
			s.hosts = append(s.hosts, hp)
			s.Hosts = append(s.Hosts, hp.String())
		}
		if wv, ok := so.Get("where"); ok && wv != nil {
			if s.Where, err = stringList(wv, field+".where"); err != nil {
				return err
			}
		}
		s.where = map[string]bool{}
		for i, w := range s.Where {
			switch w {
			case WhereHeader, WhereQuery, WherePath, WhereBody:
				s.where[w] = true
			default:
				return configErr(field+".where["+itoa(i)+"]", "expected \"header\", \"query\", \"path\" or \"body\", got "+quote(w))
			}
		}
		if ev, ok := so.Get("expose"); ok && ev != nil {
			b, ok := ev.(bool)
			if !ok {
				return configErr(field+".expose", "expected a bool, got "+capability.TypeName(ev))
			}
			s.Expose = b
		}
		p.secrets = append(p.secrets, s)
	}
	sort.Slice(p.secrets, func(i, j int) bool { return p.secrets[i].Name < p.secrets[j].Name })
	return nil
}

func (p *Policy) secret(name string) *Secret {
	for _, s := range p.secrets {
		if s.Name == name {
			return s
		}
	}
	return nil
}

var templateRefRE = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func (p *Policy) parseInject(x any) error {
	o, ok := x.(*capability.Object)
	if !ok {
		return configErr("inject_headers", "expected an object {host: {header: value}}, got "+capability.TypeName(x))
	}
	for _, key := range o.Keys() {
		field := "inject_headers." + key
		hp, err := parseHostPattern(strings.TrimSpace(key))
		if err != nil {
			return configErr(field, err.Error())
		}
		hv, _ := o.Get(key)
		ho, ok := hv.(*capability.Object)
		if !ok {
			return configErr(field, "expected an object {header: value}, got "+capability.TypeName(hv))
		}
		ir := injectRule{host: hp, key: key}
		for _, name := range ho.Keys() {
			hf := field + "." + name
			if !isToken(name) {
				return configErr(hf, "not a header name")
			}
			tv, _ := ho.Get(name)
			t, ok := tv.(string)
			if !ok {
				return configErr(hf, "expected a str, got "+capability.TypeName(tv))
			}
			if !validHeaderValue(t) {
				return configErr(hf, "a header value cannot hold CR, LF, NUL or other control characters")
			}
			ih := injectHeader{name: name}
			last := 0
			for _, m := range templateRefRE.FindAllStringSubmatchIndex(t, -1) {
				s := p.secret(t[m[2]:m[3]])
				if s == nil {
					return configErr(hf, "{"+t[m[2]:m[3]]+"} names no secret")
				}
				if hp.exact != "" && !s.allowsHost(hp.exact) {
					return configErr(hf, "secret "+s.Name+" may not be sent to "+hp.exact+" (its hosts: "+strings.Join(s.Hosts, ", ")+")")
				}
				ih.parts = append(ih.parts, templatePart{text: t[last:m[0]]}, templatePart{secret: s})
				last = m[1]
			}
			ih.parts = append(ih.parts, templatePart{text: t[last:]})
			ir.headers = append(ir.headers, ih)
		}
		p.inject = append(p.inject, ir)
	}
	return nil
}

// Secrets returns the policy's secrets (without their values), by name.
func (p *Policy) Secrets() []Secret {
	out := make([]Secret, len(p.secrets))
	for i, s := range p.secrets {
		out[i] = Secret{Name: s.Name, Hosts: s.Hosts, Where: s.Where, Expose: s.Expose, Placeholder: s.Placeholder}
	}
	return out
}

// Ports is the set of ports requests may go to: 80, 443 and every port a
// rule names, ascending.
func (p *Policy) Ports() []int {
	out := make([]int, 0, len(p.ports))
	for n := range p.ports {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// Capabilities is the rules compiled to capabilities, in order.
func (p *Policy) Capabilities() []capability.MethodCapability {
	out := make([]capability.MethodCapability, len(p.Rules))
	for i, r := range p.Rules {
		out[i] = r.Capability()
	}
	return out
}

var knownConstraintTypes = map[string]bool{
	capability.TypeLT: true, capability.TypeLE: true, capability.TypeGT: true, capability.TypeGE: true,
	capability.TypeEQ: true, capability.TypeNE: true, capability.TypeIn: true, capability.TypeNotIn: true,
	capability.TypeStartsWith: true, capability.TypeEndsWith: true, capability.TypeContains: true,
	capability.TypeExists: true, capability.TypeNotExists: true, capability.TypeAnd: true, capability.TypeOr: true,
}

// unknownConstraintType finds a constraint type outside the known ones,
// walking and/or nesting without recursion.
func unknownConstraintType(c capability.Constraint) (string, bool) {
	stack := []capability.Constraint{c}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !knownConstraintTypes[x.Type] {
			return x.Type, true
		}
		stack = append(stack, x.Constraints...)
	}
	return "", false
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
