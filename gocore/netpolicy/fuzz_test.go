package netpolicy

import (
	"strings"
	"testing"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/wire"
)

// FuzzParseRule: any text parses or is refused without panicking, and a
// parsed rule's canonical form parses back to the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"api.github.com", "GET https://api.github.com/repos/**", "POST https://api.stripe.com/v1/refunds",
		"GET https://*.example.com/docs/**", "get,head http://Example.COM.:8080/", "* https://[::1]:8443/a/*/b",
		"https://x.com/a%2f%7e/%zz", "https://2130706433/", "https://x.com/a/../b", "http://[v1.x]/", "https://[::ffff:1.2.3.4]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		r.finish(0)
		if !strings.HasPrefix(r.Pattern(), "http/") {
			t.Fatalf("pattern %q", r.Pattern())
		}
		canon := strings.TrimPrefix(r.Text, "allow[0] ")
		r2, err := ParseRule(canon)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, s, err)
		}
		r2.finish(0)
		if r2.Text != r.Text || r2.Pattern() != r.Pattern() {
			t.Fatalf("%q -> %q (%q) -> %q (%q)", s, r.Text, r.Pattern(), r2.Text, r2.Pattern())
		}
	})
}

// FuzzPrepare: any request is prepared or refused without panicking; a
// prepared one has a capability method of the documented shape, params
// that are a JSON object, no dot segment, and its URL prepares to the same
// method and URL (the normal form is stable).
func FuzzPrepare(f *testing.F) {
	p, err := ParsePolicy([]byte(`{"allow": ["*", "http://*:8080"], "secrets": {"T": {"value": "secret-value", "hosts": ["api.x.com"]}}}`))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][4]string{
		{"GET", "https://api.x.com/a/b?x=1&y=2", "Authorization", "Bearer x"},
		{"post", "http://h.com:8080/%7e/%2F/?q=%zz", "Content-Type", "application/json"},
		{"GET", "https://[::1]/a//b/", "Host", "[::1]"},
		{"GET", "https://0x7f.1/", "", ""},
		{"CONNECT", "https://h.com/", "", ""},
		{"GET", "https://h.com/a/%2e%2E/b", "X", "y"},
		{"GET", "HTTPS://H.COM./?a=1;b=2", "x", "\r\n"},
	} {
		f.Add(s[0], s[1], s[2], s[3], []byte(`{"a": 1}`))
	}
	f.Fuzz(func(t *testing.T, method, url, hname, hvalue string, body []byte) {
		var headers [][2]string
		if hname != "" {
			headers = [][2]string{{hname, hvalue}}
		}
		r, err := p.Prepare(wire.HTTPRequest{Method: method, URL: url, Headers: headers, Body: body})
		if err != nil {
			if _, ok := AsRefusal(err); !ok {
				t.Fatalf("error that is not a Refusal: %v", err)
			}
			return
		}
		if !strings.HasPrefix(r.Method, "http/"+r.Verb+"/") {
			t.Fatalf("method %q", r.Method)
		}
		v, err := capability.ParseJSON(r.Params)
		if _, ok := v.(*capability.Object); err != nil || !ok {
			t.Fatalf("params %s: %v", r.Params, err)
		}
		for _, seg := range strings.Split(r.Path, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("dot segment in %q", r.Path)
			}
		}
		r2, err := p.Prepare(wire.HTTPRequest{Method: r.Verb, URL: r.URL})
		if err != nil {
			t.Fatalf("normal form %q of %q refused: %v", r.URL, url, err)
		}
		if r2.Method != r.Method || r2.URL != r.URL {
			t.Fatalf("%q -> %q %q -> %q %q", url, r.URL, r.Method, r2.URL, r2.Method)
		}
	})
}
