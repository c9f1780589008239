package netpolicy

import (
	"errors"
	"strconv"
	"strings"

	"amlasandbox/gocore/capability"
)

// Rule is one entry of a policy's allow list, parsed. A request matches it
// when its verb is one of Methods (nil: any verb), its scheme, host and
// port are the rule's, and its path matches PathPattern; it is then
// allowed when Constraints hold and MaxCalls is not spent.
type Rule struct {
	// Text names the rule in refusals and records: "allow[<i>] <VERBS>
	// <scheme>://<host>[:<port>]<path>".
	Text            string
	Methods         []string // upper case; nil = any verb
	Scheme          string   // "http" or "https"
	Host            string   // exact host, "*", or "*.example.com"
	Port            int
	PathPattern     string // segments joined by "/": "**" any path, "" only "/"
	Constraints     capability.ConstraintSet
	MaxCalls        *int64
	RequireApproval bool

	host    hostPattern
	pattern string // the capability method pattern
}

// refusedVerbs are never allowed, whatever a rule says: CONNECT would
// open a tunnel the floor cannot see into, TRACE and TRACK echo the
// request (headers with substituted secrets) back.
var refusedVerbs = map[string]bool{"CONNECT": true, "TRACE": true, "TRACK": true}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isUnreserved(c) && c != '~' || strings.IndexByte("!#$%&'*+^`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// parseVerb checks and upper-cases one verb of a rule; "*" is any verb.
func parseVerb(v string) (string, error) {
	if v == "*" {
		return v, nil
	}
	u := strings.ToUpper(v)
	if !isToken(u) || strings.ContainsAny(u, "*") {
		return "", errors.New("not an HTTP method: " + quote(v))
	}
	if refusedVerbs[u] {
		return "", errors.New(u + " is never allowed")
	}
	return u, nil
}

// ParseRule parses one rule string:
//
//	[VERBS ]<target>
//
// VERBS is one verb, a comma-separated list ("GET,HEAD") or "*"; without
// it any verb is allowed. The target is "<scheme>://<host>[:<port>][<path>]"
// with scheme http or https, or a bare "<host>[:<port>][<path>]", which
// means https. The host is a name, an IP address ("[::1]" for IPv6), "*"
// (any host) or "*.example.com" (any subdomain, at any depth). Without a
// port the scheme's default is used. Without a path any path is allowed;
// a path is matched segment by segment with the capability pattern rules
// ("*" one segment, "**" any number), so "/" allows only the root. Query
// strings, fragments and userinfo are not accepted in rules: constrain
// query parameters with "query/<name>" constraints.
func ParseRule(s string) (*Rule, error) {
	s = strings.TrimSpace(s)
	var methods []string
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		verbs := s[:i]
		s = strings.TrimSpace(s[i:])
		for _, v := range strings.Split(verbs, ",") {
			u, err := parseVerb(v)
			if err != nil {
				return nil, err
			}
			if u == "*" {
				methods = nil
				break
			}
			methods = append(methods, u)
		}
	}
	r, err := parseTarget(s)
	if err != nil {
		return nil, err
	}
	r.Methods = methods
	return r, nil
}

