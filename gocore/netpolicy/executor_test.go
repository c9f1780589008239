package netpolicy

import (
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

// serverPolicy builds a policy whose rules are rules with "{srv}" replaced
// by the server's host:port.
func serverPolicy(t *testing.T, srv *httptest.Server, js string) *Policy {
	t.Helper()
	hostPort := strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://")
	js = strings.ReplaceAll(js, "{srv}", hostPort)
	if srv.TLS != nil {
		cert := srv.Certificate()
		pemText := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
		b, _ := json.Marshal(pemText)
		js = strings.Replace(js, "{", `{"extra_ca_certs": `+string(b)+`, `, 1)
	}
	return mustPolicy(t, js)
}

func newExec(t *testing.T, p *Policy, opts ...ExecutorOption) *Executor {
	t.Helper()
	e, err := NewExecutor(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// do prepares, authorizes and executes one request.
func do(t *testing.T, p *Policy, e *Executor, req wire.HTTPRequest) (*wire.HTTPResponse, error) {
	t.Helper()
	r, err := p.Prepare(req)
	if err != nil {
		return nil, err
	}
	if _, err := p.Authorize(r); err != nil {
		return nil, err
	}
	return e.Do(context.Background(), r, time.Time{})
}

func wantCheck(t *testing.T, err error, check string) *Refusal {
	t.Helper()
	ref, ok := AsRefusal(err)
	if !ok || ref.Check != check {
		t.Fatalf("got %v; want a refusal by the %q check", err, check)
	}
	return ref
}

func header(resp *wire.HTTPResponse, name string) string {
	for _, h := range resp.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

func TestExecutorHTTP(t *testing.T) {
	var seen atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Method + " " + r.RequestURI + " host=" + r.Host + " ua=" + r.UserAgent() + " ae=" + r.Header.Get("Accept-Encoding"))
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echo", string(body))
		w.WriteHeader(201)
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	// A proxy in the environment is ignored (Go never proxies loopback
	// addresses, so the request goes to a name).
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	p := mustPolicy(t, `{"allow": ["http://app.test:`+port+`/**"], "allow_private": ["127.0.0.1"]}`)
	e := newExec(t, p, WithLookup(func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "app.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}))
	base := "http://app.test:" + port
	resp, err := do(t, p, e, wire.HTTPRequest{
		Method:  "POST",
		URL:     base + "/a/%7Euser/x%2fy?q=1#frag",
		Headers: [][2]string{{"Accept-Encoding", "br"}, {"Connection", "upgrade"}},
		Body:    []byte("payload"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 201 || string(resp.Body) != "hello" || header(resp, "X-Echo") != "payload" ||
		header(resp, "Content-Length") != "5" || resp.URL != base+"/a/~user/x%2Fy?q=1" || resp.StatusText != "Created" {
		t.Fatalf("response %+v", resp)
	}
	if got, want := seen.Load(), "POST /a/~user/x%2Fy?q=1 host=app.test:"+port+" ua=amla-sandbox ae=gzip"; got != want {
		t.Fatalf("server saw %q, want %q", got, want)
	}
	head, err := do(t, p, e, wire.HTTPRequest{Method: "HEAD", URL: base + "/h"})
	if err != nil || len(head.Body) != 0 || header(head, "Content-Length") != "5" {
		t.Fatalf("HEAD: %v %+v", err, head)
	}
	if e.Requests() != 2 {
		t.Fatalf("Requests() = %d", e.Requests())
	}
}

func TestExecutorAddressFloor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
	defer srv.Close()
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	rules := `{"allow": ["http://*:` + port + `/**"]%s}`

	// No allow_private: loopback is refused, by address and by name.
	p := mustPolicy(t, fmt.Sprintf(rules, ""))
	e := newExec(t, p)
	for _, u := range []string{
		srv.URL + "/",
		"http://localhost:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://[64:ff9b::7f00:1]:" + port + "/",
		"http://[::1]:" + port + "/",
	} {
		_, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: u})
		ref := wantCheck(t, err, CheckAddress)
		if !strings.Contains(ref.Error(), "allow_private") {
			t.Fatalf("%s: %v", u, ref)
		}
	}
	// Names that resolve to special addresses (a rebinding resolver).
	lookups := map[string][]netip.Addr{
		"rebind.test":  {netip.MustParseAddr("127.0.0.1")},
		"mapped.test":  {netip.MustParseAddr("::ffff:127.0.0.1")},
		"nat64.test":   {netip.MustParseAddr("64:ff9b::a9fe:a9fe")},
		"meta.test":    {netip.MustParseAddr("169.254.169.254")},
		"sixtofour.ex": {netip.MustParseAddr("2002:7f00:1::1")},
	}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := lookups[host]; ok {
			return a, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	e2 := newExec(t, p, WithLookup(lookup))
	for host := range lookups {
		_, err := do(t, p, e2, wire.HTTPRequest{Method: "GET", URL: "http://" + host + ":" + port + "/"})
		wantCheck(t, err, CheckAddress)
	}
	// Numeric host forms a resolver would read as 127.0.0.1 never get
	// that far.
	for _, h := range []string{"2130706433", "0x7f.1", "127.1", "0x7f000001", "017700000001"} {
		_, err := do(t, p, e2, wire.HTTPRequest{Method: "GET", URL: "http://" + h + ":" + port + "/"})
		wantCheck(t, err, CheckHost)
	}

	// allow_private naming the address, or the name, lets it through.
	for _, ap := range []string{`, "allow_private": ["127.0.0.0/8"]`, `, "allow_private": ["localhost", "::1"]`} {
		p := mustPolicy(t, fmt.Sprintf(rules, ap))
		e := newExec(t, p)
		resp, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: "http://localhost:" + port + "/"})
		if err != nil || string(resp.Body) != "reached" {
			t.Fatalf("allow_private %s: %v", ap, err)
		}
	}
}

func TestExecutorTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secure "+r.Proto)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	defer srv.Close()
	p := serverPolicy(t, srv, `{"allow": ["https://{srv}"], "allow_private": ["127.0.0.1"]}`)
	e := newExec(t, p)
	resp, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/x"})
	if err != nil || string(resp.Body) != "secure HTTP/1.1" {
		t.Fatalf("%v %+v", err, resp)
	}
	// Without the server's certificate as an extra CA, verification fails
	// (nothing the guest sends can turn it off).
	p2 := mustPolicy(t, strings.ReplaceAll(`{"allow": ["https://{srv}"], "allow_private": ["127.0.0.1"]}`, "{srv}", strings.TrimPrefix(srv.URL, "https://")))
	e2 := newExec(t, p2, WithSystemRoots(nil))
	_, err = do(t, p2, e2, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/x", Headers: [][2]string{{"X-Verify", "false"}}})
	ref := wantCheck(t, err, CheckTransport)
	if !strings.Contains(ref.Reason, "certificate") {
		t.Fatalf("unverified TLS: %v", ref)
	}
	// The extra CA is added to whatever roots there are, even none.
	e3 := newExec(t, p, WithSystemRoots(nil))
	if _, err := do(t, p, e3, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/x"}); err != nil {
		t.Fatal(err)
	}
}

func TestExecutorRedirectReturned(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		fmt.Fprint(w, "followed")
	}))
	defer srv.Close()
	p := serverPolicy(t, srv, `{"allow": ["http://{srv}/**"], "allow_private": ["127.0.0.1"]}`)
	e := newExec(t, p)
	resp, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/start"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 302 || header(resp, "Location") != "http://169.254.169.254/latest/meta-data/" || hits.Load() != 1 {
		t.Fatalf("status %d location %q hits %d", resp.Status, header(resp, "Location"), hits.Load())
	}
	// Following the redirect is a new request, checked again.
	_, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: header(resp, "Location")})
	wantCheck(t, err, CheckAllow)
}

