package netpolicy

import (
	"encoding/json"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/wire"
)

// Prepared is a guest's request that passed the floor's checks on the
// request itself, in the normal form the rules and capabilities see: the
// capability Method and Params, and the parts sent. Only Authorize can
// mark it allowed, and an allowed Prepared can be executed once.
type Prepared struct {
	// Method is the capability method:
	// "http/<VERB>/<host>[:<port>]/<path segments>", the port only when it
	// is not the scheme's default, an IPv6 host in brackets, the path in
	// RFC 3986 normal form.
	Method string
	// Params is the capability parameters as JSON text (see the package
	// documentation for the keys).
	Params json.RawMessage

	Verb     string // upper case
	Scheme   string // "http" or "https"
	Host     string // normalized, an IPv6 address without brackets
	Port     int
	Path     string // escaped, normalized, starting with "/"
	RawQuery string // escaped ("" when none)
	// URL is the request's URL in normal form, without fragment: what
	// refusals and records show. It holds placeholders, never secrets.
	URL string

	headers [][2]string // the guest's headers, cleaned
	body    []byte
	params  *capability.Object

	policy *Policy
	// portGranted: Port is neither 80, 443 nor a rule's, and was allowed
	// because a grant outside the rules names it (PrepareNaming).
	portGranted bool
	authorized  atomic.Bool // set by Authorize, taken by Do: one request per authorization
	rule        *Rule
}

// Headers returns the request's headers as the guest sent them, less the
// ones the host manages (hop-by-hop, Host, Content-Length,
// Accept-Encoding).
func (r *Prepared) Headers() [][2]string { return append([][2]string(nil), r.headers...) }

// Body returns the request's body.
func (r *Prepared) Body() []byte { return r.body }

// Rule is the rule Authorize allowed the request under (nil before).
func (r *Prepared) Rule() *Rule { return r.rule }

// managedHeaders are request headers the host sets or drops itself: the
// hop-by-hop ones, the body framing (the host frames the body it has),
// Accept-Encoding (the host decodes gzip itself so that responses can be
// scrubbed) and proxy credentials (there is no proxy).
var managedHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "content-length": true, "accept-encoding": true,
	"proxy-authorization": true, "proxy-authenticate": true, "expect": true, "host": true,
}

func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// Prepare runs the floor's checks on the request itself (verb, URL,
// scheme, host form, port, path, headers, sizes, placeholders) and
// describes it as a capability call. It does not consult the rules
// (Authorize does) and makes no connection.
func (p *Policy) Prepare(req wire.HTTPRequest) (*Prepared, error) {
	return p.PrepareNaming(req, nil)
}

