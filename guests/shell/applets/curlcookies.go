package applets

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// cookieJar is curl's cookie engine, on when -b or -c is given: cookies
// read from -b files (Netscape format) and received in Set-Cookie headers
// are kept for the rest of the command and sent to the requests they
// match (so a login that sets a cookie and redirects carries it on with
// -L), and -c writes them out at the end.
type cookieJar struct {
	cookies []jarCookie
}

// jarCookie is one stored cookie. hostOnly cookies match their host
// exactly; others match it and every name under it. expires is Unix
// seconds, 0 for a session cookie.
type jarCookie struct {
	domain, path, name, value  string
	hostOnly, secure, httpOnly bool
	expires                    int64
}

// load adds the cookies of a Netscape-format cookie file.
func (j *cookieJar) load(data []byte) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
			line, httpOnly = rest, true
		}
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) < 7 {
			continue
		}
		exp, _ := strconv.ParseInt(f[4], 10, 64)
		domain := strings.ToLower(f[0])
		j.set(jarCookie{domain: strings.TrimPrefix(domain, "."), hostOnly: f[1] != "TRUE" && !strings.HasPrefix(domain, "."),
			path: f[2], secure: f[3] == "TRUE", expires: exp, name: f[5], value: f[6], httpOnly: httpOnly})
	}
}

// set stores c, replacing a cookie of the same name, domain and path.
func (j *cookieJar) set(c jarCookie) {
	for i, old := range j.cookies {
		if old.name == c.name && old.domain == c.domain && old.path == c.path {
			j.cookies[i] = c
			return
		}
	}
	j.cookies = append(j.cookies, c)
}

// receive stores the Set-Cookie headers of a response to u; a cookie
// whose Domain does not cover u's host, or is a single label, is
// dropped, and one that has expired is removed.
func (j *cookieJar) receive(u *url.URL, headers [][2]string, now time.Time) {
	host := strings.ToLower(u.Hostname())
	for _, h := range headers {
		if !strings.EqualFold(h[0], "Set-Cookie") {
			continue
		}
		parts := strings.Split(h[1], ";")
		name, value, ok := strings.Cut(parts[0], "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			continue
		}
		c := jarCookie{name: name, value: strings.TrimSpace(value), domain: host, hostOnly: true, path: defaultCookiePath(u)}
		valid := true
		for _, attr := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(attr), "=")
			v = strings.TrimSpace(v)
			switch strings.ToLower(k) {
			case "domain":
				d := strings.ToLower(strings.TrimPrefix(v, "."))
				if d == "" {
					continue
				}
				if !strings.Contains(d, ".") || (host != d && !strings.HasSuffix(host, "."+d)) {
					valid = false
				}
				c.domain, c.hostOnly = d, false
			case "path":
				if strings.HasPrefix(v, "/") {
					c.path = v
				}
			case "secure":
				c.secure = true
			case "httponly":
				c.httpOnly = true
			case "max-age":
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					c.expires = now.Unix() + n
					if n <= 0 {
						c.expires = -1
					}
				}
			case "expires":
				if c.expires != 0 {
					continue // Max-Age wins
				}
				for _, layout := range []string{time.RFC1123, "Mon, 02-Jan-2006 15:04:05 MST", time.RFC850, time.ANSIC} {
					if t, err := time.Parse(layout, v); err == nil {
						c.expires = t.Unix()
						if c.expires <= 0 {
							c.expires = -1
						}
						break
					}
				}
			}
		}
		if !valid {
			continue
		}
		if c.expires != 0 && c.expires <= now.Unix() {
			j.remove(c)
			continue
		}
		j.set(c)
	}
}

// remove drops the cookie of c's name, domain and path.
func (j *cookieJar) remove(c jarCookie) {
	kept := j.cookies[:0]
	for _, old := range j.cookies {
		if !(old.name == c.name && old.domain == c.domain && old.path == c.path) {
			kept = append(kept, old)
		}
	}
	j.cookies = kept
}

// defaultCookiePath is RFC 6265's default path: the request path up to
// its last '/'.
func defaultCookiePath(u *url.URL) string {
	p := u.Path
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// header is "name=value; ..." for the cookies that match u.
func (j *cookieJar) header(u *url.URL, now time.Time) string {
	host := strings.ToLower(u.Hostname())
	var parts []string
	for _, c := range j.cookies {
		if c.hostOnly && host != c.domain || !c.hostOnly && host != c.domain && !strings.HasSuffix(host, "."+c.domain) {
			continue
		}
		if c.secure && u.Scheme != "https" || c.expires != 0 && c.expires <= now.Unix() {
			continue
		}
		if !(u.Path == c.path || strings.HasPrefix(u.Path, strings.TrimSuffix(c.path, "/")+"/") || c.path == "/") {
			continue
		}
		parts = append(parts, c.name+"="+c.value)
	}
	return strings.Join(parts, "; ")
}

// netscape is the jar as a Netscape-format cookie file (curl -c).
func (j *cookieJar) netscape() []byte {
	var b bytes.Buffer
	b.WriteString("# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n# This file was generated by libcurl! Edit at your own risk.\n\n")
	for _, c := range j.cookies {
		domain, sub := c.domain, "FALSE"
		if !c.hostOnly {
			domain, sub = "."+c.domain, "TRUE"
		}
		if c.httpOnly {
			domain = "#HttpOnly_" + domain
		}
		secure := "FALSE"
		if c.secure {
			secure = "TRUE"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", domain, sub, c.path, secure, max(c.expires, 0), c.name, c.value)
	}
	return b.Bytes()
}