func parseTarget(s string) (*Rule, error) {
	if s == "" {
		return nil, errors.New("empty rule")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return nil, errors.New("a rule is \"[VERBS ]<url>\"; got more than two words")
	}
	if strings.ContainsAny(s, "?#") {
		return nil, errors.New("a rule cannot hold a query or fragment; constrain query parameters with \"query/<name>\"")
	}
	if strings.Contains(s, "\\") {
		return nil, errors.New("a backslash is not accepted in a rule")
	}
	r := &Rule{Scheme: "https"}
	if i := strings.Index(s, "://"); i >= 0 {
		r.Scheme = strings.ToLower(s[:i])
		if r.Scheme != "http" && r.Scheme != "https" {
			return nil, errors.New("scheme must be http or https: " + quote(s[:i]))
		}
		s = s[i+3:]
	}
	authority, path := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		authority, path = s[:i], s[i:]
	}
	if strings.Contains(authority, "@") {
		return nil, errors.New("userinfo (user@host) is not accepted in a rule")
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return nil, errors.New("unclosed \"[\" in host")
		}
		host, port = authority[1:end], authority[end+1:]
		if port != "" && port[0] != ':' {
			return nil, errors.New("bad text after \"]\" in host: " + quote(port))
		}
		port = strings.TrimPrefix(port, ":")
		if strings.HasPrefix(host, "*") {
			return nil, errors.New("a wildcard cannot prefix an IP address")
		}
	} else if i := strings.LastIndexByte(authority, ':'); i >= 0 {
		host, port = authority[:i], authority[i+1:]
	}
	hp, err := parseHostPattern(host)
	if err != nil {
		return nil, err
	}
	if hp.exact != "" && strings.ContainsRune(hp.exact, ':') == !strings.HasPrefix(authority, "[") {
		return nil, errors.New("an IPv6 address must be written in brackets: " + quote(authority))
	}
	r.host, r.Host = hp, hp.String()
	r.Port = defaultPort(r.Scheme)
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '+' || port[0] == '0' {
			return nil, errors.New("bad port: " + quote(port))
		}
		r.Port = n
	}
	if path == "" {
		r.PathPattern = "**"
	} else {
		segs, err := splitPath(path)
		if err != nil {
			return nil, err
		}
		for _, seg := range segs {
			if strings.Contains(seg, "*") && seg != "*" && seg != "**" {
				return nil, errors.New("\"*\" must be a whole path segment (\"*\" or \"**\"): " + quote(seg))
			}
		}
		r.PathPattern = strings.Join(segs, "/")
	}
	return r, nil
}

// finish sets the rule's display text and capability pattern.
func (r *Rule) finish(index int) {
	verbs := "*"
	if r.Methods != nil {
		verbs = strings.Join(r.Methods, ",")
	}
	r.Text = "allow[" + itoa(index) + "] " + verbs + " " + r.url()
	verbSeg := "*"
	if len(r.Methods) == 1 {
		verbSeg = r.Methods[0]
	}
	r.pattern = "http/" + verbSeg + "/" + r.hostSegment()
	if r.PathPattern != "" {
		r.pattern += "/" + r.PathPattern
	}
}

func (r *Rule) url() string {
	u := r.Scheme + "://" + hostInMethod(r.Host)
	if r.Port != defaultPort(r.Scheme) {
		u += ":" + itoa(r.Port)
	}
	if r.PathPattern == "**" {
		return u + "/**"
	}
	return u + "/" + r.PathPattern
}

func (r *Rule) hostSegment() string {
	if r.host.exact == "" {
		return "*"
	}
	h := hostInMethod(r.host.exact)
	if r.Port != defaultPort(r.Scheme) {
		h += ":" + itoa(r.Port)
	}
	return h
}

// Pattern is the capability method pattern of the rule.
func (r *Rule) Pattern() string { return r.pattern }

// Capability is the rule compiled to a capability: its pattern, the
// checks the pattern cannot express (scheme, port, host suffix, several
// verbs) as constraints in front of the rule's own, its budget and its
// approval. A capability.Policy of these capabilities decides the
// requests Prepare describes the way Authorize does, except that
// capability.Policy shares a budget between capabilities with the same
// pattern where Authorize keeps one per rule.
func (r *Rule) Capability() capability.MethodCapability {
	cs := capability.ConstraintSet{
		capability.EQ("scheme", r.Scheme),
		capability.EQ("port", r.Port),
	}
	if r.host.suffix != "" {
		cs = append(cs, capability.EndsWith("host", r.host.suffix))
	}
	if len(r.Methods) > 1 {
		vs := make([]any, len(r.Methods))
		for i, m := range r.Methods {
			vs[i] = m
		}
		cs = append(cs, capability.In("method", vs...))
	}
	cs = append(cs, r.Constraints...)
	c := capability.MethodCapability{
		MethodPattern:    r.pattern,
		Constraints:      cs,
		RequiresApproval: r.RequireApproval,
		Kind:             capability.ToolCallCapType,
	}
	if r.MaxCalls != nil {
		n := *r.MaxCalls
		c.MaxCalls = &n
	}
	return c
}

// matches reports whether the request is one the rule is about (verb,
// scheme, host, port, path), before its constraints.
func (r *Rule) matches(p *Prepared) bool {
	if r.Scheme != p.Scheme || r.Port != p.Port || !r.host.match(p.Host) {
		return false
	}
	if r.Methods != nil {
		found := false
		for _, m := range r.Methods {
			if m == p.Verb {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return capability.Match(p.Method, r.pattern)
}
