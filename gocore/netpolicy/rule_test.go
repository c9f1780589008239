package netpolicy

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/wire"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in      string
		methods []string
		scheme  string
		host    string
		port    int
		path    string
		pattern string
		err     string
	}{
		{in: "api.github.com", scheme: "https", host: "api.github.com", port: 443, path: "**", pattern: "http/*/api.github.com/**"},
		{in: "GET https://api.github.com/repos/**", methods: []string{"GET"}, scheme: "https", host: "api.github.com", port: 443, path: "repos/**", pattern: "http/GET/api.github.com/repos/**"},
		{in: "POST https://api.stripe.com/v1/refunds", methods: []string{"POST"}, scheme: "https", host: "api.stripe.com", port: 443, path: "v1/refunds", pattern: "http/POST/api.stripe.com/v1/refunds"},
		{in: "GET https://*.example.com/docs/**", methods: []string{"GET"}, scheme: "https", host: "*.example.com", port: 443, path: "docs/**", pattern: "http/GET/*/docs/**"},
		{in: "get,head http://Example.COM.:8080/", methods: []string{"GET", "HEAD"}, scheme: "http", host: "example.com", port: 8080, path: "", pattern: "http/*/example.com:8080"},
		{in: "* https://[::1]:8443/a/*/b", scheme: "https", host: "::1", port: 8443, path: "a/*/b", pattern: "http/*/[::1]:8443/a/*/b"},
		{in: "http://127.0.0.1:80/x", scheme: "http", host: "127.0.0.1", port: 80, path: "x", pattern: "http/*/127.0.0.1/x"},
		{in: "https://api.x.com/a%62c/%2f", scheme: "https", host: "api.x.com", port: 443, path: "abc/%2F", pattern: "http/*/api.x.com/abc/%2F"},
		{in: "*", scheme: "https", host: "*", port: 443, path: "**", pattern: "http/*/*/**"},
		{in: "ftp://x.com", err: "scheme must be http or https"},
		{in: "CONNECT x.com", err: "CONNECT is never allowed"},
		{in: "trace https://x.com", err: "TRACE is never allowed"},
		{in: "https://user@x.com", err: "userinfo"},
		{in: "https://x.com/a?b=1", err: "query"},
		{in: "https://x.com/a*b", err: "whole path segment"},
		{in: "https://x.com/a/../b", err: "dot segment"},
		{in: "https://x.com/a/%2e%2E/b", err: "dot segment"},
		{in: "https://2130706433/", err: "dotted decimal"},
		{in: "https://0x7f.1/", err: "dotted decimal"},
		{in: "https://127.1/", err: "dotted decimal"},
		{in: "https://x*.com/", err: "may only start with"},
		{in: "https://*.127.0.0.1/", err: "wildcard cannot prefix an IP"},
		{in: "https://x.com:0/", err: "bad port"},
		{in: "https://x.com:99999/", err: "bad port"},
		{in: "https://::1/", err: "not a host name"},
		{in: "https://[example.com]/", err: "brackets"},
		{in: "https://[fe80::1%25eth0]/", err: "scoped"},
		{in: "https://bücher.de/", err: "punycode"},
		{in: "GET POST https://x.com", err: "more than two words"},
		{in: "G@T https://x.com", err: "not an HTTP method"},
		{in: "", err: "empty rule"},
		{in: "https://x.com\\@y.com/", err: "backslash"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			r, err := ParseRule(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseRule(%q) error = %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRule(%q): %v", tc.in, err)
			}
			r.finish(0)
			if strings.Join(r.Methods, ",") != strings.Join(tc.methods, ",") || r.Scheme != tc.scheme ||
				r.Host != tc.host || r.Port != tc.port || r.PathPattern != tc.path || r.Pattern() != tc.pattern {
				t.Fatalf("ParseRule(%q) = methods %v scheme %s host %s port %d path %q pattern %q", tc.in,
					r.Methods, r.Scheme, r.Host, r.Port, r.PathPattern, r.Pattern())
			}
		})
	}
}

