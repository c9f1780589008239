package applets

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
	"amlasandbox/guests/shell/hostcall"
)

// wgetVersion is the GNU Wget whose command line this applet follows.
const wgetVersion = "1.21.4"

// wget's exit statuses (GNU Wget's numbers).
const (
	wgetOK       = 0
	wgetGeneric  = 1
	wgetUsage    = 2
	wgetFileErr  = 3 // an output or input file could not be used
	wgetNetwork  = 4 // the host refused the request or could not make it
	wgetServer   = 8 // the server answered with an error status
	maxWgetHops  = 20
	wgetUsageMsg = "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n"
)

var wgetSpec = flagSpec{
	short: "O:qS:U:T:t:P:nvhVc",
	long: map[string]string{
		"output-document:": "O", "quiet": "q", "server-response": "S", "header:": "header",
		"post-data:": "post-data", "post-file:": "post-file", "body-data:": "body-data",
		"body-file:": "body-file", "method:": "method", "user-agent:": "U", "timeout:": "T",
		"tries:": "t", "directory-prefix:": "P", "no-verbose": "nv", "verbose": "v",
		"max-redirect:": "max-redirect", "no-check-certificate": "no-check-certificate",
		"user:": "user", "password:": "password", "http-user:": "user", "http-password:": "password",
		"content-on-error": "content-on-error", "help": "h", "version": "V",
		"compression:": "compression", "no-clobber": "no-clobber", "continue": "c",
		"auth-no-challenge": "auth-no-challenge", "referer:": "referer", "spider": "spider",
	},
}

// wgetCmd is one parsed wget command line.
type wgetCmd struct {
	p *Proc

	urls           []string
	output         string
	hasOutput      bool
	quiet, verbose bool
	serverResponse bool
	headers        []string
	method         string
	body           []byte
	hasBody        bool
	userAgent      string
	timeout        time.Duration
	prefix         string
	maxRedirect    int
	user, password string
	hasUser        bool
	contentOnError bool
	noClobber      bool
	continueFile   bool
	spider         bool
	referer        string
}

