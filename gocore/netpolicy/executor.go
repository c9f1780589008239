package netpolicy

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"amlasandbox/gocore/wire"
)

// Executor makes the HTTP requests a Policy has authorized, applying the
// floor at connect time and the policy's budgets: one per sandbox (its
// max_requests counts every request it is asked to make). It is safe for
// concurrent use; Close releases its idle connections.
type Executor struct {
	p         *Policy
	transport *http.Transport
	sem       chan struct{}
	lookup    func(ctx context.Context, host string) ([]netip.Addr, error)
	now       func() time.Time

	mu       sync.Mutex
	requests int64
}

// ExecutorOption configures an Executor.
type ExecutorOption func(*Executor)

// WithLookup replaces the resolver (net.DefaultResolver) that turns host
// names into addresses; every address it returns is checked like any
// other.
func WithLookup(f func(ctx context.Context, host string) ([]netip.Addr, error)) ExecutorOption {
	return func(e *Executor) { e.lookup = f }
}

// WithSystemRoots replaces the system certificate pool the Executor trusts
// (with the policy's extra_ca_certs added to it); nil trusts only the
// extra certificates.
func WithSystemRoots(pool *x509.CertPool) ExecutorOption {
	return func(e *Executor) {
		if pool == nil {
			pool = x509.NewCertPool()
		}
		e.transport.TLSClientConfig.RootCAs = pool
	}
}

// NewExecutor builds the Executor of a policy: Go's HTTP/1.1 client with
// no proxy (the environment's proxy settings are ignored), no redirects
// followed, no cookies, TLS verified against the system roots plus the
// policy's extra_ca_certs, and every connection's address checked by the
// floor just before it is made.
func NewExecutor(p *Policy, opts ...ExecutorOption) (*Executor, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	e := &Executor{
		p:   p,
		sem: make(chan struct{}, p.MaxConcurrent),
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		now: time.Now,
	}
	e.transport = &http.Transport{
		Proxy:                  nil,
		DialContext:            e.dial,
		TLSClientConfig:        &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    p.Timeout,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      false,
	}
	for _, o := range opts {
		o(e)
	}
	if len(p.extraCerts) > 0 {
		pool := e.transport.TLSClientConfig.RootCAs.Clone()
		for _, c := range p.extraCerts {
			pool.AddCert(c)
		}
		e.transport.TLSClientConfig.RootCAs = pool
	}
	return e, nil
}

// Close closes the Executor's idle connections.
func (e *Executor) Close() { e.transport.CloseIdleConnections() }

// Requests is the number of requests the Executor has been asked to make
// and counted against max_requests.
func (e *Executor) Requests() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests
}

// grantedPortKey is the context key of a request's port when a grant
// outside the rules named it (PrepareNaming): dial allows that port for
// that request's connections.
type grantedPortKey struct{}

// dial resolves the host itself, checks every address against the floor
// (refused ones are skipped) and dials the allowed ones in turn; the
// dialer's Control checks the address of the socket once more just before
// it connects, so no path to connect() escapes the check.
func (e *Executor) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	granted, _ := ctx.Value(grantedPortKey{}).(int)
	if err != nil || (!e.p.ports[port] && port != granted) {
		return nil, refuse(CheckPort, "", addr, "only ports 80, 443 and ports a rule or an http/ capability names are allowed")
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if addrs, err = e.lookup(ctx, host); err != nil {
			return nil, err
		}
	}
	var firstErr error
	for _, a := range addrs {
		if err := e.p.checkAddress(host, a); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		a = a.Unmap()
		d := net.Dialer{
			Control: func(_, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return refuse(CheckAddress, "", address, "cannot read the address being connected to")
				}
				return e.p.checkAddress(host, ap.Addr())
			},
		}
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = errors.New("no address found for " + host)
	}
	return nil, firstErr
}

// Do makes an authorized request (one attempt per Authorize) and returns
// the response, scrubbed of every secret; a 3xx response is returned as
// it is, for the guest to follow. The request gets the policy's timeout,
// shortened to end by deadline (the run's; zero: none); it waits for one
// of max_concurrent slots within that time, and counts against
// max_requests. Placeholders are replaced by their secrets and
// inject_headers added just before sending. Every failure is a *Refusal:
// a check's, or CheckTransport for a network error, its text scrubbed.
func (e *Executor) Do(ctx context.Context, r *Prepared, deadline time.Time) (*wire.HTTPResponse, error) {
	return e.DoReserving(ctx, r, deadline, nil)
}