func TestExecutorResponseSize(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 1000
		if r.URL.Path == "/big" {
			n = 1001
		}
		if r.URL.Path == "/gzipbomb" {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(make([]byte, 1<<20))
			zw.Close()
			return
		}
		w.Write([]byte(strings.Repeat("x", n)))
	}))
	defer srv.Close()
	p := serverPolicy(t, srv, `{"allow": ["http://{srv}/**"], "allow_private": ["127.0.0.1"], "max_response_bytes": 1000, "max_request_bytes": 10}`)
	e := newExec(t, p)
	if resp, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/ok"}); err != nil || len(resp.Body) != 1000 {
		t.Fatalf("1000 bytes: %v", err)
	}
	_, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/big"})
	wantCheck(t, err, CheckResponseSize)
	_, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/gzipbomb"})
	wantCheck(t, err, CheckResponseSize)
	_, err = do(t, p, e, wire.HTTPRequest{Method: "POST", URL: srv.URL + "/ok", Body: []byte("01234567890")})
	wantCheck(t, err, CheckRequestSize)
}

func TestExecutorTimeoutAndDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slowbody" {
			w.Header().Set("Content-Length", "10")
			w.Write([]byte("12345"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	p := serverPolicy(t, srv, `{"allow": ["http://{srv}/**"], "allow_private": ["127.0.0.1"], "timeout": 0.2}`)
	e := newExec(t, p)
	for _, path := range []string{"/slow", "/slowbody"} {
		start := time.Now()
		_, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + path})
		wantCheck(t, err, CheckTimeout)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%s: timed out after %v", path, d)
		}
	}
	// The run's deadline shortens the timeout, and a passed one refuses.
	r, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: srv.URL + "/slow"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Authorize(r); err != nil {
		t.Fatal(err)
	}
	pl := mustPolicy(t, strings.Replace(`{"allow": ["http://{srv}/**"], "allow_private": ["127.0.0.1"], "timeout": 30}`, "{srv}", strings.TrimPrefix(srv.URL, "http://"), 1))
	el := newExec(t, pl)
	rl, _ := pl.Prepare(wire.HTTPRequest{Method: "GET", URL: srv.URL + "/slow"})
	pl.Authorize(rl)
	start := time.Now()
	_, err = el.Do(context.Background(), rl, time.Now().Add(150*time.Millisecond))
	wantCheck(t, err, CheckTimeout)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("deadline not applied: %v", d)
	}
	_, err = e.Do(context.Background(), r, time.Now().Add(-time.Second))
	wantCheck(t, err, CheckDeadline)
}

