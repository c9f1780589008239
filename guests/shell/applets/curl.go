package applets

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
	"amlasandbox/guests/shell/hostcall"
)

// curlVersion is the curl whose command line this applet follows; servers
// that answer curl with plain text look for "curl/" in the User-Agent.
const curlVersion = "8.11.1"

// curl's exit statuses that this applet produces (curl's own numbers).
const (
	curlOK              = 0
	curlUnsupported     = 1  // a scheme other than http and https
	curlUsage           = 2  // bad command line
	curlBadURL          = 3  // a URL that cannot be read
	curlCouldntConnect  = 7  // the host refused the request or could not make it
	curlHTTPError       = 22 // -f and a status of 400 or more
	curlWriteError      = 23 // an output file could not be written
	curlReadError       = 26 // an input file (-T, -H @file) could not be read
	curlTimeout         = 28 // --max-time, or the host's timeout
	curlAborted         = 42 // the run was cancelled
	curlTooManyRedirect = 47 // more than --max-redirs redirects
	curlTooLarge        = 63 // --max-filesize, or the host's max_response_bytes
)

// curlSpec is curl's command line; options with no effect here (the host
// makes the connection: TLS versions, IP versions, HTTP versions, progress
// display) are accepted and ignored.
var curlSpec = flagSpec{
	short: "X:H:d:u:o:OsSfiILw:m:A:e:b:c:vkgG#T:D:F:NnZ46",
	long: map[string]string{
		"request:": "X", "header:": "H", "data:": "d", "data-ascii:": "d", "data-binary:": "data-binary",
		"data-raw:": "data-raw", "data-urlencode:": "data-urlencode", "get": "G", "user:": "u",
		"json:": "json", "output:": "o", "remote-name": "O", "remote-name-all": "remote-name-all",
		"silent": "s", "show-error": "S", "fail": "f", "fail-with-body": "fail-with-body",
		"include": "i", "show-headers": "i", "head": "I", "location": "L", "location-trusted": "location-trusted",
		"max-redirs:": "max-redirs", "write-out:": "w", "max-time:": "m", "compressed": "compressed",
		"user-agent:": "A", "referer:": "e", "cookie:": "b", "cookie-jar:": "c", "verbose": "v", "insecure": "k",
		"globoff": "g", "progress-bar": "#", "no-progress-meter": "no-progress-meter",
		"upload-file:": "T", "dump-header:": "D", "url:": "url", "path-as-is": "path-as-is",
		"create-dirs": "create-dirs", "output-dir:": "output-dir", "post301": "post301",
		"post302": "post302", "post303": "post303", "max-filesize:": "max-filesize",
		"connect-timeout:": "connect-timeout", "no-buffer": "N", "http1.1": "http1.1", "http1.0": "http1.0",
		"http2": "http2", "http2-prior-knowledge": "http2", "tlsv1.2": "tlsv1.2", "tlsv1.3": "tlsv1.3",
		"ipv4": "4", "ipv6": "6", "raw": "raw", "parallel": "Z", "netrc": "n", "tr-encoding": "tr-encoding",
		"retry:": "retry", "retry-delay:": "retry-delay", "retry-max-time:": "retry-max-time",
		"retry-all-errors": "retry-all-errors", "retry-connrefused": "retry-connrefused",
		"form:": "F", "form-string:": "form-string", "help": "help", "version": "version", "V": "version",
	},
}

// curlOutput is where one URL's response goes: a file name (-o), the
// URL's own name (-O), or stdout when neither was given for it.
type curlOutput struct {
	name   string
	remote bool
}

// curlCmd is one parsed curl command line.
type curlCmd struct {
	p *Proc

	urls    []string
	outputs []curlOutput
	method  string // -X
	headers []string
	// data is the request body from -d, --data-*, --json; hasData says
	// one was given (an empty -d '' still makes a POST).
	data    []byte
	hasData bool
	isJSON  bool
	form    []curlFormPart
	upload  string // -T
	get     bool   // -G
	head    bool   // -I
	user    string
	hasUser bool

	silent, showError, fail, failWithBody bool
	include, follow, trusted, verbose     bool
	createDirs, pathAsIs, remoteAll       bool
	post301, post302, post303             bool

	maxRedirs   int
	writeOut    string
	maxTime     time.Duration
	maxFileSize int64
	userAgent   *string
	referer     string
	autoReferer bool
	cookies     []string // -b: "name=value" strings and cookie files
	jarFile     string   // -c
	jar         *cookieJar
	dumpHeader  string
	outputDir   string
	retries     int
	retryDelay  time.Duration
	retryAll    bool

	stdinData []byte // stdin, once read by a @- argument
	stdinRead bool
}

// curlFormPart is one -F or --form-string field.
type curlFormPart struct {
	name, value, file, contentType string
	fileName                       string
	isFile                         bool
}

