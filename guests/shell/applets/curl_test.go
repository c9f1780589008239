package applets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/hostapi"
)

// fakeWeb is an in-process stand-in for the host's HTTP: routes answer by
// URL, every request is recorded, and a URL without a route is refused
// the way the host refuses one no rule allows.
type fakeWeb struct {
	routes map[string]func(req wire.HTTPRequest) wire.HTTPResponse
	seen   []wire.HTTPRequest
}

func newFakeWeb() *fakeWeb {
	return &fakeWeb{routes: map[string]func(wire.HTTPRequest) wire.HTTPResponse{}}
}

func (f *fakeWeb) Do(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
	f.seen = append(f.seen, req)
	h, ok := f.routes[req.URL]
	if !ok {
		msg := "network policy: refused by the allow check: no rule allows " + req.Method + " " + req.URL
		return wire.HTTPResponse{}, &hostapi.RefusedError{Code: wire.CodeHTTPRefused, Check: "allow", Message: msg}
	}
	resp := h(req)
	if resp.StatusText == "" {
		resp.StatusText = map[int]string{200: "OK", 201: "Created", 301: "Moved Permanently", 302: "Found",
			303: "See Other", 307: "Temporary Redirect", 404: "Not Found", 500: "Internal Server Error"}[resp.Status]
	}
	resp.URL = req.URL
	return resp, nil
}

// text answers with status and a text/plain body.
func text(status int, body string) func(wire.HTTPRequest) wire.HTTPResponse {
	return func(wire.HTTPRequest) wire.HTTPResponse {
		return wire.HTTPResponse{Status: status, Headers: [][2]string{{"Content-Type", "text/plain"}}, Body: []byte(body)}
	}
}

// redirect answers with status and a Location.
func redirect(status int, to string) func(wire.HTTPRequest) wire.HTTPResponse {
	return func(wire.HTTPRequest) wire.HTTPResponse {
		return wire.HTTPResponse{Status: status, Headers: [][2]string{{"Location", to}}, Body: []byte("moved\n")}
	}
}

// echo answers with the request as JSON.
func echo(req wire.HTTPRequest) wire.HTTPResponse {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(req)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return wire.HTTPResponse{Status: 200, Headers: [][2]string{{"Content-Type", "application/json"}}, Body: b}
}

type netRun struct {
	status         int
	stdout, stderr string
	dir            string
}

// runNet runs one command line (words split as the shell would for
// simple quoting) with web as the host's HTTP, in a fresh directory.
func runNet(t *testing.T, web hostapi.HTTP, stdin string, args ...string) netRun {
	t.Helper()
	dir := t.TempDir()
	return runNetIn(t, dir, web, stdin, args...)
}

func runNetIn(t *testing.T, dir string, web hostapi.HTTP, stdin string, args ...string) netRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := &applets.Proc{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr, Env: map[string]string{},
		Dir: dir, HTTP: web, Ctx: ctx, Registry: applets.Default()}
	status := p.Exec(p.Stdin, args)
	return netRun{status, stdout.String(), stderr.String(), dir}
}

func header(req wire.HTTPRequest, name string) (string, bool) {
	for _, h := range req.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1], true
		}
	}
	return "", false
}