func TestExecutorLimits(t *testing.T) {
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			old := peak.Load()
			if n <= old || peak.CompareAndSwap(old, n) {
				break
			}
		}
		if r.URL.Path == "/wait" {
			<-release
		}
		inFlight.Add(-1)
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	p := serverPolicy(t, srv, `{"allow": ["http://{srv}/**"], "allow_private": ["127.0.0.1"], "max_concurrent": 2, "max_requests": 5}`)
	e := newExec(t, p)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/wait"})
			errs <- err
		}()
	}
	// Wait until two requests are in the server; the others must wait
	// for a slot.
	for deadline := time.Now().Add(2 * time.Second); inFlight.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := inFlight.Load(); n != 2 {
		t.Fatalf("%d requests in flight, want 2", n)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if peak.Load() != 2 {
		t.Fatalf("peak concurrency %d, want 2", peak.Load())
	}
	if _, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/x"}); err != nil {
		t.Fatal(err)
	}
	_, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/x"})
	ref := wantCheck(t, err, CheckMaxRequests)
	if ref.Rule != "max_requests" {
		t.Fatalf("refusal %+v", ref)
	}
}

func TestExecutorNeedsAuthorize(t *testing.T) {
	p := mustPolicy(t, `{"allow": ["x.com"]}`)
	e := newExec(t, p)
	r, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: "https://x.com/"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Do(context.Background(), r, time.Time{})
	wantCheck(t, err, CheckNotAllowed)
	other := mustPolicy(t, `{"allow": ["x.com"]}`)
	if _, err := other.Authorize(r); err == nil {
		t.Fatal("a policy authorized another policy's request")
	}
	if _, err := p.Authorize(r); err != nil {
		t.Fatal(err)
	}
	_, err = newExec(t, other).Do(context.Background(), r, time.Time{})
	wantCheck(t, err, CheckNotAllowed)
	// One authorization is one request.
	if _, err := e.Do(context.Background(), r, time.Now().Add(-time.Second)); err == nil {
		t.Fatal("made a request past the deadline")
	}
	_, err = e.Do(context.Background(), r, time.Time{})
	wantCheck(t, err, CheckNotAllowed)
}