// curlApplet is curl for HTTP and HTTPS: each request (and each redirect
// it follows with -L) goes to the host, which checks it against the
// sandbox's network policy and makes it. Exit statuses are curl's; a
// request the host refuses ends with 7 ("Failed to connect") and the
// host's message, which names the check and the rule at fault.
func curlApplet(p *Proc, args []string) int {
	c := &curlCmd{p: p, maxRedirs: 50}
	if status, done := c.parse(args[1:]); done {
		return status
	}
	if len(c.urls) == 0 {
		fmt.Fprintln(p.Stderr, "curl: no URL specified")
		fmt.Fprintln(p.Stderr, "curl: try 'curl --help' or 'curl --manual' for more information")
		return curlUsage
	}
	if c.head && (c.hasData || len(c.form) > 0 || c.upload != "") && !c.get {
		fmt.Fprintln(p.Stderr, "Warning: You can only select one HTTP request method! You asked for both POST")
		fmt.Fprintln(p.Stderr, "Warning: (-d, --data) and HEAD (-I, --head).")
		return curlUsage
	}
	if len(c.cookies) > 0 || c.jarFile != "" {
		c.jar = &cookieJar{}
		for _, b := range c.cookies {
			if !strings.Contains(b, "=") {
				// A file that cannot be read adds nothing, as in curl.
				if data, err := c.readArgFile(b); err == nil {
					c.jar.load(data)
				}
			}
		}
	}
	status := curlOK
	for i, raw := range c.urls {
		out := curlOutput{}
		if i < len(c.outputs) {
			out = c.outputs[i]
		} else if c.remoteAll {
			out = curlOutput{remote: true}
		}
		if s := c.transfer(raw, out); s != curlOK {
			status = s
		}
		if p.cancelled() {
			return curlAborted
		}
	}
	if c.jarFile != "" {
		if err := c.writeJar(); err != nil {
			if !c.silent || c.showError {
				fmt.Fprintf(p.Stderr, "curl: (%d) Failed to write the cookie jar %s: %s\n", curlWriteError, c.jarFile, ErrText(err))
			}
			if status == curlOK {
				status = curlWriteError
			}
		}
	}
	return status
}