func TestCurlRequestBuilding(t *testing.T) {
	const u = "https://api.example/v1/items"
	cases := []struct {
		name    string
		args    []string
		stdin   string
		files   map[string]string
		method  string
		url     string
		body    string
		headers map[string]string // "" value: must be absent
	}{
		{"plain GET", []string{u}, "", nil, "GET", u,
			"", map[string]string{"User-Agent": "curl/8.11.1", "Accept": "*/*", "Content-Type": ""}},
		{"no scheme, dot segments, fragment", []string{"api.example/a/../v1/./items#frag"}, "", nil, "GET",
			"http://api.example/v1/items", "", nil},
		{"non-ASCII path and query are percent-encoded", []string{"https://api.example/café?q=naïve&x=\"1\""}, "", nil, "GET",
			"https://api.example/caf%C3%A9?q=na%C3%AFve&x=%221%22", "", nil},
		{"empty path is /", []string{"https://api.example"}, "", nil, "GET", "https://api.example/", "", nil},
		{"-d makes a form POST, pieces joined with &", []string{"-d", "a=1", "--data", "b=2", u}, "", nil, "POST", u,
			"a=1&b=2", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
		{"-X PUT with -H", []string{"-X", "PUT", "-H", "X-Trace: abc", "-H", "Content-Type: text/csv", "-d", "x,y", u}, "", nil,
			"PUT", u, "x,y", map[string]string{"X-Trace": "abc", "Content-Type": "text/csv"}},
		{"-XDELETE clustered", []string{"-sSXDELETE", u}, "", nil, "DELETE", u, "", nil},
		{"-d @file drops newlines", []string{"-d", "@body.txt", u}, "", map[string]string{"body.txt": "a=1\r\nb=2\n"}, "POST", u, "a=1b=2", nil},
		{"--data-binary @file keeps them", []string{"--data-binary", "@body.txt", u}, "", map[string]string{"body.txt": "a=1\nb=2\n"}, "POST", u, "a=1\nb=2\n", nil},
		{"-d @- reads stdin", []string{"-d", "@-", u}, "from=stdin\n", nil, "POST", u, "from=stdin", nil},
		{"--data-raw keeps @", []string{"--data-raw", "@me", u}, "", nil, "POST", u, "@me", nil},
		{"--data-urlencode forms", []string{"--data-urlencode", "q=a b&c", "--data-urlencode", "=x/y", "--data-urlencode", "plain text",
			"--data-urlencode", "f@v.txt", u}, "", map[string]string{"v.txt": "é"}, "POST", u, "q=a+b%26c&x%2Fy&plain+text&f=%C3%A9", nil},
		{"--json", []string{"--json", `{"a":1}`, u}, "", nil, "POST", u, `{"a":1}`,
			map[string]string{"Content-Type": "application/json", "Accept": "application/json"}},
		{"--json pieces concatenate", []string{"--json", `{"a":`, "--json", `1}`, u}, "", nil, "POST", u, `{"a":1}`, nil},
		{"-G puts data in the query", []string{"-G", "-d", "q=1", "--data-urlencode", "s=a b", u + "?x=0"}, "", nil, "GET",
			u + "?x=0&q=1&s=a+b", "", map[string]string{"Content-Type": ""}},
		{"-u is Basic auth", []string{"-u", "me:pw", u}, "", nil, "GET", u, "", map[string]string{"Authorization": "Basic bWU6cHc="}},
		{"-u without a password", []string{"-u", "me", u}, "", nil, "GET", u, "", map[string]string{"Authorization": "Basic bWU6"}},
		{"credentials in the URL", []string{"https://me:pw@api.example/v1/items"}, "", nil, "GET", u, "",
			map[string]string{"Authorization": "Basic bWU6cHc="}},
		{"-A -e -b", []string{"-A", "agent/1", "-e", "https://from.example/", "-b", "a=1; b=2", u}, "", nil, "GET", u, "",
			map[string]string{"User-Agent": "agent/1", "Referer": "https://from.example/", "Cookie": "a=1; b=2"}},
		{"-H Name: removes, Name; sends empty", []string{"-H", "Accept:", "-H", "X-Empty;", "-H", "User-Agent: mine", u}, "", nil, "GET", u, "",
			map[string]string{"Accept": "", "User-Agent": "mine"}},
		{"-H @file", []string{"-H", "@h.txt", u}, "", map[string]string{"h.txt": "X-A: 1\r\nX-B: 2\n"}, "GET", u, "",
			map[string]string{"X-A": "1", "X-B": "2"}},
		{"-I is HEAD", []string{"-I", u}, "", nil, "HEAD", u, "", nil},
		{"-T uploads with PUT", []string{"-T", "up.bin", "https://api.example/files/"}, "", map[string]string{"up.bin": "DATA"}, "PUT",
			"https://api.example/files/up.bin", "DATA", nil},
		{"--compressed is accepted", []string{"--compressed", "-k", u}, "", nil, "GET", u, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			web := newFakeWeb()
			web.routes[c.url] = echo
			dir := t.TempDir()
			for name, content := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := runNetIn(t, dir, web, c.stdin, append([]string{"curl"}, c.args...)...)
			if r.status != 0 || len(web.seen) != 1 {
				t.Fatalf("status %d, %d requests, stderr %q", r.status, len(web.seen), r.stderr)
			}
			req := web.seen[0]
			if req.Method != c.method || req.URL != c.url || string(req.Body) != c.body {
				t.Errorf("request %s %s %q, want %s %s %q", req.Method, req.URL, req.Body, c.method, c.url, c.body)
			}
			for name, want := range c.headers {
				got, ok := header(req, name)
				if want == "" && ok {
					t.Errorf("header %s = %q, want none", name, got)
				} else if want != "" && got != want {
					t.Errorf("header %s = %q, want %q", name, got, want)
				}
			}
			if c.method != "HEAD" && !strings.Contains(r.stdout, `"url":"`+c.url+`"`) {
				t.Errorf("stdout %q lacks the echoed request", r.stdout)
			}
		})
	}
}