// wgetApplet is GNU wget for HTTP and HTTPS, through the host like curl:
// it follows redirects (each hop a new request the host checks again),
// saves to the URL's file name (or -O FILE, "-" for stdout) through the
// disk quota, and reports on stderr unless -q.
func wgetApplet(p *Proc, args []string) int {
	// GNU wget reads -nv as one option; flagSpec reads single letters.
	for i, a := range args {
		if a == "-nv" {
			args[i] = "--no-verbose"
		}
	}
	w := &wgetCmd{p: p, verbose: true, maxRedirect: maxWgetHops}
	opts, operands, err := wgetSpec.parse(args[1:])
	if err != nil {
		fmt.Fprintf(p.Stderr, "wget: %s\n%s", err, wgetUsageMsg)
		return wgetUsage
	}
	w.urls = operands
	for _, o := range opts {
		switch o.name {
		case "O":
			w.output, w.hasOutput = o.val, true
		case "q":
			w.quiet = true
		case "nv":
			w.verbose = false
		case "v":
			w.verbose = true
		case "S":
			w.serverResponse = true
		case "header":
			w.headers = append(w.headers, o.val)
		case "post-data", "body-data":
			w.body, w.hasBody = []byte(o.val), true
			if o.name == "post-data" {
				w.method = "POST"
			}
		case "post-file", "body-file":
			f, err := p.Open(o.val)
			if err != nil {
				fmt.Fprintf(p.Stderr, "wget: %s: %s\n", o.val, ErrText(err))
				return wgetFileErr
			}
			w.body, err = io.ReadAll(f)
			f.Close()
			if err != nil {
				fmt.Fprintf(p.Stderr, "wget: %s: %s\n", o.val, ErrText(err))
				return wgetFileErr
			}
			w.hasBody = true
			if o.name == "post-file" {
				w.method = "POST"
			}
		case "method":
			w.method = strings.ToUpper(o.val)
		case "U":
			w.userAgent = o.val
		case "T":
			f, err := strconv.ParseFloat(o.val, 64)
			if err != nil || f < 0 {
				fmt.Fprintf(p.Stderr, "wget: --timeout: Invalid time period '%s'\n", o.val)
				return wgetUsage
			}
			w.timeout = time.Duration(f * float64(time.Second))
		case "t":
			if _, err := strconv.Atoi(o.val); err != nil && o.val != "inf" {
				fmt.Fprintf(p.Stderr, "wget: --tries: Invalid number '%s'\n", o.val)
				return wgetUsage
			}
		case "P":
			w.prefix = o.val
		case "max-redirect":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				fmt.Fprintf(p.Stderr, "wget: --max-redirect: Invalid number '%s'\n", o.val)
				return wgetUsage
			}
			w.maxRedirect = n
		case "user":
			w.user, w.hasUser = o.val, true
		case "password":
			w.password, w.hasUser = o.val, true
		case "content-on-error":
			w.contentOnError = true
		case "no-clobber":
			w.noClobber = true
		case "c":
			w.continueFile = true
		case "spider":
			w.spider = true
		case "referer":
			w.referer = o.val
		case "h":
			fmt.Fprint(p.Stdout, wgetHelp)
			return wgetOK
		case "V":
			fmt.Fprintf(p.Stdout, "GNU Wget %s (amla-sandbox applet): requests go through the host under the sandbox's network policy.\n", wgetVersion)
			return wgetOK
		}
	}
	if len(w.urls) == 0 {
		fmt.Fprintf(p.Stderr, "wget: missing URL\n%s", wgetUsageMsg)
		return wgetGeneric
	}
	if w.method == "" {
		w.method = "GET"
		if w.spider {
			w.method = "HEAD"
		}
	}
	// -O FILE is one file for every URL, created (and emptied) before the
	// first request, as GNU wget does.
	var shared io.WriteCloser
	if w.hasOutput && w.output != "-" {
		f, err := p.Create(w.prefixed(w.output), false)
		if err != nil {
			fmt.Fprintf(p.Stderr, "wget: %s: %s\n", w.output, ErrText(err))
			return wgetFileErr
		}
		shared = f
		defer f.Close()
	}
	status := wgetOK
	for _, raw := range w.urls {
		if s := w.fetch(raw, shared); s != wgetOK {
			status = s
		}
		if p.cancelled() {
			break
		}
	}
	return status
}

const wgetHelp = `GNU Wget ` + wgetVersion + ` (amla-sandbox applet), a non-interactive network retriever.
Usage: wget [OPTION]... [URL]...
  -O,  --output-document=FILE    write documents to FILE ('-' for stdout)
  -q,  --quiet                   quiet (no output)
  -nv, --no-verbose              one line per file
  -S,  --server-response         print server response headers
       --header=STRING           insert STRING among the headers
       --post-data=STRING        use the POST method; send STRING as the data
       --post-file=FILE          use the POST method; send contents of FILE
       --method=HTTPMethod       use method "HTTPMethod" in the request
       --body-data=STRING / --body-file=FILE  data for --method
  -U,  --user-agent=AGENT        identify as AGENT
  -T,  --timeout=SECONDS         bound each request
  -P,  --directory-prefix=PREFIX save files to PREFIX/..
       --max-redirect=NUM        maximum redirections allowed per page (20)
       --user=USER --password=PASS  Basic authentication
       --content-on-error        output the received content on server errors
       --spider                  check that the URL exists (a HEAD request); save nothing
Requests go through the host, which applies the sandbox's network policy.
`

// prefixed puts name under -P's directory.
func (w *wgetCmd) prefixed(name string) string {
	if w.prefix == "" || path.IsAbs(name) {
		return name
	}
	return path.Join(w.prefix, name)
}