// writeJar writes the cookie engine's cookies to -c's file ("-" is
// stdout), through the disk quota.
func (c *curlCmd) writeJar() error {
	data := c.jar.netscape()
	if c.jarFile == "-" {
		_, err := c.p.Stdout.Write(data)
		return err
	}
	w, err := c.p.Create(c.jarFile, false)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// parse reads the command line into c; done is true when curl should stop
// with status (a usage error, --help, --version).
func (c *curlCmd) parse(args []string) (status int, done bool) {
	p := c.p
	opts, operands, err := curlSpec.parse(args)
	if err != nil {
		var fe *flagError
		if errors.As(err, &fe) && !fe.unknown {
			fmt.Fprintf(p.Stderr, "curl: option %s: requires parameter\n", fe.opt)
		} else if errors.As(err, &fe) {
			fmt.Fprintf(p.Stderr, "curl: option %s: is unknown\n", fe.opt)
		} else {
			fmt.Fprintf(p.Stderr, "curl: %s\n", err)
		}
		fmt.Fprintln(p.Stderr, "curl: try 'curl --help' or 'curl --manual' for more information")
		return curlUsage, true
	}
	c.urls = operands
	bad := func(opt, why string) (int, bool) {
		fmt.Fprintf(p.Stderr, "curl: option %s: %s\n", opt, why)
		fmt.Fprintln(p.Stderr, "curl: try 'curl --help' or 'curl --manual' for more information")
		return curlUsage, true
	}
	seconds := func(o opt) (time.Duration, bool) {
		f, err := strconv.ParseFloat(o.val, 64)
		if err != nil || f < 0 || f > 1e9 {
			return 0, false
		}
		return time.Duration(f * float64(time.Second)), true
	}
	for _, o := range opts {
		switch o.name {
		case "X":
			c.method = o.val
		case "H":
			if strings.HasPrefix(o.val, "@") {
				lines, err := c.readArgFile(o.val[1:])
				if err != nil {
					fmt.Fprintf(p.Stderr, "curl: (%d) Failed to open/read local data from file %s: %s\n", curlReadError, o.val[1:], ErrText(err))
					return curlReadError, true
				}
				for _, line := range strings.Split(strings.ReplaceAll(string(lines), "\r\n", "\n"), "\n") {
					if strings.TrimSpace(line) != "" {
						c.headers = append(c.headers, line)
					}
				}
				continue
			}
			c.headers = append(c.headers, o.val)
		case "d", "data-binary", "data-raw", "data-urlencode", "json":
			piece, ok := c.dataPiece(o.name, o.val)
			if !ok {
				return curlReadError, true
			}
			if c.hasData && o.name != "json" {
				c.data = append(c.data, '&')
			}
			c.data = append(c.data, piece...)
			c.hasData = true
			if o.name == "json" {
				c.isJSON = true
			}
		case "F", "form-string":
			part, ok := c.formPart(o.val, o.name == "form-string")
			if !ok {
				return bad("-F", "is badly used here")
			}
			c.form = append(c.form, part)
		case "T":
			c.upload = o.val
		case "G":
			c.get = true
		case "I":
			c.head = true
		case "u":
			c.user, c.hasUser = o.val, true
		case "o":
			c.outputs = append(c.outputs, curlOutput{name: o.val})
		case "O":
			c.outputs = append(c.outputs, curlOutput{remote: true})
		case "remote-name-all":
			c.remoteAll = true
		case "s":
			c.silent = true
		case "S":
			c.showError = true
		case "f":
			c.fail = true
		case "fail-with-body":
			c.failWithBody = true
		case "i":
			c.include = true
		case "L":
			c.follow = true
		case "location-trusted":
			c.follow, c.trusted = true, true
		case "max-redirs":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < -1 {
				return bad("--max-redirs", "expected a proper numerical parameter")
			}
			c.maxRedirs = n
		case "w":
			if strings.HasPrefix(o.val, "@") {
				b, err := c.readArgFile(o.val[1:])
				if err != nil {
					return bad("-w", "error encountered when reading a file")
				}
				c.writeOut = string(b)
				continue
			}
			c.writeOut = o.val
		case "m":
			d, ok := seconds(o)
			if !ok {
				return bad("-m", "expected a proper numerical parameter")
			}
			c.maxTime = d
		case "connect-timeout", "retry-max-time":
			if _, ok := seconds(o); !ok {
				return bad("--"+o.name, "expected a proper numerical parameter")
			}
		case "retry":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				return bad("--retry", "expected a proper numerical parameter")
			}
			c.retries = n
		case "retry-delay":
			d, ok := seconds(o)
			if !ok {
				return bad("--retry-delay", "expected a proper numerical parameter")
			}
			c.retryDelay = d
		case "retry-all-errors":
			c.retryAll = true
		case "max-filesize":
			n, err := parseSize(o.val)
			if err != nil {
				return bad("--max-filesize", "expected a proper numerical parameter")
			}
			c.maxFileSize = n
		case "A":
			ua := o.val
			c.userAgent = &ua
		case "e":
			c.referer = o.val
			if r, ok := strings.CutSuffix(o.val, ";auto"); ok {
				c.referer, c.autoReferer = r, true
			}
		case "b":
			c.cookies = append(c.cookies, o.val)
		case "c":
			c.jarFile = o.val
		case "v":
			c.verbose = true
		case "D":
			c.dumpHeader = o.val
		case "url":
			c.urls = append(c.urls, o.val)
		case "path-as-is":
			c.pathAsIs = true
		case "create-dirs":
			c.createDirs = true
		case "output-dir":
			c.outputDir = o.val
		case "post301":
			c.post301 = true
		case "post302":
			c.post302 = true
		case "post303":
			c.post303 = true
		case "help":
			fmt.Fprint(p.Stdout, curlHelp)
			return curlOK, true
		case "version":
			fmt.Fprintf(p.Stdout, "curl %s (wasm32-wasip1) amla-sandbox\nProtocols: http https\nFeatures: (requests made by the host under the sandbox's network policy)\n", curlVersion)
			return curlOK, true
		}
	}
	return curlOK, false
}

const curlHelp = `Usage: curl [options...] <url>...
 -X, --request <method>     Request method (GET, POST, PUT, ...)
 -H, --header <header/@file> Extra header ("Name: value"; "Name:" removes one)
 -d, --data <data>          POST data (@file reads a file, @- stdin)
     --data-binary <data>   POST data, files as they are
     --data-raw <data>      POST data, '@' not special
     --data-urlencode <data> POST data, URL-encoded
     --json <data>          POST JSON (sets Content-Type and Accept)
 -F, --form <name=content>  Multipart form field (name=@file uploads a file)
 -G, --get                  Put the -d data in the URL query and GET
 -u, --user <user:password> Basic authentication
 -o, --output <file>        Write to file instead of stdout
 -O, --remote-name          Write to a file named like the URL's last segment
 -T, --upload-file <file>   PUT a file
 -s, --silent / -S, --show-error
 -f, --fail / --fail-with-body  Exit 22 on HTTP status >= 400
 -i, --include / -I, --head / -D, --dump-header <file>
 -L, --location / --max-redirs <num> / --location-trusted
 -w, --write-out <format>   e.g. '%{http_code}\n'
 -m, --max-time <seconds>
 -A, --user-agent / -e, --referer / -b, --cookie <data|file>
 -v, --verbose
Requests go through the host, which applies the sandbox's network policy.
`