// PrepareNaming is Prepare where a port is also allowed when portNamed
// reports that a grant outside the rules names it explicitly (a
// capability pattern "http/<VERB>/<host>:<port>/..."), as a rule naming
// it would.
func (p *Policy) PrepareNaming(req wire.HTTPRequest, portNamed func(port int) bool) (*Prepared, error) {
	verb := strings.ToUpper(strings.TrimSpace(req.Method))
	if verb == "" {
		verb = "GET"
	}
	if !isToken(verb) {
		return nil, refuse(CheckMethod, "", req.Method, "not an HTTP method")
	}
	if refusedVerbs[verb] {
		return nil, refuse(CheckMethod, "", verb, verb+" is never allowed")
	}
	size := len(req.URL)
	for _, h := range req.Headers {
		size += len(h[0]) + len(h[1])
	}
	if size > MaxURLAndHeaderBytes {
		return nil, refuse(CheckRequestSize, "", strconv.Itoa(size)+" bytes",
			"the URL and headers are bigger than "+strconv.Itoa(MaxURLAndHeaderBytes)+" bytes")
	}
	if int64(len(req.Body)) > p.MaxRequestBytes {
		return nil, refuse(CheckRequestSize, "max_request_bytes", strconv.Itoa(len(req.Body))+" bytes",
			"the request body is bigger than max_request_bytes ("+strconv.FormatInt(p.MaxRequestBytes, 10)+")")
	}
	if strings.ContainsAny(req.URL, "\\ \t\r\n\x00") {
		return nil, refuse(CheckURL, "", req.URL, "a URL cannot hold a backslash, whitespace or control characters")
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, refuse(CheckURL, "", req.URL, "cannot parse the URL: "+unwrapURLError(err))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, refuse(CheckScheme, "", req.URL, "only http and https URLs are allowed")
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, refuse(CheckURL, "", req.URL, "not an absolute URL with a host (scheme://host/...)")
	}
	if u.User != nil {
		return nil, refuse(CheckURL, "", req.URL, "userinfo (user:password@host) is not accepted; send credentials in a header")
	}
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return nil, refuse(CheckHost, "", req.URL, err.Error())
	}
	port := defaultPort(scheme)
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			return nil, refuse(CheckPort, "", req.URL, "bad port "+quote(ps))
		}
		port = n
	}
	portGranted := false
	if !p.ports[port] {
		if portNamed == nil || !portNamed(port) {
			return nil, refuse(CheckPort, "", strconv.Itoa(port), "only ports 80, 443 and ports a rule or an http/ capability names are allowed")
		}
		portGranted = true
	}
	segs, err := splitPath(u.EscapedPath())
	if err != nil {
		return nil, refuse(CheckPath, "", req.URL, err.Error())
	}
	path := "/" + strings.Join(segs, "/")
	rawQuery, err := normalizeQuery(u.RawQuery)
	if err != nil {
		return nil, refuse(CheckURL, "", req.URL, err.Error())
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, refuse(CheckURL, "", req.URL, "cannot parse the query: "+err.Error())
	}
	hostPort := hostInMethod(host)
	if port != defaultPort(scheme) {
		hostPort += ":" + strconv.Itoa(port)
	}
	r := &Prepared{
		Verb: verb, Scheme: scheme, Host: host, Port: port, Path: path, RawQuery: rawQuery,
		body: req.Body, policy: p, portGranted: portGranted,
	}
	r.URL = scheme + "://" + hostPort + path
	if rawQuery != "" || u.ForceQuery {
		r.URL += "?" + rawQuery
	}
	r.Method = "http/" + verb + "/" + hostPort
	if len(segs) > 0 {
		r.Method += "/" + strings.Join(segs, "/")
	}

	headerParams := capability.NewObject()
	var contentType string
	seenContentType := false
	for _, h := range req.Headers {
		name := h[0]
		if !isToken(name) {
			return nil, refuse(CheckHeader, "", quote(name), "not a header name")
		}
		if !validHeaderValue(h[1]) {
			return nil, refuse(CheckHeader, "", name, "a header value cannot hold CR, LF, NUL or other control characters")
		}
		lower := strings.ToLower(name)
		if lower == "host" {
			if v := strings.ToLower(strings.TrimSpace(h[1])); v != hostPort && v != hostInMethod(host)+":"+strconv.Itoa(port) && v != strings.ToLower(u.Host) {
				return nil, refuse(CheckHeader, "", "Host: "+h[1], "the Host header must name the URL's host")
			}
		}
		if managedHeaders[lower] {
			continue
		}
		if lower == "content-type" {
			if seenContentType {
				// Servers disagree on which copy counts, so the body
				// the rules parse could differ from the one served.
				return nil, refuse(CheckHeader, "", name, "a repeated Content-Type header is not accepted")
			}
			contentType, seenContentType = h[1], true
		}
		r.headers = append(r.headers, [2]string{name, h[1]})
		if prev, ok := headerParams.Get(lower); ok {
			headerParams.Set(lower, prev.(string)+", "+h[1])
		} else {
			headerParams.Set(lower, h[1])
		}
	}
	if err := p.checkPlaceholders(r); err != nil {
		return nil, err
	}

	params := capability.NewObject()
	params.Set("method", verb)
	params.Set("scheme", scheme)
	params.Set("host", host)
	params.Set("port", port)
	params.Set("path", path)
	params.Set("url", r.URL)
	params.Set("query", valuesObject(query, rawQuery))
	params.Set("headers", headerParams)
	if err := p.bodyParams(r, params, contentType); err != nil {
		return nil, err
	}
	params.Set("body_size", len(req.Body))
	norm, err := capability.Normalize(params)
	if err != nil {
		return nil, refuse(CheckURL, "", r.URL, err.Error())
	}
	r.params = norm.(*capability.Object)
	r.Params = capability.MarshalValue(r.params)
	return r, nil
}

