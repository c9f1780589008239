package netpolicy

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

func quote(s string) string { return strconv.Quote(s) }

// normalizeHost returns the canonical form of a host as it appears in a
// URL without brackets: lower-case ASCII without a trailing dot, or an IP
// address in its canonical text. It refuses what a resolver could read as
// an address the floor did not see: numeric forms other than dotted
// decimal ("2130706433", "0x7f.1", "127.1", "0177.0.0.1"), scoped IPv6
// addresses, and non-ASCII names (their punycode form is accepted).
func normalizeHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	if strings.ContainsRune(h, ':') || strings.ContainsRune(h, '%') {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return "", errors.New("not a host name or IP address: " + quote(h))
		}
		if a.Zone() != "" {
			return "", errors.New("a scoped IPv6 address is not accepted: " + quote(h))
		}
		return a.String(), nil
	}
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return "", errors.New("a non-ASCII host name is not accepted, use its punycode (xn--) form: " + quote(h))
		}
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if a, err := netip.ParseAddr(h); err == nil && a.Is4() {
		return a.String(), nil
	}
	if len(h) == 0 || len(h) > 253 {
		return "", errors.New("host name length out of range: " + quote(h))
	}
	labels := strings.Split(h, ".")
	if isNumericLabel(labels[len(labels)-1]) {
		// WHATWG URL parsers and getaddrinfo read such names as IPv4
		// addresses (decimal, octal, hexadecimal, fewer than four parts).
		return "", errors.New("an IPv4 address must be written in dotted decimal (a.b.c.d): " + quote(h))
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", errors.New("bad host name label in " + quote(h))
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", errors.New("bad character " + quote(string(c)) + " in host name " + quote(h))
			}
		}
	}
	return h, nil
}

// isNumericLabel: all decimal digits, or 0x followed by hex digits.
func isNumericLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		for i := 2; i < len(l); i++ {
			c := l[i] | 0x20
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// hostPattern is a host as a rule, secret or inject_headers key names it:
// an exact host, "*" (any host) or "*.example.com" (any name ending in
// ".example.com", at any depth; not example.com itself).
type hostPattern struct {
	exact  string // when not a wildcard
	suffix string // ".example.com" for "*.example.com"
	any    bool
}

func parseHostPattern(s string) (hostPattern, error) {
	switch {
	case s == "*":
		return hostPattern{any: true}, nil
	case strings.HasPrefix(s, "*."):
		h, err := normalizeHost(s[2:])
		if err != nil {
			return hostPattern{}, err
		}
		if _, err := netip.ParseAddr(h); err == nil {
			return hostPattern{}, errors.New("a wildcard cannot prefix an IP address: " + quote(s))
		}
		return hostPattern{suffix: "." + h}, nil
	case strings.Contains(s, "*"):
		return hostPattern{}, errors.New("a host may only start with \"*.\" or be \"*\": " + quote(s))
	}
	h, err := normalizeHost(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return hostPattern{}, err
	}
	return hostPattern{exact: h}, nil
}

func (hp hostPattern) match(host string) bool {
	switch {
	case hp.any:
		return true
	case hp.suffix != "":
		return strings.HasSuffix(host, hp.suffix)
	}
	return host == hp.exact
}

func (hp hostPattern) String() string {
	switch {
	case hp.any:
		return "*"
	case hp.suffix != "":
		return "*" + hp.suffix
	}
	return hp.exact
}

// hostInMethod is how a host appears in a capability method: IPv6
// addresses in brackets.
func hostInMethod(h string) string {
	if strings.ContainsRune(h, ':') {
		return "[" + h + "]"
	}
	return h
}

func defaultPort(scheme string) int {
	if scheme == "http" {
		return 80
	}
	return 443
}