// logf writes a progress line unless -q (or -nv for the verbose ones).
func (w *wgetCmd) logf(verboseOnly bool, format string, args ...any) {
	if w.quiet || verboseOnly && !w.verbose {
		return
	}
	fmt.Fprintf(w.p.Stderr, format, args...)
}

// fetch retrieves one URL, following redirects, and saves it.
func (w *wgetCmd) fetch(raw string, shared io.WriteCloser) int {
	p := w.p
	u, urlUser, err := parseClientURL(raw, false)
	if err != nil {
		var ue *urlError
		if errors.As(err, &ue) && ue.scheme != "" {
			fmt.Fprintf(p.Stderr, "%s: Unsupported scheme '%s'.\n", raw, ue.scheme)
		} else {
			fmt.Fprintf(p.Stderr, "%s: Invalid URL: %s\n", raw, err)
		}
		return wgetGeneric
	}
	user, password, hasUser := w.user, w.password, w.hasUser
	if !hasUser && urlUser != nil {
		password, _ = urlUser.Password()
		user, hasUser = urlUser.Username(), true
	}
	first := u
	method, body := w.method, w.body
	for hops := 0; ; hops++ {
		stamp := time.Now().UTC().Format("2006-01-02 15:04:05")
		w.logf(true, "--%s--  %s\n", stamp, u)
		req := w.buildRequest(u, method, body, sameOrigin(u, first), hasUser, user, password)
		resp, err := w.do(req)
		if err != nil {
			msg := err.Error()
			var re *hostapi.RefusedError
			if errors.As(err, &re) {
				msg = re.Message
			} else if errors.Is(err, context.DeadlineExceeded) {
				msg = "Read error (Connection timed out)."
			}
			w.logf(false, "wget: unable to reach %s: %s\n", u.Host, msg)
			return wgetNetwork
		}
		w.logf(true, "HTTP request sent, awaiting response... %d %s\n", resp.Status, resp.StatusText)
		if w.serverResponse && !w.quiet {
			writeHeaderBlock(p.Stderr, resp, "  ", "\n", false)
		}
		next, err := redirectTarget(u, resp, false)
		if err != nil {
			w.logf(false, "%s: %s\n", u, err)
			return wgetGeneric
		}
		if next != nil {
			if hops >= w.maxRedirect {
				w.logf(false, "%d redirections exceeded.\n", w.maxRedirect)
				return wgetServer
			}
			w.logf(true, "Location: %s [following]\n", next)
			if getAfterRedirect(resp.Status, method, false, false, false) {
				method, body = "GET", nil
			}
			u = next
			continue
		}
		if resp.Status >= 400 {
			w.logf(false, "%s ERROR %d: %s.\n\n", stamp, resp.Status, resp.StatusText)
			if !w.contentOnError {
				return wgetServer
			}
		}
		if w.spider {
			w.logf(true, "Remote file exists.\n\n")
			return wgetOK
		}
		// The file is named after the URL given, not where redirects led
		// (GNU wget without --trust-server-names).
		status := w.save(first, resp, shared)
		if status == wgetOK && resp.Status >= 400 {
			return wgetServer
		}
		return status
	}
}

// do makes one request, bounded by -T.
func (w *wgetCmd) do(req wire.HTTPRequest) (wire.HTTPResponse, error) {
	if w.p.HTTP == nil {
		return wire.HTTPResponse{}, &hostapi.RefusedError{Code: wire.CodeHTTPRefused, Check: "network",
			Message: "no network: this shell has no host to make HTTP requests"}
	}
	ctx := w.p.ctx()
	if w.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.timeout)
		defer cancel()
	}
	return w.p.HTTP.Do(ctx, req)
}