func unwrapURLError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

// valuesObject is query or form values as a params object, keys in the
// order they first appear: one value as it is, a repeated name as a list
// (so a numeric constraint fails on it rather than checking one copy). A
// value that is a JSON number is a number, so "<=50" constraints apply.
func valuesObject(vals url.Values, raw string) *capability.Object {
	o := capability.NewObject()
	for _, part := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' }) {
		k, _, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if _, done := o.Get(name); done {
			continue
		}
		vs := vals[name]
		if len(vs) == 1 {
			o.Set(name, paramValue(vs[0]))
			continue
		}
		l := make(capability.List, len(vs))
		for i, v := range vs {
			l[i] = paramValue(v)
		}
		o.Set(name, l)
	}
	return o
}

func paramValue(s string) any {
	if isJSONNumber(s) {
		if v, err := capability.ParseJSON([]byte(s)); err == nil {
			return v
		}
	}
	return s
}

// isJSONNumber: the JSON number grammar, finite values only.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s) && len(s) <= 64
}

// bodyParams adds "json" (a body that is JSON, up to MaxJSONParamBytes)
// or "form" (an application/x-www-form-urlencoded body). A JSON body with
// a repeated key is refused: servers disagree on which copy counts, so a
// constraint could check one and the server use the other.
func (p *Policy) bodyParams(r *Prepared, params *capability.Object, contentType string) error {
	if len(r.body) == 0 {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" {
		raw := string(r.body)
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return refuse(CheckBody, "", r.URL, "cannot parse the form body: "+err.Error())
		}
		params.Set("form", valuesObject(vals, raw))
		return nil
	}
	if len(r.body) > MaxJSONParamBytes {
		return nil
	}
	trimmed := strings.TrimLeft(string(r.body[:min(len(r.body), 64)]), " \t\r\n")
	isJSONType := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if !isJSONType && (trimmed == "" || trimmed[0] != '{' && trimmed[0] != '[') {
		return nil
	}
	v, err := capability.ParseJSON(r.body)
	if err != nil {
		return nil // not JSON: "json" stays absent and constraints on it fail
	}
	if k, dup := duplicateJSONKey(r.body); dup {
		return refuse(CheckBody, "", "key "+quote(k), "a JSON body with a repeated object key is not accepted")
	}
	params.Set("json", v)
	return nil
}

// duplicateJSONKey finds an object key repeated in one object of a valid
// JSON text, without recursion.
func duplicateJSONKey(data []byte) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool
		isObj  bool
		expKey bool
	}
	var stack []*frame
	for {
		t, err := dec.Token()
		if err == io.EOF || err != nil {
			return "", false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch x := t.(type) {
		case json.Delim:
			switch x {
			case '{':
				if top != nil && top.isObj {
					top.expKey = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, isObj: true, expKey: true})
			case '[':
				if top != nil && top.isObj {
					top.expKey = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.isObj && top.expKey {
				if top.keys[x] {
					return x, true
				}
				top.keys[x] = true
				top.expKey = false
			} else if top != nil && top.isObj {
				top.expKey = true
			}
		default:
			if top != nil && top.isObj {
				top.expKey = true
			}
		}
	}
}
