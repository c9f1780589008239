package netpolicy

import (
	"net/netip"
	"strings"
)

// specialRange is one special-purpose address block of the IANA registries
// (IPv4 and IPv6 Special-Purpose Address Registries, plus multicast and the
// reserved classes), refused by default because it is not the public
// internet: loopback, private networks, link-local (cloud metadata),
// shared address space, documentation, benchmarking, multicast.
type specialRange struct {
	prefix netip.Prefix
	name   string
	// embedded: where the block carries an IPv4 address that the packet
	// really goes to; that address is checked instead of refusing the
	// whole block.
	embedded func(a [16]byte) netip.Addr
}

var specialRanges = func() []specialRange {
	mk := func(p, name string) specialRange {
		return specialRange{prefix: netip.MustParsePrefix(p), name: name}
	}
	v4at := func(i int) func([16]byte) netip.Addr {
		return func(b [16]byte) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]}) }
	}
	embed := func(p, name string, f func([16]byte) netip.Addr) specialRange {
		r := mk(p, name)
		r.embedded = f
		return r
	}
	return []specialRange{
		// IPv4.
		mk("0.0.0.0/8", "this network"),
		mk("10.0.0.0/8", "private-use"),
		mk("100.64.0.0/10", "shared address space"),
		mk("127.0.0.0/8", "loopback"),
		mk("169.254.0.0/16", "link-local (cloud metadata)"),
		mk("172.16.0.0/12", "private-use"),
		mk("192.0.0.0/24", "IETF protocol assignments"),
		mk("192.0.2.0/24", "documentation (TEST-NET-1)"),
		mk("192.88.99.0/24", "6to4 relay anycast"),
		mk("192.168.0.0/16", "private-use"),
		mk("198.18.0.0/15", "benchmarking"),
		mk("198.51.100.0/24", "documentation (TEST-NET-2)"),
		mk("203.0.113.0/24", "documentation (TEST-NET-3)"),
		mk("224.0.0.0/4", "multicast"),
		mk("240.0.0.0/4", "reserved"),
		mk("255.255.255.255/32", "limited broadcast"),
		// IPv6.
		mk("::/128", "unspecified"),
		mk("::1/128", "loopback"),
		embed("::ffff:0:0/96", "IPv4-mapped", v4at(12)),
		mk("::/96", "IPv4-compatible (deprecated)"),
		embed("64:ff9b::/96", "NAT64 (well-known prefix)", v4at(12)),
		// RFC 6052 /48: the IPv4 address sits in bytes 6-7 and 9-10
		// (byte 8 is the reserved "u" octet).
		embed("64:ff9b:1::/48", "NAT64 (local-use prefix)", func(b [16]byte) netip.Addr {
			return netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]})
		}),
		mk("100::/64", "discard-only"),
		mk("2001::/23", "IETF protocol assignments (Teredo, ORCHID, ...)"),
		mk("2001:db8::/32", "documentation"),
		embed("2002::/16", "6to4", v4at(2)),
		mk("3fff::/20", "documentation"),
		mk("5f00::/16", "SRv6 SIDs"),
		mk("fc00::/7", "unique local"),
		mk("fe80::/10", "link-local"),
		mk("fec0::/10", "site-local (deprecated)"),
		mk("ff00::/8", "multicast"),
	}
}()

// SpecialPurpose reports whether a is in a special-purpose range, and
// which one. An address that embeds an IPv4 address (IPv4-mapped, NAT64,
// 6to4) is special exactly when the embedded address is, and the range
// named is then the embedded address's, prefixed with the form. The zone
// of a scoped address is ignored; an invalid address is special.
func SpecialPurpose(a netip.Addr) (rangeName string, special bool) {
	if !a.IsValid() {
		return "invalid address", true
	}
	a = a.WithZone("")
	for _, r := range specialRanges {
		if !r.prefix.Contains(a) {
			continue
		}
		if r.embedded != nil {
			v4 := r.embedded(a.As16())
			if name, sp := SpecialPurpose(v4); sp {
				return r.name + " of " + v4.String() + ": " + name, true
			}
			return "", false
		}
		return r.prefix.String() + " " + r.name, true
	}
	return "", false
}

// privateAllowance is the parsed allow_private list: addresses and blocks
// that may be reached although special, and host names whose requests may
// reach any address.
type privateAllowance struct {
	prefixes []netip.Prefix
	hosts    map[string]bool
}

func parseAllowPrivate(entries []string) (privateAllowance, error) {
	pa := privateAllowance{hosts: map[string]bool{}}
	for i, e := range entries {
		field := "allow_private[" + itoa(i) + "]"
		s := strings.TrimSpace(e)
		if s == "" {
			return pa, configErr(field, "empty entry")
		}
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return pa, configErr(field, "not a CIDR block: "+quote(s))
			}
			pa.prefixes = append(pa.prefixes, unmapPrefix(p.Masked()))
			continue
		}
		if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
			if a.Zone() != "" {
				return pa, configErr(field, "a scoped address is not accepted: "+quote(s))
			}
			a = a.Unmap()
			pa.prefixes = append(pa.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		h, err := normalizeHost(s)
		if err != nil {
			return pa, configErr(field, err.Error())
		}
		pa.hosts[h] = true
	}
	return pa, nil
}

func unmapPrefix(p netip.Prefix) netip.Prefix {
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p
}

// allows reports whether a request to host may connect to a.
func (pa privateAllowance) allows(host string, a netip.Addr) bool {
	if pa.hosts[host] {
		return true
	}
	a = a.WithZone("").Unmap()
	for _, p := range pa.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// checkAddress is the floor's address check, run for every address a
// connection is about to be made to.
func (p *Policy) checkAddress(host string, a netip.Addr) error {
	name, special := SpecialPurpose(a)
	if !special || p.private.allows(host, a) {
		return nil
	}
	return refuse(CheckAddress, "allow_private", host+" -> "+a.String(),
		"the address is in a special-purpose range ("+name+"); list it in allow_private to reach it")
}