// echoServer answers with everything it received, in the encodings a
// careless server might echo a credential in.
func echoServer(t *testing.T) *httptest.Server {
	return httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		tok := strings.TrimPrefix(auth, "Bearer ")
		var b strings.Builder
		fmt.Fprintf(&b, "auth=%s\nquery=%s\npath=%s\nbody=%s\n", auth, r.URL.RawQuery, r.URL.EscapedPath(), body)
		for _, v := range []string{tok, "user:" + tok, "ab:" + tok + ":cd"} {
			fmt.Fprintf(&b, "std=%s\nurl=%s\nraw=%s\n", base64.StdEncoding.EncodeToString([]byte(v)),
				base64.URLEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)))
		}
		fmt.Fprintf(&b, "qesc=%s\npesc=%s\n", url.QueryEscape(tok), url.PathEscape(tok))
		js, _ := json.Marshal(map[string]string{"token": tok})
		b.Write(js)
		w.Header().Set("X-Seen-Auth", auth)
		if r.URL.Query().Get("gzip") == "1" {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write([]byte(b.String()))
			zw.Close()
			return
		}
		if r.URL.Query().Get("br") == "1" {
			w.Header().Set("Content-Encoding", "br")
		}
		w.Write([]byte(b.String()))
	}))
}

const secretValue = "s3cr3t/Value+with=odd&chars<>~"

