package netpolicy

import (
	"errors"
	"strings"
)

const upperHex = "0123456789ABCDEF"

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// normalizeSegment puts one path segment into the RFC 3986 normal form
// both rules and requests are compared in: percent-encoded unreserved
// characters decoded, other escapes in upper case, and every byte a path
// segment may not hold raw escaped. "%2F" stays an escape, so it never
// splits a segment.
func normalizeSegment(seg string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '%' {
			if i+2 >= len(seg) {
				return "", errors.New("bad percent-encoding in path segment " + quote(seg))
			}
			hi, ok1 := unhex(seg[i+1])
			lo, ok2 := unhex(seg[i+2])
			if !ok1 || !ok2 {
				return "", errors.New("bad percent-encoding in path segment " + quote(seg))
			}
			v := hi<<4 | lo
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[v>>4])
				b.WriteByte(upperHex[v&15])
			}
			i += 2
			continue
		}
		if isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String(), nil
}

// splitPath normalizes an escaped absolute path into its segments: "" and
// "/" have none, "/a/" has "a" and "". Dot segments ("." and "..", in
// any encoding) are refused: a server would resolve them, so the path it
// serves would not be the path the rules saw.
func splitPath(escaped string) ([]string, error) {
	if escaped == "" || escaped == "/" {
		return nil, nil
	}
	if escaped[0] != '/' {
		return nil, errors.New("path must start with \"/\": " + quote(escaped))
	}
	segs := strings.Split(escaped[1:], "/")
	for i, s := range segs {
		n, err := normalizeSegment(s)
		if err != nil {
			return nil, err
		}
		if n == "." || n == ".." {
			return nil, errors.New("a dot segment (\".\" or \"..\") in the path is not accepted")
		}
		segs[i] = n
	}
	return segs, nil
}

// normalizeQuery checks a raw query's escapes and escapes the bytes a
// query may not hold raw; existing escapes and '+' are kept as they are.
func normalizeQuery(q string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '%':
			if i+2 >= len(q) {
				return "", errors.New("bad percent-encoding in query")
			}
			if _, ok := unhex(q[i+1]); !ok {
				return "", errors.New("bad percent-encoding in query")
			}
			if _, ok := unhex(q[i+2]); !ok {
				return "", errors.New("bad percent-encoding in query")
			}
			b.WriteString(q[i : i+3])
			i += 2
		case isUnreserved(c) || isSubDelim(c) || strings.IndexByte(":@/?", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String(), nil
}