func TestCurlMultipartForm(t *testing.T) {
	web := newFakeWeb()
	web.routes["https://up.example/"] = echo
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("file body"), 0o644)
	r := runNetIn(t, dir, web, "", "curl", "-F", "name=value", "-F", "doc=@a.txt;type=text/plain", "https://up.example/")
	if r.status != 0 {
		t.Fatalf("status %d: %s", r.status, r.stderr)
	}
	req := web.seen[0]
	ct, _ := header(req, "Content-Type")
	boundary, ok := strings.CutPrefix(ct, "multipart/form-data; boundary=")
	if req.Method != "POST" || !ok {
		t.Fatalf("%s with Content-Type %q", req.Method, ct)
	}
	want := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nvalue\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n" +
		"--" + boundary + "--\r\n"
	if string(req.Body) != want {
		t.Errorf("body %q\nwant %q", req.Body, want)
	}
}

func TestCurlRedirects(t *testing.T) {
	web := newFakeWeb()
	web.routes["https://a.example/start"] = redirect(302, "/next?x=1")
	web.routes["https://a.example/next?x=1"] = redirect(301, "https://b.example/final")
	web.routes["https://b.example/final"] = echo
	web.routes["https://a.example/post"] = redirect(302, "/landing")
	web.routes["https://a.example/landing"] = echo
	web.routes["https://a.example/keep"] = redirect(307, "/landing")
	web.routes["https://a.example/see"] = redirect(303, "/landing")
	web.routes["https://a.example/loop"] = redirect(302, "/loop")
	web.routes["https://a.example/out"] = redirect(302, "https://evil.example/")
	web.routes["https://a.example/ftp"] = redirect(302, "ftp://a.example/")

	t.Run("without -L the 3xx is the answer", func(t *testing.T) {
		r := runNet(t, web, "", "curl", "-s", "-w", "%{http_code} %{redirect_url}", "https://a.example/start")
		if r.status != 0 || r.stdout != "moved\n302 https://a.example/next?x=1" {
			t.Errorf("got %d %q", r.status, r.stdout)
		}
	})
	t.Run("-L follows every hop as a new request", func(t *testing.T) {
		web.seen = nil
		r := runNet(t, web, "", "curl", "-sL", "-H", "Authorization: Bearer tok", "-u", "u:p", "-b", "c=1", "-H", "X-Keep: 1",
			"-w", "\\n%{num_redirects} %{url_effective}", "https://a.example/start")
		if r.status != 0 || len(web.seen) != 3 {
			t.Fatalf("status %d, %d requests: %s", r.status, len(web.seen), r.stderr)
		}
		if !strings.HasSuffix(r.stdout, "\n2 https://b.example/final") {
			t.Errorf("stdout %q", r.stdout)
		}
		// The first origin keeps the credentials; the other gets none.
		if v, _ := header(web.seen[1], "Authorization"); v != "Bearer tok" {
			t.Errorf("same-origin hop Authorization %q", v)
		}
		last := web.seen[2]
		for _, name := range []string{"Authorization", "Cookie"} {
			if v, ok := header(last, name); ok {
				t.Errorf("cross-origin hop kept %s: %q", name, v)
			}
		}
		if v, _ := header(last, "X-Keep"); v != "1" {
			t.Errorf("cross-origin hop lost X-Keep")
		}
	})
	t.Run("--location-trusted keeps credentials", func(t *testing.T) {
		web.seen = nil
		runNet(t, web, "", "curl", "-s", "--location-trusted", "-u", "u:p", "https://a.example/start")
		if v, _ := header(web.seen[2], "Authorization"); v != "Basic dTpw" {
			t.Errorf("Authorization %q", v)
		}
	})
	t.Run("302 turns a POST into a GET without body", func(t *testing.T) {
		web.seen = nil
		runNet(t, web, "", "curl", "-sL", "-d", "a=1", "https://a.example/post")
		hop := web.seen[1]
		if hop.Method != "GET" || len(hop.Body) != 0 {
			t.Errorf("hop %s %q", hop.Method, hop.Body)
		}
		if _, ok := header(hop, "Content-Type"); ok {
			t.Error("hop kept the form Content-Type")
		}
	})
	t.Run("307 keeps method and body", func(t *testing.T) {
		web.seen = nil
		runNet(t, web, "", "curl", "-sL", "-d", "a=1", "https://a.example/keep")
		if hop := web.seen[1]; hop.Method != "POST" || string(hop.Body) != "a=1" {
			t.Errorf("hop %s %q", hop.Method, hop.Body)
		}
	})
	t.Run("303 turns PUT into GET; -X stays the verb", func(t *testing.T) {
		web.seen = nil
		runNet(t, web, "", "curl", "-sL", "-T", "-", "https://a.example/see")
		if hop := web.seen[1]; hop.Method != "GET" {
			t.Errorf("hop %s", hop.Method)
		}
		web.seen = nil
		runNet(t, web, "", "curl", "-sL", "-X", "POST", "-d", "a=1", "https://a.example/post")
		if hop := web.seen[1]; hop.Method != "POST" || len(hop.Body) != 0 {
			t.Errorf("hop %s %q", hop.Method, hop.Body)
		}
	})
	t.Run("--max-redirs", func(t *testing.T) {
		r := runNet(t, web, "", "curl", "-L", "--max-redirs", "3", "https://a.example/loop")
		if r.status != 47 || r.stderr != "curl: (47) Maximum (3) redirects followed\n" {
			t.Errorf("got %d %q", r.status, r.stderr)
		}
	})
	t.Run("a redirect to a refused host", func(t *testing.T) {
		r := runNet(t, web, "", "curl", "-L", "https://a.example/out")
		if r.status != 7 || !strings.HasPrefix(r.stderr, "curl: (7) network policy: refused by the allow check") || r.stdout != "" {
			t.Errorf("got %d %q %q", r.status, r.stdout, r.stderr)
		}
	})
	t.Run("a redirect to another protocol", func(t *testing.T) {
		r := runNet(t, web, "", "curl", "-L", "https://a.example/ftp")
		if r.status != 1 || r.stderr != "curl: (1) Protocol \"ftp\" not supported\n" {
			t.Errorf("got %d %q", r.status, r.stderr)
		}
	})
	t.Run("-i -L shows each hop's headers", func(t *testing.T) {
		r := runNet(t, web, "", "curl", "-siL", "https://a.example/post")
		want := "HTTP/1.1 302 Found\r\nLocation: /landing\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"
		if !strings.HasPrefix(r.stdout, want) {
			t.Errorf("stdout %q", r.stdout)
		}
	})
}