func mustPolicy(t *testing.T, js string) *Policy {
	t.Helper()
	p, err := ParsePolicy([]byte(js))
	if err != nil {
		t.Fatalf("ParsePolicy: %v", err)
	}
	return p
}

// decide runs Prepare and Authorize; it returns the rule index that
// allowed the request, or the refusal's check.
func decide(t *testing.T, p *Policy, method, url string, headers [][2]string, body string) (string, error) {
	t.Helper()
	r, err := p.Prepare(wire.HTTPRequest{Method: method, URL: url, Headers: headers, Body: []byte(body)})
	if err != nil {
		return "", err
	}
	d, err := p.Authorize(r)
	if err != nil {
		return "", err
	}
	return d.Rule.Text, nil
}

func TestRuleMatching(t *testing.T) {
	p := mustPolicy(t, `{"allow": [
		"api.github.com",
		"GET https://api.gitlab.com/repos/**",
		"GET https://*.example.com/docs/**",
		{"url": "https://api.stripe.com/v1/refunds", "methods": ["POST"],
		 "constraints": {"form/amount": "<=5000", "form/currency": ["usd", "eur"]}},
		{"url": "https://search.x.com/q", "constraints": {"query/limit": "<=50", "headers/x-mode": "startswith:safe"}},
		{"url": "POST https://llm.x.com/v1/chat", "constraints": [{"type": "le", "param": "json/max_tokens", "value": 100}]},
		"http://plain.x.com:8080/**"
	]}`)
	form := [][2]string{{"Content-Type", "application/x-www-form-urlencoded"}}
	for _, tc := range []struct {
		method, url string
		headers     [][2]string
		body        string
		rule        int // -1: refused
		check       string
	}{
		{"GET", "https://api.github.com/", nil, "", 0, ""},
		{"DELETE", "https://api.github.com/repos/a/b", nil, "", 0, ""},
		{"GET", "https://API.GitHub.com./repos", nil, "", 0, ""},
		{"GET", "http://api.github.com/", nil, "", -1, CheckAllow},      // https only
		{"GET", "https://api.github.com:8443/", nil, "", -1, CheckPort}, // no rule names 8443
		{"GET", "https://api.gitlab.com/repos/a/b/c", nil, "", 1, ""},
		{"GET", "https://api.gitlab.com/repos", nil, "", 1, ""},             // ** matches zero segments
		{"POST", "https://api.gitlab.com/repos/a", nil, "", -1, CheckAllow}, // GET only
		{"GET", "https://api.gitlab.com/users/a", nil, "", -1, CheckAllow},
		{"GET", "https://api.gitlab.com/repos/../users", nil, "", -1, CheckPath},
		{"GET", "https://api.gitlab.com/repos/%2e%2e/users", nil, "", -1, CheckPath},
		{"GET", "https://a.example.com/docs/x", nil, "", 2, ""},
		{"GET", "https://a.b.example.com/docs/", nil, "", 2, ""},
		{"GET", "https://example.com/docs/x", nil, "", -1, CheckAllow},
		{"GET", "https://evilexample.com/docs/x", nil, "", -1, CheckAllow},
		{"POST", "https://api.stripe.com/v1/refunds", form, "amount=4000&currency=usd", 3, ""},
		{"POST", "https://api.stripe.com/v1/refunds", form, "amount=6000&currency=usd", -1, CheckConstraint},
		{"POST", "https://api.stripe.com/v1/refunds", form, "amount=4000&amount=9000&currency=usd", -1, CheckConstraint},
		{"POST", "https://api.stripe.com/v1/refunds", form, "amount=4000&currency=gbp", -1, CheckConstraint},
		{"POST", "https://api.stripe.com/v1/refunds", nil, "amount=4000&currency=usd", -1, CheckConstraint}, // not a form: no form/...
		{"GET", "https://api.stripe.com/v1/refunds", nil, "", -1, CheckAllow},
		{"GET", "https://search.x.com/q?limit=20", [][2]string{{"X-Mode", "safe-1"}}, "", 4, ""},
		{"GET", "https://search.x.com/q?limit=20", [][2]string{{"X-Mode", "raw"}}, "", -1, CheckConstraint},
		{"GET", "https://search.x.com/q?limit=500", [][2]string{{"X-Mode", "safe"}}, "", -1, CheckConstraint},
		{"GET", "https://search.x.com/q?limit=20;limit=500", [][2]string{{"X-Mode", "safe"}}, "", -1, CheckURL},
		{"POST", "https://llm.x.com/v1/chat", [][2]string{{"Content-Type", "application/json"}}, `{"max_tokens": 50}`, 5, ""},
		{"POST", "https://llm.x.com/v1/chat", nil, `{"max_tokens": 500}`, -1, CheckConstraint},
		{"POST", "https://llm.x.com/v1/chat", nil, `{"max_tokens": 50, "max_tokens": 500}`, -1, CheckBody},
		{"GET", "http://plain.x.com:8080/a", nil, "", 6, ""},
		{"GET", "https://plain.x.com:8080/a", nil, "", -1, CheckAllow},
		{"CONNECT", "https://api.github.com/", nil, "", -1, CheckMethod},
		{"trace", "https://api.github.com/", nil, "", -1, CheckMethod},
		{"GET", "ftp://api.github.com/", nil, "", -1, CheckScheme},
		{"GET", "file:///etc/passwd", nil, "", -1, CheckScheme},
		{"GET", "https://user:pw@api.github.com/", nil, "", -1, CheckURL},
		{"GET", "https://2130706433/", nil, "", -1, CheckHost},
		{"GET", "https://0x7f.1/", nil, "", -1, CheckHost},
		{"GET", "https://127.1/", nil, "", -1, CheckHost},
		{"GET", "https://api.github.com\\@evil.com/", nil, "", -1, CheckURL},
		{"GET", "/relative", nil, "", -1, CheckScheme},
		{"GET", "https://api.github.com/", [][2]string{{"Host", "evil.com"}}, "", -1, CheckHeader},
		{"GET", "https://api.github.com/", [][2]string{{"Host", "api.github.com"}}, "", 0, ""},
		{"GET", "https://api.github.com/", [][2]string{{"X-A", "v\r\nInjected: 1"}}, "", -1, CheckHeader},
		{"GET", "https://api.github.com/", [][2]string{{"Bad Name", "v"}}, "", -1, CheckHeader},
		{"POST", "https://api.stripe.com/v1/refunds", [][2]string{{"Content-Type", "text/plain"}, {"Content-Type", "application/x-www-form-urlencoded"}}, "amount=1&currency=usd", -1, CheckHeader},
	} {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			got, err := decide(t, p, tc.method, tc.url, tc.headers, tc.body)
			if tc.rule < 0 {
				ref, ok := AsRefusal(err)
				if !ok || ref.Check != tc.check {
					t.Fatalf("got %q, %v; want refusal by %q", got, err, tc.check)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if want := p.Rules[tc.rule].Text; got != want {
				t.Fatalf("allowed by %q, want %q", got, want)
			}
		})
	}
}