// readArgFile reads the file an @file argument names ("-" is stdin,
// read once and shared by every @- argument).
func (c *curlCmd) readArgFile(name string) ([]byte, error) {
	if name == "-" {
		if !c.stdinRead {
			b, err := io.ReadAll(c.p.Stdin)
			if err != nil {
				return nil, err
			}
			c.stdinData, c.stdinRead = b, true
		}
		return c.stdinData, nil
	}
	f, err := c.p.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// dataPiece is the body piece of one data option. -d @file drops the
// file's carriage returns and newlines, --data-binary keeps them,
// --data-raw takes '@' literally, --data-urlencode encodes; a file that
// cannot be read makes an empty piece and a warning, as in curl.
func (c *curlCmd) dataPiece(kind, val string) ([]byte, bool) {
	readOr := func(name string) []byte {
		b, err := c.readArgFile(name)
		if err != nil {
			fmt.Fprintf(c.p.Stderr, "Warning: Couldn't read data from file \"%s\", this makes an empty\nWarning: POST.\n", name)
			return nil
		}
		return b
	}
	switch kind {
	case "d":
		if name, ok := strings.CutPrefix(val, "@"); ok {
			b := readOr(name)
			return bytes.Map(func(r rune) rune {
				if r == '\r' || r == '\n' {
					return -1
				}
				return r
			}, b), true
		}
		return []byte(val), true
	case "data-binary", "json":
		if name, ok := strings.CutPrefix(val, "@"); ok {
			return readOr(name), true
		}
		return []byte(val), true
	case "data-raw":
		return []byte(val), true
	}
	// --data-urlencode: "content", "=content", "name=content",
	// "@file", "name@file".
	eq := strings.IndexByte(val, '=')
	at := strings.IndexByte(val, '@')
	switch {
	case eq == 0:
		return []byte(url.QueryEscape(val[1:])), true
	case eq > 0 && (at < 0 || eq < at):
		return []byte(val[:eq+1] + url.QueryEscape(val[eq+1:])), true
	case at == 0:
		return []byte(url.QueryEscape(string(readOr(val[1:])))), true
	case at > 0:
		return []byte(val[:at] + "=" + url.QueryEscape(string(readOr(val[at+1:])))), true
	}
	return []byte(url.QueryEscape(val)), true
}

// formPart reads "name=value", "name=@file[;type=T][;filename=F]" or
// "name=<file" (the file's content as the value); literal takes the value
// as it is (--form-string).
func (c *curlCmd) formPart(spec string, literal bool) (curlFormPart, bool) {
	name, value, ok := strings.Cut(spec, "=")
	if !ok || name == "" {
		return curlFormPart{}, false
	}
	part := curlFormPart{name: name, value: value}
	if literal {
		return part, true
	}
	if strings.HasPrefix(value, "@") || strings.HasPrefix(value, "<") {
		fields := strings.Split(value[1:], ";")
		part.file, part.isFile = fields[0], value[0] == '@'
		part.value = ""
		if part.isFile {
			part.fileName = path.Base(fields[0])
		}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			switch k {
			case "type":
				part.contentType = v
			case "filename":
				part.fileName = v
			}
		}
		return part, true
	}
	if v, t, ok := strings.Cut(value, ";type="); ok {
		part.value, part.contentType = v, t
	}
	return part, true
}

// curlTransfer is what one URL's transfer produced, for -w.
type curlTransfer struct {
	original      string
	url           *url.URL
	method        string
	resp          wire.HTTPResponse
	hasResp       bool
	redirects     int
	redirectURL   string
	sizeUpload    int
	sizeHeader    int
	sizeDownload  int
	start         time.Time
	redirectTime  time.Duration
	total         time.Duration
	exitCode      int
	errMsg        string
	fileEffective string
}

// transfer fetches one URL (following redirects with -L), writes its
// output and -w, and returns curl's status for it.
func (c *curlCmd) transfer(raw string, out curlOutput) int {
	t := &curlTransfer{original: raw, start: time.Now()}
	status := c.doTransfer(raw, out, t)
	t.exitCode = status
	t.total = time.Since(t.start)
	if c.writeOut != "" {
		c.writeOutput(t)
	}
	return status
}

// fail reports a curl error (unless -s without -S) and returns its status.
func (c *curlCmd) failWith(t *curlTransfer, status int, msg string) int {
	t.errMsg = msg
	if !c.silent || c.showError {
		fmt.Fprintf(c.p.Stderr, "curl: (%d) %s\n", status, msg)
	}
	return status
}