func TestCurlOutputAndFailures(t *testing.T) {
	web := newFakeWeb()
	web.routes["https://x.example/data.json"] = func(wire.HTTPRequest) wire.HTTPResponse {
		return wire.HTTPResponse{Status: 200, Headers: [][2]string{{"Content-Type", "application/json"}, {"X-Id", "7"}}, Body: []byte(`{"n":1}`)}
	}
	web.routes["https://x.example/missing"] = text(404, "no such thing\n")
	web.routes["https://x.example/"] = text(200, "root")
	web.routes["https://x.example/moved.json"] = redirect(302, "/data.json")
	cases := []struct {
		name           string
		args           []string
		status         int
		stdout, stderr string
		file, content  string // a file that must hold content ("" content: must not exist)
	}{
		{"body to stdout", []string{"https://x.example/data.json"}, 0, `{"n":1}`, "", "", ""},
		{"-i", []string{"-i", "https://x.example/data.json"}, 0,
			"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Id: 7\r\n\r\n{\"n\":1}", "", "", ""},
		{"-I", []string{"-I", "https://x.example/data.json"}, 0,
			"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Id: 7\r\n\r\n", "", "", ""},
		{"404 without -f is a success", []string{"https://x.example/missing"}, 0, "no such thing\n", "", "", ""},
		{"-f", []string{"-f", "https://x.example/missing"}, 22, "", "curl: (22) The requested URL returned error: 404\n", "", ""},
		{"-sf is silent", []string{"-sf", "https://x.example/missing"}, 22, "", "", "", ""},
		{"-sSf shows the error", []string{"-sSf", "https://x.example/missing"}, 22, "", "curl: (22) The requested URL returned error: 404\n", "", ""},
		{"--fail-with-body", []string{"--fail-with-body", "https://x.example/missing"}, 22, "no such thing\n",
			"curl: (22) The requested URL returned error: 404\n", "", ""},
		{"-f -w still writes", []string{"-sf", "-w", "%{http_code}", "https://x.example/missing"}, 22, "404", "", "", ""},
		{"-o", []string{"-o", "out.json", "https://x.example/data.json"}, 0, "", "", "out.json", `{"n":1}`},
		{"-o -", []string{"-o", "-", "https://x.example/data.json"}, 0, `{"n":1}`, "", "", ""},
		{"-O", []string{"-O", "https://x.example/data.json"}, 0, "", "", "data.json", `{"n":1}`},
		{"-O -L names the file after the URL given", []string{"-sLO", "https://x.example/moved.json"}, 0, "", "", "moved.json", `{"n":1}`},
		{"-O without a name", []string{"-O", "https://x.example/"}, 23, "", "curl: (23) Remote file name has no length\n", "", ""},
		{"-f -o leaves no file", []string{"-sf", "-o", "x.txt", "https://x.example/missing"}, 22, "", "", "x.txt", ""},
		{"-o into a missing directory", []string{"-s", "-S", "-o", "no/dir/f", "https://x.example/data.json"}, 23, "",
			"curl: (23) Failed to open the file no/dir/f: No such file or directory\n", "", ""},
		{"--create-dirs", []string{"--create-dirs", "-o", "new/dir/f", "https://x.example/data.json"}, 0, "", "", "new/dir/f", `{"n":1}`},
		{"--output-dir", []string{"--create-dirs", "--output-dir", "d", "-O", "https://x.example/data.json"}, 0, "", "", "d/data.json", `{"n":1}`},
		{"two URLs, two -o", []string{"-o", "1", "-o", "2", "https://x.example/", "https://x.example/data.json"}, 0, "", "", "2", `{"n":1}`},
		{"-w variables", []string{"-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{content_type} %{url_effective} %header{x-id} %{method}%{stderr}err\\t%%\n",
			"https://x.example/data.json"}, 0, "200 7 application/json https://x.example/data.json 7 GET", "err\t%\n", "", ""},
		{"-w unknown variable", []string{"-s", "-w", "[%{nope}]", "https://x.example/"}, 0, "root[]", "curl: unknown --write-out variable: 'nope'\n", "", ""},
		{"-D -", []string{"-s", "-D", "-", "https://x.example/"}, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nroot", "", "", ""},
		{"refused host", []string{"https://other.example/"}, 7, "",
			"curl: (7) network policy: refused by the allow check: no rule allows GET https://other.example/\n", "", ""},
		{"refused, -w says 000", []string{"-s", "-w", "%{http_code}", "https://other.example/"}, 7, "000", "", "", ""},
		{"no URL", nil, 2, "", "curl: no URL specified\ncurl: try 'curl --help' or 'curl --manual' for more information\n", "", ""},
		{"unknown option", []string{"--frobnicate", "https://x.example/"}, 2, "",
			"curl: option --frobnicate: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", "", ""},
		{"missing parameter", []string{"https://x.example/", "-o"}, 2, "",
			"curl: option -o: requires parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n", "", ""},
		{"unsupported scheme", []string{"file:///etc/passwd"}, 1, "", "curl: (1) Protocol \"file\" not supported\n", "", ""},
		{"bad port", []string{"https://x.example:99999/"}, 3, "", "curl: (3) URL rejected: Port number was not a decimal number between 0 and 65535\n", "", ""},
		{"-I with -d", []string{"-I", "-d", "x", "https://x.example/"}, 2, "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runNet(t, web, "", append([]string{"curl"}, c.args...)...)
			if r.status != c.status || r.stdout != c.stdout || (c.stderr != "" || c.status == 0) && r.stderr != c.stderr {
				t.Errorf("got %d %q %q\nwant %d %q %q", r.status, r.stdout, r.stderr, c.status, c.stdout, c.stderr)
			}
			if c.file != "" {
				got, err := os.ReadFile(filepath.Join(r.dir, c.file))
				if c.content == "" && err == nil {
					t.Errorf("%s exists", c.file)
				} else if c.content != "" && string(got) != c.content {
					t.Errorf("%s = %q, %v", c.file, got, err)
				}
			}
		})
	}
}

