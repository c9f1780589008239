package netpolicy

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// PlaceholderPrefix starts every placeholder: "amla_secret_<NAME>_<32 hex
// digits>".
const PlaceholderPrefix = "amla_secret_"

func (s *Secret) allowsHost(host string) bool {
	for _, hp := range s.hosts {
		if hp.match(host) {
			return true
		}
	}
	return false
}

func (p *Policy) newPlaceholders() error {
	for _, s := range p.secrets {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		s.Placeholder = PlaceholderPrefix + s.Name + "_" + hex.EncodeToString(b[:])
	}
	p.scrub = newScrubber(p.secrets)
	return nil
}

var placeholderTail = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Placeholders maps the name of every secret with expose=True to its
// placeholder: the host sets these as the guest's environment variables.
func (p *Policy) Placeholders() map[string]string {
	m := map[string]string{}
	for _, s := range p.secrets {
		if s.Expose {
			m[s.Name] = s.Placeholder
		}
	}
	return m
}

// SetPlaceholders replaces the placeholders drawn by ParsePolicy with
// earlier ones (a resumed run whose guest memory holds them): m maps every
// secret's name to "amla_secret_<NAME>_<32 lower-case hex digits>". It
// must be called before the policy is used, not concurrently with it.
func (p *Policy) SetPlaceholders(m map[string]string) error {
	if len(m) != len(p.secrets) {
		return errors.New("network policy: placeholders must be given for every secret, and only for them")
	}
	for _, s := range p.secrets {
		ph, ok := m[s.Name]
		tail, okPrefix := strings.CutPrefix(ph, PlaceholderPrefix+s.Name+"_")
		if !ok || !okPrefix || !placeholderTail.MatchString(tail) {
			return errors.New("network policy: bad or missing placeholder for secret " + s.Name)
		}
	}
	for _, s := range p.secrets {
		s.Placeholder = m[s.Name]
	}
	p.scrub = newScrubber(p.secrets)
	return nil
}