func (c *curlCmd) doTransfer(raw string, out curlOutput, t *curlTransfer) int {
	p := c.p
	u, urlUser, err := parseClientURL(raw, c.pathAsIs)
	if err != nil {
		return c.urlFailed(t, err)
	}
	user, hasUser := c.user, c.hasUser
	if !hasUser && urlUser != nil {
		pw, _ := urlUser.Password()
		user, hasUser = urlUser.Username()+":"+pw, true
	}
	if hasUser && !strings.Contains(user, ":") {
		// curl would ask for the password; there is no terminal to ask on.
		user += ":"
	}
	body, bodyType, status := c.requestBody(u)
	if status != curlOK {
		return c.failWith(t, status, "Failed to open/read local data from file/application")
	}
	if c.get && c.hasData {
		q := string(c.data)
		if u.RawQuery != "" {
			q = u.RawQuery + "&" + q
		}
		u.RawQuery = q
		body, bodyType = nil, ""
	}
	if c.upload != "" && strings.HasSuffix(u.Path, "/") {
		u.Path += path.Base(c.upload)
		u.RawPath = ""
	}
	method := "GET"
	switch {
	case c.head:
		method = "HEAD"
	case body != nil:
		method = "POST"
		if c.upload != "" {
			method = "PUT"
		}
	}
	t.sizeUpload = len(body)

	ctx := p.ctx()
	if c.maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.maxTime)
		defer cancel()
	}
	first := u
	var prev *url.URL
	var dest *curlDest
	defer func() {
		if dest != nil {
			dest.close()
		}
	}()
	for {
		t.url, t.method = u, method
		if c.method != "" {
			t.method = c.method
		}
		req := c.buildRequest(u, t.method, body, bodyType, user, hasUser && (c.trusted || sameOrigin(u, first)), first, prev)
		if c.verbose {
			c.verboseRequest(u, req)
		}
		resp, err := c.do(ctx, req)
		if err != nil {
			return c.requestFailed(t, err)
		}
		t.resp, t.hasResp = resp, true
		if c.jar != nil {
			c.jar.receive(u, resp.Headers, time.Now())
		}
		if c.verbose {
			writeHeaderBlock(p.Stderr, resp, "< ", "\n", true)
		}
		headerBlock := new(bytes.Buffer)
		n, _ := writeHeaderBlock(headerBlock, resp, "", "\r\n", true)
		t.sizeHeader += n
		if c.dumpHeader != "" {
			if err := c.dumpHeaders(headerBlock.Bytes()); err != nil {
				return c.failWith(t, curlWriteError, fmt.Sprintf("Failed to open %s: %s", c.dumpHeader, ErrText(err)))
			}
		}
		next, err := redirectTarget(u, resp, c.pathAsIs)
		if err != nil {
			return c.urlFailed(t, err)
		}
		if next != nil && !c.follow {
			t.redirectURL = next.String()
		}
		failing := (c.fail || c.failWithBody) && resp.Status >= 400
		if c.fail && !c.failWithBody && failing {
			return c.failWith(t, curlHTTPError, fmt.Sprintf("The requested URL returned error: %d", resp.Status))
		}
		if c.include || c.head {
			if dest == nil {
				if dest, status = c.openOutput(first, out, t); status != curlOK {
					return status
				}
			}
			if err := dest.write(headerBlock.Bytes()); err != nil {
				return c.writeFailed(t, dest, err)
			}
		}
		if next != nil && c.follow {
			if c.maxRedirs >= 0 && t.redirects >= c.maxRedirs {
				return c.failWith(t, curlTooManyRedirect, fmt.Sprintf("Maximum (%d) redirects followed", c.maxRedirs))
			}
			if getAfterRedirect(resp.Status, method, c.post301, c.post302, c.post303) {
				method, body, bodyType = "GET", nil, ""
			}
			if c.verbose {
				fmt.Fprintf(p.Stderr, "* Issue another request to this URL: '%s'\n", next)
			}
			t.redirects++
			t.redirectTime = time.Since(t.start)
			prev, u = u, next
			continue
		}
		if c.maxFileSize > 0 && int64(len(resp.Body)) > c.maxFileSize {
			return c.failWith(t, curlTooLarge, "Maximum file size exceeded")
		}
		if dest == nil {
			if dest, status = c.openOutput(first, out, t); status != curlOK {
				return status
			}
		}
		if method != "HEAD" {
			if err := dest.write(resp.Body); err != nil {
				return c.writeFailed(t, dest, err)
			}
			t.sizeDownload = len(resp.Body)
		}
		if failing {
			return c.failWith(t, curlHTTPError, fmt.Sprintf("The requested URL returned error: %d", resp.Status))
		}
		return curlOK
	}
}

// urlFailed reports a URL curl cannot use: status 1 for a scheme other
// than http and https, 3 for a malformed URL.
func (c *curlCmd) urlFailed(t *curlTransfer, err error) int {
	var ue *urlError
	if errors.As(err, &ue) && ue.status() == curlUnsupported {
		return c.failWith(t, curlUnsupported, err.Error())
	}
	return c.failWith(t, curlBadURL, err.Error())
}