func TestCurlTimeAndHostFailures(t *testing.T) {
	slow := hostapi.HTTPFunc(func(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("--max-time gave the request no deadline")
		}
		<-ctx.Done()
		return wire.HTTPResponse{}, ctx.Err()
	})
	r := runNet(t, slow, "", "curl", "-m", "0.05", "-w", "%{http_code}", "https://slow.example/")
	if r.status != 28 || r.stdout != "000" || !regexp.MustCompile(`^curl: \(28\) Operation timed out after \d+ milliseconds with 0 bytes received\n$`).MatchString(r.stderr) {
		t.Errorf("--max-time: got %d %q %q", r.status, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		check  string
		status int
	}{{"timeout", 28}, {"max_response_bytes", 63}, {"address", 7}, {"transport", 7}} {
		refusing := hostapi.HTTPFunc(func(context.Context, wire.HTTPRequest) (wire.HTTPResponse, error) {
			return wire.HTTPResponse{}, &hostapi.RefusedError{Code: wire.CodeHTTPRefused, Check: c.check, Message: "host says " + c.check}
		})
		r := runNet(t, refusing, "", "curl", "https://x.example/")
		if r.status != c.status || r.stderr != "curl: ("+strconv.Itoa(c.status)+") host says "+c.check+"\n" {
			t.Errorf("check %s: got %d %q", c.check, r.status, r.stderr)
		}
	}
	calls := 0
	flaky := hostapi.HTTPFunc(func(context.Context, wire.HTTPRequest) (wire.HTTPResponse, error) {
		calls++
		if calls < 3 {
			return wire.HTTPResponse{Status: 503, StatusText: "Service Unavailable"}, nil
		}
		return wire.HTTPResponse{Status: 200, StatusText: "OK", Body: []byte("up")}, nil
	})
	r = runNet(t, flaky, "", "curl", "-s", "--retry", "3", "--retry-delay", "0.001", "https://x.example/")
	if r.status != 0 || r.stdout != "up" || calls != 3 {
		t.Errorf("--retry: got %d %q after %d calls", r.status, r.stdout, calls)
	}
	r = runNet(t, nil, "", "curl", "https://x.example/")
	if r.status != 7 || !strings.Contains(r.stderr, "no network") {
		t.Errorf("no HTTP: got %d %q", r.status, r.stderr)
	}
}