func TestRefusalNamesRuleAndCheck(t *testing.T) {
	p := mustPolicy(t, `{"allow": [{"url": "POST https://api.stripe.com/v1/refunds", "constraints": {"json/amount": "<=5000"}, "max_calls": 1}]}`)
	_, err := decide(t, p, "POST", "https://api.stripe.com/v1/refunds", nil, `{"amount": 9000}`)
	want := "network policy: refused by the constraint check: Constraint violation: json/amount <= 5000, actual: 9000 (https://api.stripe.com/v1/refunds) [allow[0] POST https://api.stripe.com/v1/refunds]"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if _, err := decide(t, p, "POST", "https://api.stripe.com/v1/refunds", nil, `{"amount": 10}`); err != nil {
		t.Fatal(err)
	}
	_, err = decide(t, p, "POST", "https://api.stripe.com/v1/refunds", nil, `{"amount": 10}`)
	if ref, ok := AsRefusal(err); !ok || ref.Check != CheckMaxCalls || ref.Rule != "allow[0] POST https://api.stripe.com/v1/refunds" {
		t.Fatalf("third call: %v", err)
	}
	if w := ToWire(err); w.Check != CheckMaxCalls || w.Rule != "allow[0] POST https://api.stripe.com/v1/refunds" || w.Message != err.Error() {
		t.Fatalf("ToWire = %+v", w)
	}
	if left := p.CallsLeft(); left[0] != 0 {
		t.Fatalf("CallsLeft = %v", left)
	}
	_, err = decide(t, p, "GET", "https://other.com/", nil, "")
	if err == nil || !strings.Contains(err.Error(), "no rule allows this request; rules: POST https://api.stripe.com/v1/refunds") {
		t.Fatalf("got %v", err)
	}
}