// buildRequest is one hop's request: wget's own headers, replaced by
// --header lines of the same name. Authorization (from --user or
// --header) and Cookie go only to the first URL's origin.
func (w *wgetCmd) buildRequest(u *url.URL, method string, body []byte, firstOrigin, hasUser bool, user, password string) wire.HTTPRequest {
	ua := w.userAgent
	if ua == "" {
		ua = "Wget/" + wgetVersion
	}
	own := [][2]string{{"User-Agent", ua}, {"Accept", "*/*"}}
	if hasUser && firstOrigin {
		own = append(own, [2]string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))})
	}
	if w.referer != "" {
		own = append(own, [2]string{"Referer", w.referer})
	}
	if body != nil && method == "POST" {
		own = append(own, [2]string{"Content-Type", "application/x-www-form-urlencoded"})
	}
	var custom [][2]string
	given := map[string]bool{}
	for _, h := range w.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			continue
		}
		if !firstOrigin && (strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Cookie")) {
			continue
		}
		custom = append(custom, [2]string{name, strings.TrimSpace(value)})
		given[strings.ToLower(name)] = true
	}
	req := wire.HTTPRequest{Method: method, URL: u.String(), Body: body}
	for _, h := range own {
		if !given[strings.ToLower(h[0])] {
			req.Headers = append(req.Headers, h)
		}
	}
	req.Headers = append(req.Headers, custom...)
	return req
}

// save writes resp's body to stdout (-O -), the shared -O file, or a file
// named after the URL (index.html for a directory; NAME.1, NAME.2, ...
// when NAME exists, as GNU wget does). -c rewrites NAME with the whole
// document (there are no partial requests to resume with).
func (w *wgetCmd) save(u *url.URL, resp wire.HTTPResponse, shared io.WriteCloser) int {
	p := w.p
	if ct, ok := headerValue(resp.Headers, "Content-Type"); ok {
		w.logf(true, "Length: %d [%s]\n", len(resp.Body), ct)
	} else {
		w.logf(true, "Length: %d\n", len(resp.Body))
	}
	var out io.Writer
	label := "-"
	switch {
	case w.hasOutput && w.output == "-":
		out = p.Stdout
		w.logf(true, "Saving to: 'STDOUT'\n\n")
	case shared != nil:
		out, label = shared, w.output
		w.logf(true, "Saving to: '%s'\n\n", w.output)
	default:
		name := remoteFileName(u)
		if dec, err := url.PathUnescape(name); err == nil && !strings.ContainsAny(dec, "/\x00") {
			name = dec
		}
		if name == "" {
			name = "index.html"
		}
		name = w.prefixed(name)
		if w.prefix != "" {
			if err := hostcall.MkdirAll(p.Path(w.prefix), 0o755); err != nil {
				w.logf(false, "%s: %s\n", w.prefix, ErrText(err))
				return wgetFileErr
			}
		}
		if _, err := os.Lstat(p.Path(name)); err == nil && !w.continueFile {
			if w.noClobber {
				w.logf(false, "File '%s' already there; not retrieving.\n\n", name)
				return wgetOK
			}
			for i := 1; ; i++ {
				alt := name + "." + strconv.Itoa(i)
				if _, err := os.Lstat(p.Path(alt)); err != nil {
					name = alt
					break
				}
			}
		}
		w.logf(true, "Saving to: '%s'\n\n", name)
		f, err := p.Create(name, false)
		if err != nil {
			w.logf(false, "%s: %s\n", name, ErrText(err))
			return wgetFileErr
		}
		defer f.Close()
		out, label = f, name
	}
	if len(resp.Body) > 0 {
		if _, err := out.Write(resp.Body); err != nil {
			w.logf(false, "wget: Cannot write to '%s' (%s).\n", label, ErrText(err))
			return wgetFileErr
		}
	}
	stamp := time.Now().UTC().Format("2006-01-02 15:04:05")
	if w.verbose {
		w.logf(true, "%s - '%s' saved [%d/%d]\n\n", stamp, label, len(resp.Body), len(resp.Body))
	} else {
		w.logf(false, "%s URL:%s [%d/%d] -> \"%s\" [1]\n", stamp, u, len(resp.Body), len(resp.Body), label)
	}
	return wgetOK
}