func TestWget(t *testing.T) {
	web := newFakeWeb()
	web.routes["https://x.example/files/report.txt"] = text(200, "report\n")
	web.routes["https://x.example/files/"] = text(200, "<html>")
	web.routes["https://x.example/gone"] = text(404, "nope")
	web.routes["https://x.example/api"] = echo
	web.routes["https://x.example/moved"] = redirect(302, "/files/report.txt")

	r := runNet(t, web, "", "wget", "-q", "-O", "-", "https://x.example/files/report.txt")
	if r.status != 0 || r.stdout != "report\n" || r.stderr != "" {
		t.Errorf("-O -: got %d %q %q", r.status, r.stdout, r.stderr)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "report.txt"), []byte("old"), 0o644)
	r = runNetIn(t, dir, web, "", "wget", "https://x.example/files/report.txt")
	got, _ := os.ReadFile(filepath.Join(dir, "report.txt.1"))
	if r.status != 0 || string(got) != "report\n" || !strings.Contains(r.stderr, "Saving to: 'report.txt.1'") {
		t.Errorf("existing name: got %d %q, file %q", r.status, r.stderr, got)
	}
	r = runNetIn(t, dir, web, "", "wget", "https://x.example/moved")
	got, _ = os.ReadFile(filepath.Join(dir, "moved"))
	if r.status != 0 || string(got) != "report\n" || !strings.Contains(r.stderr, "Saving to: 'moved'") ||
		!strings.Contains(r.stderr, "Location: https://x.example/files/report.txt [following]") {
		t.Errorf("default name: got %d %q, file %q", r.status, r.stderr, got)
	}
	r = runNetIn(t, dir, web, "", "wget", "-q", "-c", "-P", "sub/dir", "https://x.example/files/report.txt")
	if got, _ := os.ReadFile(filepath.Join(dir, "sub/dir/report.txt")); r.status != 0 || string(got) != "report\n" {
		t.Errorf("-P: got %d %q %q", r.status, got, r.stderr)
	}
	r = runNetIn(t, dir, web, "", "wget", "-q", "-c", "https://x.example/files/report.txt")
	if got, _ := os.ReadFile(filepath.Join(dir, "report.txt")); r.status != 0 || string(got) != "report\n" {
		t.Errorf("-c: got %d %q", r.status, got)
	}
	r = runNetIn(t, dir, web, "", "wget", "-q", "https://x.example/files/")
	if got, _ := os.ReadFile(filepath.Join(dir, "index.html")); r.status != 0 || string(got) != "<html>" {
		t.Errorf("index.html: got %d %q", r.status, got)
	}
	web.seen = nil
	r = runNet(t, web, "", "wget", "-qO-", "--header", "X-A: 1", "--post-data", "a=1", "-U", "bot", "https://x.example/api")
	req := web.seen[0]
	ct, _ := header(req, "Content-Type")
	ua, _ := header(req, "User-Agent")
	xa, _ := header(req, "X-A")
	if r.status != 0 || req.Method != "POST" || string(req.Body) != "a=1" || ct != "application/x-www-form-urlencoded" || ua != "bot" || xa != "1" {
		t.Errorf("--post-data: got %d %+v", r.status, req)
	}
	r = runNet(t, web, "", "wget", "-q", "-S", "-O", "-", "https://x.example/files/report.txt")
	if r.stderr != "" {
		t.Errorf("-q -S printed %q", r.stderr)
	}
	r = runNet(t, web, "", "wget", "-S", "-O", "-", "https://x.example/files/report.txt")
	if !strings.Contains(r.stderr, "  HTTP/1.1 200 OK\n  Content-Type: text/plain\n") {
		t.Errorf("-S: %q", r.stderr)
	}
	r = runNet(t, web, "", "wget", "-O", "out", "https://x.example/gone")
	if got, err := os.ReadFile(filepath.Join(r.dir, "out")); r.status != 8 || !strings.Contains(r.stderr, "ERROR 404: Not Found.") || err != nil || len(got) != 0 {
		t.Errorf("404: got %d %q, file %q %v", r.status, r.stderr, got, err)
	}
	r = runNet(t, web, "", "wget", "https://other.example/")
	if r.status != 4 || !strings.Contains(r.stderr, "refused by the allow check") {
		t.Errorf("refused: got %d %q", r.status, r.stderr)
	}
	web.seen = nil
	r = runNet(t, web, "", "wget", "-q", "--spider", "https://x.example/files/report.txt")
	if entries, _ := os.ReadDir(r.dir); r.status != 0 || web.seen[0].Method != "HEAD" || len(entries) != 0 {
		t.Errorf("--spider: got %d %s, %d files", r.status, web.seen[0].Method, len(entries))
	}
	if r = runNet(t, web, "", "wget", "-q", "--spider", "https://x.example/gone"); r.status != 8 {
		t.Errorf("--spider 404: got %d", r.status)
	}
	r = runNet(t, web, "", "wget", "--bogus", "https://x.example/")
	if r.status != 2 || !strings.HasPrefix(r.stderr, "wget: unrecognized option '--bogus'\nUsage: wget") {
		t.Errorf("bad option: got %d %q", r.status, r.stderr)
	}
}