// do makes one request, retrying transient failures --retry times as curl
// does: timeouts and the statuses 408, 429, 500, 502, 503, 504 (and, with
// --retry-all-errors, every failure).
func (c *curlCmd) do(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
	h := c.p.HTTP
	if h == nil {
		return wire.HTTPResponse{}, &hostapi.RefusedError{Code: wire.CodeHTTPRefused, Check: "network",
			Message: "no network: this shell has no host to make HTTP requests"}
	}
	delay := c.retryDelay
	if delay == 0 {
		delay = time.Second
	}
	for attempt := 0; ; attempt++ {
		resp, err := h.Do(ctx, req)
		if attempt >= c.retries || ctx.Err() != nil || !c.transient(resp, err) {
			return resp, err
		}
		if !c.silent {
			fmt.Fprintf(c.p.Stderr, "Warning: Problem : transient error. Will retry in %g seconds. %d retries left.\n",
				delay.Seconds(), c.retries-attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
			return resp, err
		}
		hostcall.Sleep(delay)
		if c.retryDelay == 0 {
			delay *= 2
		}
	}
}

// transient reports whether a request's outcome is worth a retry.
func (c *curlCmd) transient(resp wire.HTTPResponse, err error) bool {
	if err != nil {
		var re *hostapi.RefusedError
		if c.retryAll {
			return true
		}
		return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &re) && re.Check == "timeout"
	}
	switch resp.Status {
	case 408, 429, 500, 502, 503, 504:
		return true
	}
	return c.retryAll && resp.Status >= 400
}

// requestFailed turns a failed request into curl's status and message.
func (c *curlCmd) requestFailed(t *curlTransfer, err error) int {
	var re *hostapi.RefusedError
	if c.p.ctx().Err() != nil {
		// Stopped from outside (`timeout`, a cancelled run): a killed
		// curl says nothing.
		t.errMsg = "Operation was aborted by an application callback"
		return curlAborted
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return c.failWith(t, curlTimeout, fmt.Sprintf("Operation timed out after %d milliseconds with 0 bytes received",
			time.Since(t.start).Milliseconds()))
	case errors.Is(err, context.Canceled):
		return c.failWith(t, curlAborted, "Operation was aborted by an application callback")
	case errors.As(err, &re):
		switch {
		case re.Check == "timeout" || re.Check == "deadline":
			return c.failWith(t, curlTimeout, re.Message)
		case re.Check == "max_response_bytes":
			return c.failWith(t, curlTooLarge, re.Message)
		case re.Code == wire.CodeCancelled:
			return c.failWith(t, curlAborted, re.Message)
		}
		return c.failWith(t, curlCouldntConnect, re.Message)
	}
	return c.failWith(t, curlCouldntConnect, err.Error())
}

// requestBody is the body of the first request and its default
// Content-Type: -d/--json data, a multipart form (-F) or an upload file
// (-T); nil when there is none. status is curlReadError when an upload
// or form file cannot be read.
func (c *curlCmd) requestBody(u *url.URL) (body []byte, contentType string, status int) {
	switch {
	case c.upload != "":
		b, err := c.readArgFile(c.upload)
		if err != nil {
			return nil, "", curlReadError
		}
		return append([]byte{}, b...), "", curlOK
	case len(c.form) > 0:
		return c.multipart()
	case c.hasData:
		if c.isJSON {
			return append([]byte{}, c.data...), "application/json", curlOK
		}
		return append([]byte{}, c.data...), "application/x-www-form-urlencoded", curlOK
	}
	return nil, "", curlOK
}

// multipart encodes the -F fields as multipart/form-data.
func (c *curlCmd) multipart() ([]byte, string, int) {
	var b bytes.Buffer
	boundary := fmt.Sprintf("------------------------%016x", time.Now().UnixNano())
	for _, part := range c.form {
		value := []byte(part.value)
		if part.file != "" {
			data, err := c.readArgFile(part.file)
			if err != nil {
				return nil, "", curlReadError
			}
			value = data
		}
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"%s\"", boundary, quoteFormName(part.name))
		if part.isFile {
			fmt.Fprintf(&b, "; filename=\"%s\"", quoteFormName(part.fileName))
			if part.contentType == "" {
				part.contentType = "application/octet-stream"
			}
		}
		b.WriteString("\r\n")
		if part.contentType != "" {
			fmt.Fprintf(&b, "Content-Type: %s\r\n", part.contentType)
		}
		b.WriteString("\r\n")
		b.Write(value)
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), "multipart/form-data; boundary=" + boundary, curlOK
}

// quoteFormName escapes a name for a Content-Disposition parameter.
func quoteFormName(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "%0D", "\n", "%0A").Replace(s)
}