func TestSecretsSubstitutedAndScrubbed(t *testing.T) {
	srv := echoServer(t)
	defer srv.Close()
	p := serverPolicy(t, srv, `{"allow": ["* https://{srv}/**", "GET http://plain.example.com/**", "https://other.example.com"],
		"allow_private": ["127.0.0.1"],
		"secrets": {
			"TOKEN": {"value": "`+secretValue+`", "hosts": ["127.0.0.1"]},
			"QTOKEN": {"value": "query-secret-123456", "hosts": ["127.0.0.1"], "where": ["query", "header"]},
			"BTOKEN": {"value": "body/path secret 789", "hosts": ["127.0.0.1"], "where": ["body", "path"]},
			"HIDDEN": {"value": "hidden-secret-abcdef", "hosts": ["127.0.0.1"], "expose": false}
		}}`)
	e := newExec(t, p)
	ph := p.Placeholders()
	tok := ph["TOKEN"]
	if !strings.HasPrefix(tok, "amla_secret_TOKEN_") || len(tok) != len("amla_secret_TOKEN_")+32 {
		t.Fatalf("placeholder %q", tok)
	}
	if _, ok := ph["HIDDEN"]; ok {
		t.Fatal("an expose=False secret has an environment placeholder")
	}
	check := func(resp *wire.HTTPResponse, values ...string) {
		t.Helper()
		all := string(resp.Body)
		for _, h := range resp.Headers {
			all += "\n" + h[0] + ": " + h[1]
		}
		for _, v := range values {
			forms := []string{v, url.QueryEscape(v), url.PathEscape(v)}
			for _, x := range []string{v, "user:" + v, "ab:" + v + ":cd"} {
				forms = append(forms, base64.StdEncoding.EncodeToString([]byte(x)),
					base64.URLEncoding.EncodeToString([]byte(x)), base64.RawURLEncoding.EncodeToString([]byte(x)))
			}
			for _, f := range forms {
				if strings.Contains(all, f) {
					t.Fatalf("response holds the secret as %q:\n%s", f, all)
				}
			}
			for i := 0; i+12 <= len(v); i++ {
				if strings.Contains(all, v[i:i+12]) {
					t.Fatalf("response holds a 12-byte piece of the secret %q:\n%s", v[i:i+12], all)
				}
			}
		}
	}

	// A placeholder in a header, sent over https to the secret's host:
	// the server gets the value, the guest gets it back scrubbed.
	resp, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo", Headers: [][2]string{{"Authorization", "Bearer " + tok}}})
	if err != nil {
		t.Fatal(err)
	}
	check(resp, secretValue)
	if !strings.Contains(string(resp.Body), "auth=Bearer "+tok+"\n") || header(resp, "X-Seen-Auth") != "Bearer "+tok {
		t.Fatalf("the server did not get the secret, or the scrub missed:\n%s", resp.Body)
	}
	if !strings.Contains(string(resp.Body), `{"token":"`+tok+`"}`) {
		t.Fatalf("JSON-escaped echo not scrubbed to the placeholder:\n%s", resp.Body)
	}
	// Basic credentials built by the client (requests' auth=(user, token)).
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+tok))
	resp, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo", Headers: [][2]string{{"Authorization", basic}}})
	if err != nil {
		t.Fatal(err)
	}
	check(resp, secretValue)
	if header(resp, "X-Seen-Auth") == basic {
		t.Fatal("the Basic credentials were sent with the placeholder")
	}
	// gzip responses are decoded, then scrubbed.
	resp, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo?gzip=1", Headers: [][2]string{{"Authorization", "Bearer " + tok}}})
	if err != nil {
		t.Fatal(err)
	}
	check(resp, secretValue)
	if !strings.Contains(string(resp.Body), "auth=Bearer "+tok) {
		t.Fatalf("gzip body: %s", resp.Body)
	}
	// An encoding the host cannot scrub is refused for a secret-bearing
	// request.
	_, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo?br=1", Headers: [][2]string{{"Authorization", "Bearer " + tok}}})
	wantCheck(t, err, CheckEncoding)
	// A query secret where its policy allows query.
	qt := ph["QTOKEN"]
	resp, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo?key=" + qt})
	if err != nil {
		t.Fatal(err)
	}
	check(resp, "query-secret-123456")
	if !strings.Contains(string(resp.Body), "query=key="+qt) {
		t.Fatalf("query secret: %s", resp.Body)
	}

	// A body and path secret.
	bt := ph["BTOKEN"]
	resp, err = do(t, p, e, wire.HTTPRequest{Method: "POST", URL: srv.URL + "/echo/" + bt, Body: []byte("k=" + bt)})
	if err != nil {
		t.Fatal(err)
	}
	check(resp, "body/path secret 789")
	if !strings.Contains(string(resp.Body), "path=/echo/"+bt+"\n") || !strings.Contains(string(resp.Body), "body=k="+bt+"\n") {
		t.Fatalf("body/path secret: %s", resp.Body)
	}

	// Misplaced placeholders: refused before anything is sent.
	hidden := p.secret("HIDDEN").Placeholder
	for _, tc := range []struct {
		name string
		req  wire.HTTPRequest
		rule string
	}{
		{"in the body", wire.HTTPRequest{Method: "POST", URL: srv.URL + "/echo", Body: []byte("t=" + tok)}, "secrets.TOKEN"},
		{"in the query", wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo?t=" + tok}, "secrets.TOKEN"},
		{"in the path", wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo/" + tok}, "secrets.TOKEN"},
		{"in a header name", wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo", Headers: [][2]string{{"X-" + tok, "1"}}}, "secrets.TOKEN"},
		{"over http", wire.HTTPRequest{Method: "GET", URL: "http://plain.example.com/", Headers: [][2]string{{"Authorization", "Bearer " + tok}}}, "secrets.TOKEN"},
		{"to another host", wire.HTTPRequest{Method: "GET", URL: "https://other.example.com/", Headers: [][2]string{{"Authorization", "Bearer " + tok}}}, "secrets.TOKEN"},
		{"in the host", wire.HTTPRequest{Method: "GET", URL: "https://" + strings.ToLower(tok) + ".example.com/"}, "secrets.TOKEN"},
		{"not exposed", wire.HTTPRequest{Method: "GET", URL: srv.URL + "/echo", Headers: [][2]string{{"Authorization", "Bearer " + hidden}}}, "secrets.HIDDEN"},
	} {
		_, err := do(t, p, e, tc.req)
		ref := wantCheck(t, err, CheckSecret)
		if ref.Rule != tc.rule || strings.Contains(ref.Error(), secretValue) {
			t.Fatalf("%s: refusal %+v", tc.name, ref)
		}
	}
	if strings.Contains(fmt.Sprint(p.Secrets()), secretValue) {
		t.Fatal("Secrets() holds a value")
	}
}

func TestInjectHeaders(t *testing.T) {
	srv := echoServer(t)
	defer srv.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer plain.Close()
	port := plain.URL[strings.LastIndexByte(plain.URL, ':')+1:]
	p := serverPolicy(t, srv, `{"allow": ["https://{srv}/**", "http://127.0.0.1:`+port+`/**"], "allow_private": ["127.0.0.1"],
		"secrets": {"STRIPE_KEY": {"value": "sk_live_0123456789abcdef", "hosts": ["127.0.0.1"], "expose": false}},
		"inject_headers": {"127.0.0.1": {"Authorization": "Bearer {STRIPE_KEY}", "X-Client": "amla"}}}`)
	e := newExec(t, p)
	if len(p.Placeholders()) != 0 {
		t.Fatal("expose=False secret exposed")
	}
	resp, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/x", Headers: [][2]string{{"authorization", "Bearer guess"}}})
	if err != nil {
		t.Fatal(err)
	}
	ph := p.secret("STRIPE_KEY").Placeholder
	if !strings.Contains(string(resp.Body), "auth=Bearer "+ph+"\n") || strings.Contains(string(resp.Body), "sk_live") {
		t.Fatalf("injected header not sent or not scrubbed:\n%s", resp.Body)
	}
	// Over http the injected secret is refused.
	_, err = do(t, p, e, wire.HTTPRequest{Method: "GET", URL: plain.URL + "/x"})
	ref := wantCheck(t, err, CheckSecret)
	if ref.Rule != "inject_headers.127.0.0.1" {
		t.Fatalf("refusal %+v", ref)
	}
}

func TestSetPlaceholders(t *testing.T) {
	js := `{"secrets": {"A": {"value": "value-a-123", "hosts": ["a.com"]}}}`
	p1, p2 := mustPolicy(t, js), mustPolicy(t, js)
	if p1.Placeholders()["A"] == p2.Placeholders()["A"] {
		t.Fatal("two policies drew the same placeholder")
	}
	if err := p2.SetPlaceholders(p1.Placeholders()); err != nil {
		t.Fatal(err)
	}
	if p1.Placeholders()["A"] != p2.Placeholders()["A"] || p2.Scrub("x value-a-123 y") != "x "+p1.Placeholders()["A"]+" y" {
		t.Fatal("SetPlaceholders did not take")
	}
	for _, bad := range []map[string]string{{}, {"A": "amla_secret_A_xyz"}, {"A": "amla_secret_B_" + strings.Repeat("0", 32)}} {
		if err := p2.SetPlaceholders(bad); err == nil {
			t.Fatalf("SetPlaceholders(%v) accepted", bad)
		}
	}
}

// A request waiting for a max_concurrent slot waits within its timeout.
func TestExecutorSlotWaitTimesOut(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}))
	defer srv.Close()
	p := serverPolicy(t, srv, `{"allow": ["http://{srv}/**"], "allow_private": ["127.0.0.1"], "max_concurrent": 1, "timeout": 5}`)
	e := newExec(t, p)
	done := make(chan error, 1)
	go func() {
		_, err := do(t, p, e, wire.HTTPRequest{Method: "GET", URL: srv.URL + "/hold"})
		done <- err
	}()
	<-entered
	r, err := p.Prepare(wire.HTTPRequest{Method: "GET", URL: srv.URL + "/second"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Authorize(r); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = e.Do(context.Background(), r, time.Now().Add(200*time.Millisecond))
	wantCheck(t, err, CheckTimeout)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("waited %v for a slot", d)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