func TestCurlCookieEngine(t *testing.T) {
	web := newFakeWeb()
	web.routes["https://a.example.org/login"] = func(wire.HTTPRequest) wire.HTTPResponse {
		return wire.HTTPResponse{Status: 302, Headers: [][2]string{{"Location", "/home"},
			{"Set-Cookie", "sid=abc; Path=/; HttpOnly"}, {"Set-Cookie", "wide=1; Domain=example.org; Secure"},
			{"Set-Cookie", "tld=1; Domain=org"}, {"Set-Cookie", "elsewhere=1; Domain=other.org"},
			{"Set-Cookie", "deep=1; Path=/deep"}}}
	}
	web.routes["https://a.example.org/logout"] = func(wire.HTTPRequest) wire.HTTPResponse {
		return wire.HTTPResponse{Status: 200, Headers: [][2]string{{"Set-Cookie", "sid=; Max-Age=0"}}}
	}
	for _, u := range []string{"https://a.example.org/home", "https://b.example.org/", "http://b.example.org/", "https://other.org/"} {
		web.routes[u] = echo
	}
	cookie := func(i int) string {
		v, _ := header(web.seen[i], "Cookie")
		return v
	}
	dir := t.TempDir()
	r := runNetIn(t, dir, web, "", "curl", "-sL", "-c", "jar.txt", "https://a.example.org/login")
	if r.status != 0 || cookie(1) != "sid=abc; wide=1" {
		t.Fatalf("status %d, hop cookie %q, %s", r.status, cookie(1), r.stderr)
	}
	jar, _ := os.ReadFile(filepath.Join(dir, "jar.txt"))
	for _, line := range []string{"#HttpOnly_a.example.org\tFALSE\t/\tFALSE\t0\tsid\tabc\n", ".example.org\tTRUE\t/\tTRUE\t0\twide\t1\n",
		"a.example.org\tFALSE\t/deep\tFALSE\t0\tdeep\t1\n"} {
		if !strings.Contains(string(jar), line) {
			t.Errorf("jar lacks %q:\n%s", line, jar)
		}
	}
	if strings.Contains(string(jar), "tld") || strings.Contains(string(jar), "elsewhere") {
		t.Errorf("jar kept a cookie for a domain the host cannot set:\n%s", jar)
	}
	web.seen = nil
	runNetIn(t, dir, web, "", "curl", "-s", "-b", "jar.txt", "https://b.example.org/", "http://b.example.org/", "https://other.org/")
	if cookie(0) != "wide=1" || cookie(1) != "" || cookie(2) != "" {
		t.Errorf("cookies sent: %q %q %q", cookie(0), cookie(1), cookie(2))
	}
	web.seen = nil
	runNetIn(t, dir, web, "", "curl", "-s", "-b", "jar.txt", "-c", "jar.txt", "https://a.example.org/logout", "https://a.example.org/home")
	if cookie(1) != "wide=1" {
		t.Errorf("after logout: %q", cookie(1))
	}
	if jar, _ := os.ReadFile(filepath.Join(dir, "jar.txt")); strings.Contains(string(jar), "sid") {
		t.Errorf("an expired cookie stayed in the jar:\n%s", jar)
	}
}

func TestCurlUnderTimeout(t *testing.T) {
	slow := hostapi.HTTPFunc(func(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
		<-ctx.Done()
		return wire.HTTPResponse{}, ctx.Err()
	})
	r := runNet(t, slow, "", "timeout", "0.05", "curl", "https://slow.example/")
	if r.status != 124 || r.stderr != "" {
		t.Errorf("got %d %q", r.status, r.stderr)
	}
}