// buildRequest is the request for one hop. curl's own headers come first
// (Authorization from -u, User-Agent, Accept, Referer, Cookie,
// Content-Type); a -H header of the same name replaces them, "Name:"
// removes one and "Name;" sends it empty. Authorization and Cookie, from
// -u, -b or -H alike, go only to the origin of the first URL unless
// --location-trusted.
func (c *curlCmd) buildRequest(u *url.URL, method string, body []byte, bodyType, user string, sendUser bool, first, prev *url.URL) wire.HTTPRequest {
	credentials := c.trusted || sameOrigin(u, first)
	type hdr struct{ name, value string }
	var own []hdr
	if sendUser {
		own = append(own, hdr{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(user))})
	}
	ua := "curl/" + curlVersion
	if c.userAgent != nil {
		ua = *c.userAgent
	}
	if ua != "" {
		own = append(own, hdr{"User-Agent", ua})
	}
	own = append(own, hdr{"Accept", "*/*"})
	if c.isJSON && body != nil {
		own[len(own)-1].value = "application/json"
	}
	referer := c.referer
	if c.autoReferer && prev != nil {
		referer = prev.String()
	}
	if referer != "" {
		own = append(own, hdr{"Referer", referer})
	}
	if cookie := c.cookieHeader(u, credentials); cookie != "" {
		own = append(own, hdr{"Cookie", cookie})
	}
	if body != nil && bodyType != "" {
		own = append(own, hdr{"Content-Type", bodyType})
	}

	var custom []hdr
	removed := map[string]bool{}
	for _, h := range c.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			if n, ok := strings.CutSuffix(strings.TrimSpace(h), ";"); ok && n != "" {
				custom = append(custom, hdr{n, ""})
			}
			continue
		}
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		value = strings.TrimSpace(value)
		if !credentials && (strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Cookie")) {
			continue
		}
		if value == "" {
			removed[strings.ToLower(name)] = true
			continue
		}
		custom = append(custom, hdr{name, value})
	}
	replaced := map[string]bool{}
	for _, h := range custom {
		replaced[strings.ToLower(h.name)] = true
	}
	req := wire.HTTPRequest{Method: method, URL: u.String(), Body: body}
	for _, h := range own {
		key := strings.ToLower(h.name)
		if !replaced[key] && !removed[key] {
			req.Headers = append(req.Headers, [2]string{h.name, h.value})
		}
	}
	for _, h := range custom {
		req.Headers = append(req.Headers, [2]string{h.name, h.value})
	}
	return req
}

// cookieHeader is the Cookie header for u: -b's "name=value" strings as
// they are (to the first URL's origin only unless --location-trusted),
// then the cookie engine's cookies that match u.
func (c *curlCmd) cookieHeader(u *url.URL, credentials bool) string {
	var parts []string
	for _, b := range c.cookies {
		if strings.Contains(b, "=") && credentials {
			parts = append(parts, strings.TrimSpace(b))
		}
	}
	if c.jar != nil {
		if h := c.jar.header(u, time.Now()); h != "" {
			parts = append(parts, h)
		}
	}
	return strings.Join(parts, "; ")
}

// verboseRequest writes -v's view of a request to stderr.
func (c *curlCmd) verboseRequest(u *url.URL, req wire.HTTPRequest) {
	var b strings.Builder
	fmt.Fprintf(&b, "* Request through the host: %s\n", req.URL)
	target := u.EscapedPath()
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	fmt.Fprintf(&b, "> %s %s HTTP/1.1\n> Host: %s\n", req.Method, target, u.Host)
	for _, h := range req.Headers {
		fmt.Fprintf(&b, "> %s: %s\n", h[0], h[1])
	}
	if len(req.Body) > 0 {
		fmt.Fprintf(&b, "> Content-Length: %d\n", len(req.Body))
	}
	b.WriteString(">\n")
	io.WriteString(c.p.Stderr, b.String())
}

// dumpHeaders appends a header block to -D's file ("-" is stdout).
func (c *curlCmd) dumpHeaders(block []byte) error {
	if c.dumpHeader == "-" {
		_, err := c.p.Stdout.Write(block)
		return err
	}
	w, err := c.p.Create(c.dumpHeader, true)
	if err != nil {
		return err
	}
	_, err = w.Write(block)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// curlDest is where a transfer's output goes, opened when the first byte
// (or an empty body) is ready, so that -f leaves no file behind.
type curlDest struct {
	w    io.Writer
	file io.WriteCloser
	name string
}

func (d *curlDest) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := d.w.Write(b)
	return err
}

func (d *curlDest) close() error {
	if d.file != nil {
		return d.file.Close()
	}
	return nil
}

// openOutput opens out for u, the URL as given (not where redirects
// led): stdout, the -o file, or (with -O) u's last path segment. Files are charged to the disk quota.
func (c *curlCmd) openOutput(u *url.URL, out curlOutput, t *curlTransfer) (*curlDest, int) {
	name := out.name
	if out.remote {
		name = remoteFileName(u)
		if name == "" {
			return nil, c.failWith(t, curlWriteError, "Remote file name has no length")
		}
	}
	if name == "" || name == "-" && !out.remote {
		return &curlDest{w: c.p.Stdout}, curlOK
	}
	if c.outputDir != "" && !path.IsAbs(name) {
		name = path.Join(c.outputDir, name)
	}
	if c.createDirs {
		if dir := path.Dir(c.p.Path(name)); dir != "" {
			if err := hostcall.MkdirAll(dir, 0o755); err != nil {
				return nil, c.failWith(t, curlWriteError, fmt.Sprintf("Failed to create the directory %s: %s", path.Dir(name), ErrText(err)))
			}
		}
	}
	f, err := c.p.Create(name, false)
	if err != nil {
		return nil, c.failWith(t, curlWriteError, fmt.Sprintf("Failed to open the file %s: %s", name, ErrText(err)))
	}
	t.fileEffective = name
	return &curlDest{w: f, file: f, name: name}, curlOK
}