// basicCredentials decodes an "Authorization: Basic" value, so that a
// placeholder in a client's user:password (requests' auth=(user, token))
// is found and substituted like one in a plain header value.
func basicCredentials(name, value string) (string, bool) {
	if !strings.EqualFold(name, "Authorization") {
		return "", false
	}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// checkPlaceholders refuses a request that holds any secret's placeholder
// where that secret may not be bound: outside its "where" places, over
// http, to a host it does not name, in the host or a header name, or at
// all when the secret is not exposed.
func (p *Policy) checkPlaceholders(r *Prepared) error {
	for _, s := range p.secrets {
		ph := s.Placeholder
		type place struct{ where, what string }
		var found []place
		if strings.Contains(r.Host, strings.ToLower(ph)) {
			found = append(found, place{"host", "the host"})
		}
		if strings.Contains(r.Path, ph) {
			found = append(found, place{WherePath, "the path"})
		}
		if strings.Contains(r.RawQuery, ph) {
			found = append(found, place{WhereQuery, "the query"})
		}
		for _, h := range r.headers {
			if strings.Contains(h[0], ph) {
				found = append(found, place{"header name", "a header name"})
			}
			dec, basic := basicCredentials(h[0], h[1])
			if strings.Contains(h[1], ph) || basic && strings.Contains(dec, ph) {
				found = append(found, place{WhereHeader, "header " + h[0]})
			}
		}
		if bytes.Contains(r.body, []byte(ph)) {
			found = append(found, place{WhereBody, "the body"})
		}
		for _, f := range found {
			reason := ""
			switch {
			case !s.Expose:
				reason = "the secret is not exposed to the guest (expose=False); its placeholder may not be sent"
			case !s.where[f.where]:
				reason = "its placeholder may be bound only in " + strings.Join(s.Where, ", ")
			case r.Scheme != "https":
				reason = "a secret is sent only over https"
			case !s.allowsHost(r.Host):
				reason = "the secret may be sent only to " + strings.Join(s.Hosts, ", ")
			default:
				continue
			}
			return refuse(CheckSecret, "secrets."+s.Name, f.what+" of "+r.URL, reason)
		}
	}
	return nil
}

// outgoing is a request as it goes on the wire: placeholders replaced by
// the values, inject_headers added.
type outgoing struct {
	path     string
	rawQuery string
	headers  [][2]string
	body     []byte
	// bearing: a secret's value is in the request.
	bearing bool
}

// substitute binds the placeholders (checkPlaceholders has allowed every
// one of them) and adds the inject_headers for the request's host.
func (p *Policy) substitute(r *Prepared) (*outgoing, error) {
	o := &outgoing{path: r.Path, rawQuery: r.RawQuery, body: r.body}
	o.headers = make([][2]string, len(r.headers))
	copy(o.headers, r.headers)
	for _, s := range p.secrets {
		ph := s.Placeholder
		if strings.Contains(o.path, ph) {
			o.path = strings.ReplaceAll(o.path, ph, url.PathEscape(s.value))
			o.bearing = true
		}
		if strings.Contains(o.rawQuery, ph) {
			o.rawQuery = strings.ReplaceAll(o.rawQuery, ph, url.QueryEscape(s.value))
			o.bearing = true
		}
		for i, h := range o.headers {
			if dec, basic := basicCredentials(h[0], h[1]); basic && strings.Contains(dec, ph) {
				dec = strings.ReplaceAll(dec, ph, s.value)
				o.headers[i][1] = "Basic " + base64.StdEncoding.EncodeToString([]byte(dec))
				o.bearing = true
			} else if strings.Contains(h[1], ph) {
				o.headers[i][1] = strings.ReplaceAll(h[1], ph, s.value)
				o.bearing = true
			}
		}
		if bytes.Contains(o.body, []byte(ph)) {
			o.body = bytes.ReplaceAll(o.body, []byte(ph), []byte(s.value))
			o.bearing = true
		}
	}
	for _, ir := range p.inject {
		if !ir.host.match(r.Host) {
			continue
		}
		for _, ih := range ir.headers {
			var b strings.Builder
			for _, part := range ih.parts {
				if part.secret == nil {
					b.WriteString(part.text)
					continue
				}
				s := part.secret
				if r.Scheme != "https" {
					return nil, refuse(CheckSecret, "inject_headers."+ir.key, r.URL,
						"header "+ih.name+" carries secret "+s.Name+", which is sent only over https")
				}
				if !s.allowsHost(r.Host) {
					return nil, refuse(CheckSecret, "inject_headers."+ir.key, r.URL,
						"header "+ih.name+" carries secret "+s.Name+", which may be sent only to "+strings.Join(s.Hosts, ", "))
				}
				b.WriteString(s.value)
				o.bearing = true
			}
			kept := o.headers[:0]
			for _, h := range o.headers {
				if !strings.EqualFold(h[0], ih.name) {
					kept = append(kept, h)
				}
			}
			o.headers = append(kept, [2]string{ih.name, b.String()})
		}
	}
	return o, nil
}

// scrubber replaces every secret's value, in the encodings a server may
// echo it in, by the secret's placeholder, in one pass.
type scrubber struct {
	r     *strings.Replacer
	empty bool
}

// Fragments of an offset base64 encoding shorter than this are not
// scrubbed: they would match unrelated text.
const minScrubFragment = 8

func newScrubber(secrets []*Secret) *scrubber {
	type pair struct{ old, new string }
	seen := map[string]bool{}
	var pairs []pair
	add := func(old, ph string) {
		if old == "" || seen[old] {
			return
		}
		seen[old] = true
		pairs = append(pairs, pair{old, ph})
	}
	for _, s := range secrets {
		v, ph := []byte(s.value), s.Placeholder
		add(s.value, ph)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString(v), ph)
		}
		// The value inside a longer base64 text ("user:token" in Basic
		// credentials) starts at any of three offsets; the groups of four
		// characters that encode only the value's bytes are the same
		// whatever surrounds it.
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for k := 0; k < 3; k++ {
				full := enc.EncodeToString(append(make([]byte, k), v...))
				start := 4 * ((k + 2) / 3)
				end := 4 * ((k + len(v)) / 3)
				if end-start >= minScrubFragment && end <= len(full) {
					add(full[start:end], ph)
				}
			}
		}
		add(url.QueryEscape(s.value), ph)
		add(url.PathEscape(s.value), ph)
		if j, err := json.Marshal(s.value); err == nil {
			add(string(j[1:len(j)-1]), ph)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(s.value) == nil {
			j := bytes.TrimSpace(b.Bytes())
			add(string(j[1:len(j)-1]), ph)
		}
	}
	// Longest first: at one position the longest form wins.
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i].old) > len(pairs[j].old) })
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, p.new)
	}
	return &scrubber{r: strings.NewReplacer(args...), empty: len(pairs) == 0}
}

func (s *scrubber) string(x string) string {
	if s == nil || s.empty {
		return x
	}
	return s.r.Replace(x)
}

func (s *scrubber) bytes(x []byte) []byte {
	if s == nil || s.empty {
		return x
	}
	return []byte(s.r.Replace(string(x)))
}

// Scrub replaces every secret's value in s (in the encodings responses are
// scrubbed for) by its placeholder: for any text that came from outside
// the sandbox and did not pass through an Executor.
func (p *Policy) Scrub(s string) string { return p.scrub.string(s) }