func TestRefusalValueBounded(t *testing.T) {
	p := mustPolicy(t, `{}`)
	_, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: "ftp://x.com/" + strings.Repeat("é", 5000)})
	ref := wantCheck(t, err, CheckScheme)
	if len(ref.Value) > maxRefusalValue+3 || !strings.HasSuffix(ref.Value, "...") || !utf8.ValidString(ref.Value) {
		t.Fatalf("Value of %d bytes: %q", len(ref.Value), ref.Value)
	}
}

func TestCapabilityMethodAndParams(t *testing.T) {
	p := mustPolicy(t, `{"allow": ["*", "http://*:8080"], "allow_private": []}`)
	r, err := p.Prepare(wire.HTTPRequest{
		Method: "post",
		URL:    "https://Api.Example.com/v1/a%7eb/c%2fd/?q=1&q=2&limit=50&name=x%20y&n=007#frag",
		Headers: [][2]string{
			{"Content-Type", "application/json"}, {"X-Tag", "a"}, {"x-tag", "b"},
			{"Connection", "close"}, {"Accept-Encoding", "br"},
		},
		Body: []byte(`{"limit": 5, "items": [1, {"k": "v"}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "http/POST/api.example.com/v1/a~b/c%2Fd/"; r.Method != want {
		t.Fatalf("Method = %q, want %q", r.Method, want)
	}
	want := `{"method": "POST", "scheme": "https", "host": "api.example.com", "port": 443, "path": "/v1/a~b/c%2Fd/", ` +
		`"url": "https://api.example.com/v1/a~b/c%2Fd/?q=1&q=2&limit=50&name=x%20y&n=007", ` +
		`"query": {"q": [1, 2], "limit": 50, "name": "x y", "n": "007"}, ` +
		`"headers": {"content-type": "application/json", "x-tag": "a, b"}, ` +
		`"json": {"limit": 5, "items": [1, {"k": "v"}]}, "body_size": 38}`
	if string(r.Params) != want {
		t.Fatalf("Params =\n%s\nwant\n%s", r.Params, want)
	}
	for _, h := range r.Headers() {
		if h[0] == "Connection" || h[0] == "Accept-Encoding" {
			t.Fatalf("managed header %s kept", h[0])
		}
	}
	for _, tc := range []struct{ url, method string }{
		{"http://h.com:8080/", "http/GET/h.com:8080"},
		{"https://h.com:443/a/", "http/GET/h.com/a/"},
		{"http://[::1]:8080/x", "http/GET/[::1]:8080/x"},
		{"https://h.com/a b/ü", "http/GET/h.com/a%20b/%C3%BC"},
		{"https://h.com//x", "http/GET/h.com//x"},
		{"https://h.com/**", "http/GET/h.com/**"},
	} {
		r, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: tc.url})
		if tc.url == "https://h.com/a b/ü" {
			// Whitespace in a URL is refused outright.
			if ref, ok := AsRefusal(err); !ok || ref.Check != CheckURL {
				t.Fatalf("%s: %v", tc.url, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if r.Method != tc.method {
			t.Fatalf("%s: Method = %q, want %q", tc.url, r.Method, tc.method)
		}
	}
}

// The rules compiled to capabilities decide like Authorize, and a plain
// ToolCallCap over the same method and params works too.
func TestCompiledCapabilities(t *testing.T) {
	p := mustPolicy(t, `{"allow": [
		"GET https://api.github.com/repos/**",
		"GET,HEAD https://*.example.com/docs/**",
		{"url": "POST https://api.stripe.com/v1/refunds", "constraints": {"form/amount": "<=5000"}},
		"http://127.0.0.1:8080/x"
	]}`)
	cp := capability.NewPolicy(p.Capabilities())
	limit := int64(1)
	user := capability.NewPolicy([]capability.MethodCapability{{MethodPattern: "http/GET/api.github.com/**", MaxCalls: &limit}})
	form := [][2]string{{"Content-Type", "application/x-www-form-urlencoded"}}
	for _, tc := range []struct {
		method, url string
		headers     [][2]string
		body        string
	}{
		{"GET", "https://api.github.com/repos/a", nil, ""},
		{"GET", "https://api.github.com/users/a", nil, ""},
		{"POST", "https://api.github.com/repos/a", nil, ""},
		{"GET", "http://api.github.com/repos/a", nil, ""},
		{"HEAD", "https://x.example.com/docs/a", nil, ""},
		{"PUT", "https://x.example.com/docs/a", nil, ""},
		{"GET", "https://example.com/docs/a", nil, ""},
		{"GET", "https://x.example.com:8080/docs/a", nil, ""},
		{"POST", "https://api.stripe.com/v1/refunds", form, "amount=10"},
		{"POST", "https://api.stripe.com/v1/refunds", form, "amount=10000"},
		{"GET", "http://127.0.0.1:8080/x", nil, ""},
		{"GET", "https://127.0.0.1:8080/x", nil, ""},
	} {
		r, err := p.Prepare(wire.HTTPRequest{Method: tc.method, URL: tc.url, Headers: tc.headers, Body: []byte(tc.body)})
		if err != nil {
			if ref, ok := AsRefusal(err); ok && ref.Check == CheckPort {
				continue
			}
			t.Fatalf("%s %s: %v", tc.method, tc.url, err)
		}
		_, authErr := p.Authorize(r)
		capErr := cp.Check(r.Method, r.Params)
		if (authErr == nil) != (capErr == nil) {
			t.Fatalf("%s %s: Authorize %v, compiled capabilities %v", tc.method, tc.url, authErr, capErr)
		}
		if tc.url == "https://api.github.com/repos/a" && tc.method == "GET" {
			if err := user.Authorize(r.Method, json.RawMessage(r.Params)); err != nil {
				t.Fatalf("ToolCallCap: %v", err)
			}
			if err := user.Authorize(r.Method, json.RawMessage(r.Params)); err == nil {
				t.Fatal("ToolCallCap max_calls=1 allowed a second call")
			}
		}
	}
}

func TestPolicyConfigErrors(t *testing.T) {
	for _, tc := range []struct{ js, field string }{
		{`[]`, ""},
		{`{"alow": []}`, "alow"},
		{`{"allow": "x.com"}`, "allow"},
		{`{"allow": [1]}`, "allow[0]"},
		{`{"allow": ["x.com", "ftp://y"]}`, "allow[1]"},
		{`{"allow": [{"url": "x.com", "methods": "GET"}]}`, "allow[0].methods"},
		{`{"allow": [{"url": "x.com", "methods": []}]}`, "allow[0].methods"},
		{`{"allow": [{"url": "x.com", "methods": ["CONNECT"]}]}`, "allow[0].methods[0]"},
		{`{"allow": [{"url": "GET x.com", "methods": ["GET"]}]}`, "allow[0].methods"},
		{`{"allow": [{"url": "x.com", "constraints": {"a": "~5"}}]}`, "allow[0].constraints.a"},
		{`{"allow": [{"url": "x.com", "constraints": {"a": "<=abc"}}]}`, "allow[0].constraints.a"},
		{`{"allow": [{"url": "x.com", "constraints": [{"type": "nope", "param": "a"}]}]}`, "allow[0].constraints[0]"},
		{`{"allow": [{"url": "x.com", "max_calls": -1}]}`, "allow[0].max_calls"},
		{`{"allow": [{"url": "x.com", "max_calls": true}]}`, "allow[0].max_calls"},
		{`{"allow": [{"url": "x.com", "require_approval": 1}]}`, "allow[0].require_approval"},
		{`{"allow": [{"url": "x.com", "extra": 1}]}`, "allow[0].extra"},
		{`{"allow": [{"methods": ["GET"]}]}`, "allow[0].url"},
		{`{"max_requests": -1}`, "max_requests"},
		{`{"max_requests": 1.5}`, "max_requests"},
		{`{"max_concurrent": 0}`, "max_concurrent"},
		{`{"timeout": 0}`, "timeout"},
		{`{"timeout": "30"}`, "timeout"},
		{`{"timeout": Infinity}`, "timeout"},
		{`{"allow_private": ["10.0.0.0/33"]}`, "allow_private[0]"},
		{`{"allow_private": [""]}`, "allow_private[0]"},
		{`{"allow_private": [7]}`, "allow_private[0]"},
		{`{"extra_ca_certs": "/etc/ssl/cert.pem"}`, "extra_ca_certs"},
		{`{"secrets": {"GH": {"value": "secret-value"}}}`, "secrets.GH.hosts"},
		{`{"secrets": {"GH": {"value": "secret-value", "hosts": []}}}`, "secrets.GH.hosts"},
		{`{"secrets": {"GH": {"value": "secret-value", "hosts": ["*"]}}}`, "secrets.GH.hosts[0]"},
		{`{"secrets": {"GH": {"value": "abc", "hosts": ["x.com"]}}}`, "secrets.GH.value"},
		{`{"secrets": {"GH": {"value": "a\nbcdef", "hosts": ["x.com"]}}}`, "secrets.GH.value"},
		{`{"secrets": {"GH": {"value": "secret-value", "hosts": ["x.com"], "where": ["cookie"]}}}`, "secrets.GH.where[0]"},
		{`{"secrets": {"GH-1": {"value": "secret-value", "hosts": ["x.com"]}}}`, "secrets.GH-1"},
		{`{"secrets": {"GH": {"value": "secret-value", "hosts": ["x.com"], "expose": "no"}}}`, "secrets.GH.expose"},
		{`{"inject_headers": {"x.com": {"Authorization": "Bearer {NOPE}"}}}`, "inject_headers.x.com.Authorization"},
		{`{"secrets": {"K": {"value": "secret-value", "hosts": ["x.com"]}}, "inject_headers": {"y.com": {"Authorization": "Bearer {K}"}}}`, "inject_headers.y.com.Authorization"},
		{`{"inject_headers": {"x.com": {"Bad Name": "v"}}}`, "inject_headers.x.com.Bad Name"},
		{`{"inject_headers": {"x.com": {"X": "a\r\nb"}}}`, "inject_headers.x.com.X"},
	} {
		_, err := ParsePolicy([]byte(tc.js))
		ce, ok := err.(*ConfigError)
		if !ok || ce.Field != tc.field {
			t.Errorf("ParsePolicy(%s) = %v; want a ConfigError on field %q", tc.js, err, tc.field)
		}
	}
}

func TestPolicyDefaults(t *testing.T) {
	p := mustPolicy(t, `{}`)
	if p.MaxRequests != 100 || p.MaxRequestBytes != 10<<20 || p.MaxResponseBytes != 10<<20 ||
		p.Timeout != DefaultTimeout || p.MaxConcurrent != 8 || len(p.Rules) != 0 {
		t.Fatalf("defaults: %+v", p)
	}
	if _, err := decide(t, p, "GET", "https://example.com/", nil, ""); err == nil {
		t.Fatal("an empty allow list allowed a request")
	}
	p = mustPolicy(t, `{"allow": ["http://a.com:8080", {"url": "b.com"}], "timeout": 1.5, "max_concurrent": 2}`)
	if got := p.Ports(); len(got) != 3 || got[0] != 80 || got[1] != 443 || got[2] != 8080 {
		t.Fatalf("Ports = %v", got)
	}
	if p.Rules[1].Text != "allow[1] GET https://b.com/**" {
		t.Fatalf("object rule without methods: %q", p.Rules[1].Text)
	}
	if p.Timeout.Seconds() != 1.5 || p.MaxConcurrent != 2 {
		t.Fatalf("timeout %v max_concurrent %d", p.Timeout, p.MaxConcurrent)
	}
}