// writeFailed reports an output write that failed (curl's status 23).
func (c *curlCmd) writeFailed(t *curlTransfer, d *curlDest, err error) int {
	msg := "Failure writing output to destination"
	if d.name != "" {
		msg += ": " + d.name + ": " + ErrText(err)
	}
	return c.failWith(t, curlWriteError, msg)
}

// writeOutput writes -w's format for t: %{variable} and %header{name}
// are replaced, \n \r \t are escapes, %{stdout} and %{stderr} switch the
// stream. An unknown variable is warned about and left out, as in curl.
func (c *curlCmd) writeOutput(t *curlTransfer) {
	var w io.Writer = c.p.Stdout
	var b strings.Builder
	flush := func() {
		io.WriteString(w, b.String())
		b.Reset()
	}
	f := c.writeOut
	for i := 0; i < len(f); i++ {
		ch := f[i]
		switch {
		case ch == '\\' && i+1 < len(f):
			switch f[i+1] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '\\':
				b.WriteByte('\\')
			default:
				b.WriteByte('\\')
				b.WriteByte(f[i+1])
			}
			i++
		case ch == '%' && i+1 < len(f) && f[i+1] == '%':
			b.WriteByte('%')
			i++
		case ch == '%' && strings.HasPrefix(f[i+1:], "{"):
			end := strings.IndexByte(f[i:], '}')
			if end < 0 {
				b.WriteString(f[i:])
				i = len(f)
				continue
			}
			name := f[i+2 : i+end]
			i += end
			switch name {
			case "stdout":
				flush()
				w = c.p.Stdout
			case "stderr":
				flush()
				w = c.p.Stderr
			default:
				v, ok := t.variable(name)
				if !ok {
					flush()
					fmt.Fprintf(c.p.Stderr, "curl: unknown --write-out variable: '%s'\n", name)
					continue
				}
				b.WriteString(v)
			}
		case ch == '%' && strings.HasPrefix(f[i+1:], "header{"):
			end := strings.IndexByte(f[i:], '}')
			if end < 0 {
				b.WriteString(f[i:])
				i = len(f)
				continue
			}
			name := f[i+len("%header{") : i+end]
			i += end
			if t.hasResp {
				var vals []string
				for _, h := range t.resp.Headers {
					if strings.EqualFold(h[0], name) {
						vals = append(vals, h[1])
					}
				}
				b.WriteString(strings.Join(vals, ", "))
			}
		default:
			b.WriteByte(ch)
		}
	}
	flush()
}

// variable is one -w variable's value.
func (t *curlTransfer) variable(name string) (string, bool) {
	secs := func(d time.Duration) string { return fmt.Sprintf("%.6f", d.Seconds()) }
	code := 0
	if t.hasResp {
		code = t.resp.Status
	}
	switch name {
	case "http_code", "response_code":
		return fmt.Sprintf("%03d", code), true
	case "http_connect":
		return "000", true
	case "size_download":
		return strconv.Itoa(t.sizeDownload), true
	case "size_upload", "size_request":
		return strconv.Itoa(t.sizeUpload), true
	case "size_header":
		return strconv.Itoa(t.sizeHeader), true
	case "url_effective":
		if t.url == nil {
			return t.original, true
		}
		return t.url.String(), true
	case "url":
		return t.original, true
	case "content_type":
		if !t.hasResp {
			return "", true
		}
		v, _ := headerValue(t.resp.Headers, "Content-Type")
		return v, true
	case "time_total":
		return secs(t.total), true
	case "time_starttransfer":
		if !t.hasResp {
			return secs(0), true
		}
		return secs(t.total), true
	case "time_redirect":
		return secs(t.redirectTime), true
	case "time_namelookup", "time_connect", "time_appconnect", "time_pretransfer":
		// The host makes the connection; the guest sees no phases.
		return secs(0), true
	case "num_redirects":
		return strconv.Itoa(t.redirects), true
	case "redirect_url":
		return t.redirectURL, true
	case "method":
		return t.method, true
	case "scheme":
		if t.url == nil {
			return "", true
		}
		return strings.ToUpper(t.url.Scheme), true
	case "http_version":
		return "1.1", true
	case "num_headers":
		if !t.hasResp {
			return "0", true
		}
		return strconv.Itoa(len(t.resp.Headers)), true
	case "exitcode":
		return strconv.Itoa(t.exitCode), true
	case "errormsg":
		return t.errMsg, true
	case "filename_effective":
		return t.fileEffective, true
	case "speed_download":
		if t.total <= 0 {
			return "0", true
		}
		return strconv.Itoa(int(float64(t.sizeDownload) / t.total.Seconds())), true
	}
	return "", false
}

// parseSize reads a byte count with an optional k, m or g suffix.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult, s = 1<<10, s[:n-1]
		case 'm', 'M':
			mult, s = 1<<20, s[:n-1]
		case 'g', 'G':
			mult, s = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}
