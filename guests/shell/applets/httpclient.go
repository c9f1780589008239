package applets

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"amlasandbox/gocore/wire"
)

// What curl and wget share: reading a URL as the command-line tools do,
// following the redirects the host hands back, and printing a response's
// header block. The host makes each request (Proc.HTTP) under the
// sandbox's network policy and never follows a redirect itself; every hop
// is a new request that the host checks again.

// urlError is a URL the clients cannot use: curl reports unsupported
// schemes with status 1 and malformed URLs with status 3.
type urlError struct {
	scheme string // set when the scheme is the problem
	reason string
}

// status is curl's exit status for e.
func (e *urlError) status() int {
	if e.scheme != "" {
		return 1
	}
	return 3
}

func (e *urlError) Error() string {
	if e.scheme != "" {
		return fmt.Sprintf("Protocol \"%s\" not supported", e.scheme)
	}
	return "URL rejected: " + e.reason
}

// parseClientURL reads a URL as curl and wget do: without a scheme it is
// http; the fragment is never sent; an empty path is "/"; dot segments are
// resolved ("/a/../b" is "/b") unless pathAsIs; spaces are sent as %20.
// Credentials in the URL (user:pass@) are returned apart and left out of
// it.
func parseClientURL(raw string, pathAsIs bool) (u *url.URL, user *url.Userinfo, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, nil, &urlError{reason: "No host part in the URL"}
	}
	if i := strings.Index(s, "://"); i < 0 || strings.ContainsAny(s[:i], "/?#@") {
		s = "http://" + s
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return nil, nil, &urlError{reason: "Malformed input to a URL function"}
		}
	}
	u, err = url.Parse(strings.ReplaceAll(s, " ", "%20"))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "invalid port") {
			return nil, nil, &urlError{reason: "Port number was not a decimal number between 0 and 65535"}
		}
		return nil, nil, &urlError{reason: "Malformed input to a URL function"}
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, nil, &urlError{scheme: u.Scheme}
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, nil, &urlError{reason: "No host part in the URL"}
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n > 65535 {
			return nil, nil, &urlError{reason: "Port number was not a decimal number between 0 and 65535"}
		}
	}
	u.RawQuery = escapeQueryBytes(u.RawQuery)
	user, u.User = u.User, nil
	u.Fragment, u.RawFragment = "", ""
	if u.Opaque != "" {
		return nil, nil, &urlError{reason: "Malformed input to a URL function"}
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if !pathAsIs {
		p = removeDotSegments(p)
	}
	if err := setEscapedPath(u, p); err != nil {
		return nil, nil, &urlError{reason: "Malformed input to a URL function"}
	}
	return u, user, nil
}

// escapeQueryBytes percent-encodes the bytes of a raw query that may not
// appear in a request line as they are (non-ASCII, quotes, angle
// brackets, backslash, ...), leaving the rest, '%' escapes included, as
// written.
func escapeQueryBytes(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c > 0x20 && c < 0x7f && !strings.ContainsRune("\"<>\\^`{|}", rune(c)) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// setEscapedPath sets u's path from its escaped form, keeping the escapes
// as written.
func setEscapedPath(u *url.URL, escaped string) error {
	unescaped, err := url.PathUnescape(escaped)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = unescaped, escaped
	if u.EscapedPath() != escaped {
		// url keeps RawPath only when it is a valid encoding of Path;
		// otherwise it re-escapes, which is still the same path.
		u.RawPath = ""
	}
	return nil
}

// removeDotSegments is RFC 3986 section 5.2.4 on an absolute path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	var out []string
	segs := strings.Split(p, "/")[1:]
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// sameOrigin reports whether a and b have the same scheme, host and port:
// credentials and cookies the user gave for one origin are not sent to
// another after a redirect.
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Hostname(), b.Hostname()) && urlPort(a) == urlPort(b)
}

// urlPort is u's port, or its scheme's default.
func urlPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// headerValue is the first value of header name (case-insensitive), and
// whether there is one.
func headerValue(headers [][2]string, name string) (string, bool) {
	for _, h := range headers {
		if strings.EqualFold(h[0], name) {
			return h[1], true
		}
	}
	return "", false
}

// isRedirect reports whether status is one a client follows (given a
// Location).
func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// redirectTarget is where resp sends a client that was at cur: nil when
// it is not a redirect or has no Location.
func redirectTarget(cur *url.URL, resp wire.HTTPResponse, pathAsIs bool) (*url.URL, error) {
	if !isRedirect(resp.Status) {
		return nil, nil
	}
	loc, ok := headerValue(resp.Headers, "Location")
	if !ok || strings.TrimSpace(loc) == "" {
		return nil, nil
	}
	ref, err := url.Parse(strings.ReplaceAll(strings.TrimSpace(loc), " ", "%20"))
	if err != nil {
		return nil, &urlError{reason: "Malformed input to a URL function"}
	}
	next, _, err := parseClientURL(cur.ResolveReference(ref).String(), pathAsIs)
	return next, err
}

// getAfterRedirect reports whether a request of method answered by status
// is sent again as a GET without its body: a POST after 301 and 302, any
// method but GET and HEAD after 303, unless keepPost301/302/303 say
// otherwise. 307 and 308 keep the method and body.
func getAfterRedirect(status int, method string, keep301, keep302, keep303 bool) bool {
	switch status {
	case 301:
		return method == "POST" && !keep301
	case 302:
		return method == "POST" && !keep302
	case 303:
		if method == "POST" {
			return !keep303
		}
		return method != "GET" && method != "HEAD"
	}
	return false
}

// statusLine is the response's first line as the server would have sent
// it. The host does not pass on the protocol version; HTTP/1.1 stands for
// it.
func statusLine(resp wire.HTTPResponse) string {
	return strings.TrimRight(fmt.Sprintf("HTTP/1.1 %d %s", resp.Status, resp.StatusText), " ")
}

// writeHeaderBlock writes the status line and headers of resp, each line
// starting with prefix and ending with eol, then an empty line (with
// prefix and eol too when blankLine). It returns the bytes written.
func writeHeaderBlock(w io.Writer, resp wire.HTTPResponse, prefix, eol string, blankLine bool) (int, error) {
	var b strings.Builder
	b.WriteString(prefix + statusLine(resp) + eol)
	for _, h := range resp.Headers {
		b.WriteString(prefix + h[0] + ": " + h[1] + eol)
	}
	if blankLine {
		b.WriteString(prefix + eol)
	}
	return io.WriteString(w, b.String())
}

// remoteFileName is the last segment of u's path, as curl -O and wget
// name their output files ("" when the path ends in "/").
func remoteFileName(u *url.URL) string {
	p := u.EscapedPath()
	return p[strings.LastIndexByte(p, '/')+1:]
}