// DoReserving is Do that, once the response's headers are in and before
// its body is read, asks reserve for room for the body: its
// Content-Length, or max_response_bytes when the server does not say. A
// non-nil error from reserve refuses the request with that error, and
// the body is never read; the caller releases what it reserved.
func (e *Executor) DoReserving(ctx context.Context, r *Prepared, deadline time.Time, reserve func(bodyBytes int64) error) (*wire.HTTPResponse, error) {
	p := e.p
	if r == nil || r.policy != p || !r.authorized.CompareAndSwap(true, false) {
		return nil, refuse(CheckNotAllowed, "", "", "the request was not authorized by this policy, or was already made")
	}
	timeout := p.Timeout
	if !deadline.IsZero() {
		left := deadline.Sub(e.now())
		if left <= 0 {
			return nil, refuse(CheckDeadline, "", r.URL, "the run's deadline has passed")
		}
		timeout = min(timeout, left)
	}
	e.mu.Lock()
	if e.requests >= p.MaxRequests {
		e.mu.Unlock()
		return nil, refuse(CheckMaxRequests, "max_requests", r.URL,
			"the policy's max_requests ("+strconv.FormatInt(p.MaxRequests, 10)+") is spent")
	}
	e.requests++
	e.mu.Unlock()

	if r.portGranted {
		ctx = context.WithValue(ctx, grantedPortKey{}, r.Port)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	timedOut := func() error {
		return refuse(CheckTimeout, "timeout", r.URL, "no complete response within "+timeout.Round(time.Millisecond).String())
	}
	select {
	case e.sem <- struct{}{}:
		defer func() { <-e.sem }()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, timedOut()
		}
		return nil, refuse(CheckTransport, "", r.URL, "cancelled")
	}

	out, err := p.substitute(r)
	if err != nil {
		return nil, err
	}
	hostPort := hostInMethod(r.Host)
	if r.Port != defaultPort(r.Scheme) {
		hostPort += ":" + strconv.Itoa(r.Port)
	}
	u := &url.URL{Scheme: r.Scheme, Host: hostPort, RawQuery: out.rawQuery}
	if decoded, err := url.PathUnescape(out.path); err == nil {
		u.Path, u.RawPath = decoded, out.path
	} else {
		return nil, refuse(CheckPath, "", r.URL, "cannot decode the path")
	}
	var body io.Reader = http.NoBody
	if len(out.body) > 0 {
		body = bytes.NewReader(out.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Verb, u.String(), body)
	if err != nil {
		return nil, refuse(CheckURL, "", r.URL, p.scrub.string(err.Error()))
	}
	req.URL = u // exactly the path and query checked, not a re-parse
	req.Host = hostPort
	req.ContentLength = int64(len(out.body))
	for _, h := range out.headers {
		req.Header.Add(h[0], h[1])
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header.Set("User-Agent", "amla-sandbox")
	}

	resp, err := e.transport.RoundTrip(req)
	if err != nil {
		if ref, ok := AsRefusal(err); ok {
			return nil, ref
		}
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, timedOut()
		}
		return nil, refuse(CheckTransport, "", r.URL, p.scrub.string(transportMessage(err)))
	}
	defer resp.Body.Close()
	expect := p.MaxResponseBytes
	if resp.ContentLength >= 0 && resp.ContentLength <= p.MaxResponseBytes {
		expect = resp.ContentLength
	}
	if reserve != nil {
		if err := reserve(expect); err != nil {
			return nil, err
		}
	}
	// Read into a buffer of the announced size, so a large body is not
	// copied as the buffer doubles.
	buf := bytes.NewBuffer(make([]byte, 0, min(expect, 1<<20)+1))
	if resp.ContentLength >= 0 {
		buf.Grow(int(expect) + 1)
	}
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, p.MaxResponseBytes+1))
	data := buf.Bytes()
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, timedOut()
		}
		return nil, refuse(CheckTransport, "", r.URL, p.scrub.string("reading the response: "+transportMessage(err)))
	}
	if int64(len(data)) > p.MaxResponseBytes {
		return nil, refuse(CheckResponseSize, "max_response_bytes", r.URL,
			"the response body is bigger than max_response_bytes ("+strconv.FormatInt(p.MaxResponseBytes, 10)+")")
	}
	if ce := strings.TrimSpace(resp.Header.Get("Content-Encoding")); out.bearing && ce != "" && !strings.EqualFold(ce, "identity") {
		return nil, refuse(CheckEncoding, "", r.URL,
			"the response to a request carrying a secret is encoded ("+ce+") and cannot be scrubbed")
	}
	return e.response(r, resp, data), nil
}

// response builds the guest's answer: body and headers scrubbed,
// Content-Length set to the body handed over (a HEAD response keeps the
// server's).
func (e *Executor) response(r *Prepared, resp *http.Response, data []byte) *wire.HTTPResponse {
	sc := e.p.scrub
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		if k != "Content-Length" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	body := sc.bytes(data)
	headers := make([][2]string, 0, len(names)+1)
	for _, k := range names {
		for _, v := range resp.Header[k] {
			headers = append(headers, [2]string{sc.string(k), sc.string(v)})
		}
	}
	if cl := resp.Header.Get("Content-Length"); r.Verb == "HEAD" && cl != "" {
		// A HEAD response has no body; its length is the resource's.
		headers = append(headers, [2]string{"Content-Length", cl})
	} else {
		headers = append(headers, [2]string{"Content-Length", strconv.Itoa(len(body))})
	}
	text := http.StatusText(resp.StatusCode)
	if _, reason, ok := strings.Cut(resp.Status, " "); ok {
		text = sc.string(reason)
	}
	return &wire.HTTPResponse{
		Status:     resp.StatusCode,
		StatusText: text,
		Headers:    headers,
		Body:       body,
		URL:        r.URL,
	}
}

// transportMessage is a transport error without the URL Go wraps it in
// (that URL is the one sent, which may hold a secret).
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
