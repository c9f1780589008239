package netpolicy

import (
	"net/netip"
	"strings"
	"testing"
)

func TestSpecialPurpose(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		special bool
		name    string // part of the range name, when special
	}{
		{"0.0.0.0", true, "this network"},
		{"0.1.2.3", true, "this network"},
		{"10.1.2.3", true, "private"},
		{"100.64.0.1", true, "shared"},
		{"100.100.100.200", true, "shared"}, // Alibaba Cloud metadata
		{"100.128.0.1", false, ""},
		{"127.0.0.1", true, "loopback"},
		{"127.255.255.254", true, "loopback"},
		{"169.254.169.254", true, "metadata"},
		{"172.16.0.1", true, "private"},
		{"172.31.255.255", true, "private"},
		{"172.32.0.1", false, ""},
		{"192.0.0.8", true, "IETF"},
		{"192.0.2.1", true, "TEST-NET-1"},
		{"192.88.99.1", true, "6to4 relay"},
		{"192.168.1.1", true, "private"},
		{"198.18.0.1", true, "benchmarking"},
		{"198.19.255.255", true, "benchmarking"},
		{"198.51.100.7", true, "TEST-NET-2"},
		{"203.0.113.9", true, "TEST-NET-3"},
		{"224.0.0.251", true, "multicast"},
		{"239.255.255.250", true, "multicast"},
		{"240.0.0.1", true, "reserved"},
		{"255.255.255.255", true, "reserved"},
		{"8.8.8.8", false, ""},
		{"1.1.1.1", false, ""},
		{"140.82.112.3", false, ""},
		{"::", true, "unspecified"},
		{"::1", true, "loopback"},
		{"::ffff:127.0.0.1", true, "IPv4-mapped of 127.0.0.1: 127.0.0.0/8 loopback"},
		{"::ffff:169.254.169.254", true, "metadata"},
		{"::ffff:10.0.0.1", true, "private"},
		{"::ffff:8.8.8.8", false, ""},
		{"::127.0.0.1", true, "IPv4-compatible"},
		{"::8.8.8.8", true, "IPv4-compatible"},
		{"64:ff9b::7f00:1", true, "NAT64 (well-known prefix) of 127.0.0.1"},
		{"64:ff9b::a9fe:a9fe", true, "metadata"},
		{"64:ff9b::808:808", false, ""},
		{"64:ff9b:1:7f00:0:100::", true, "NAT64 (local-use prefix) of 127.0.0.1"},
		{"64:ff9b:1:808:8:800::", false, ""},
		{"100::1", true, "discard"},
		{"2001::1", true, "IETF"},           // Teredo
		{"2001:10::1", true, "IETF"},        // ORCHID
		{"2001:1ff::1", true, "IETF"},       // end of 2001::/23
		{"2001:200::1", false, ""},          // outside 2001::/23
		{"2001:4860:4860::8888", false, ""}, // public
		{"2001:db8::1", true, "documentation"},
		{"2002:7f00:1::", true, "6to4 of 127.0.0.1"},
		{"2002:a9fe:a9fe::1", true, "metadata"},
		{"2002:808:808::1", false, ""},
		{"3fff::1", true, "documentation"},
		{"5f00::1", true, "SRv6"},
		{"fc00::1", true, "unique local"},
		{"fd00:ec2::254", true, "unique local"}, // AWS IPv6 metadata
		{"fe80::1", true, "link-local"},
		{"fe80::1%eth0", true, "link-local"},
		{"febf::1", true, "link-local"},
		{"fec0::1", true, "site-local"},
		{"ff02::1", true, "multicast"},
		{"2606:4700::1111", false, ""},
	} {
		a := netip.MustParseAddr(tc.addr)
		name, special := SpecialPurpose(a)
		if special != tc.special || !strings.Contains(name, tc.name) {
			t.Errorf("SpecialPurpose(%s) = %q, %v; want %v containing %q", tc.addr, name, special, tc.special, tc.name)
		}
	}
	if _, special := SpecialPurpose(netip.Addr{}); !special {
		t.Error("the zero Addr is not special")
	}
}

func TestAllowPrivate(t *testing.T) {
	p := mustPolicy(t, `{"allow_private": ["127.0.0.1", "10.0.0.0/8", "::ffff:192.168.0.0/112", "[fd00::1]", "db.internal"]}`)
	for _, tc := range []struct {
		host, addr string
		ok         bool
	}{
		{"x.com", "127.0.0.1", true},
		{"x.com", "::ffff:127.0.0.1", true},
		{"x.com", "127.0.0.2", false},
		{"x.com", "10.9.8.7", true},
		{"x.com", "192.168.3.4", true},
		{"x.com", "192.169.0.1", true}, // public anyway
		{"x.com", "172.16.0.1", false},
		{"x.com", "fd00::1", true},
		{"x.com", "fd00::2", false},
		{"x.com", "169.254.169.254", false},
		{"db.internal", "172.16.0.1", true},
		{"db.internal", "169.254.169.254", true},
		{"x.db.internal", "172.16.0.1", false},
		{"x.com", "8.8.8.8", true},
	} {
		err := p.checkAddress(tc.host, netip.MustParseAddr(tc.addr))
		if (err == nil) != tc.ok {
			t.Errorf("checkAddress(%s, %s) = %v, want ok=%v", tc.host, tc.addr, err, tc.ok)
		}
		if err != nil {
			if ref, ok := AsRefusal(err); !ok || ref.Check != CheckAddress || !strings.Contains(ref.Value, tc.addr) {
				t.Errorf("checkAddress(%s, %s): refusal %+v", tc.host, tc.addr, ref)
			}
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	for _, tc := range []struct{ in, out, err string }{
		{"Example.COM.", "example.com", ""},
		{"127.0.0.1", "127.0.0.1", ""},
		{"::FFFF:127.0.0.1", "::ffff:127.0.0.1", ""},
		{"2130706433", "", "dotted decimal"},
		{"0x7f.1", "", "dotted decimal"},
		{"0x7F000001", "", "dotted decimal"},
		{"127.1", "", "dotted decimal"},
		{"0177.0.0.1", "", "dotted decimal"},
		{"127.000.000.001", "", "dotted decimal"},
		{"1.2.3.4.5", "", "dotted decimal"},
		{"a..b", "", "label"},
		{"a b", "", "bad character"},
		{"xn--bcher-kva.de", "xn--bcher-kva.de", ""},
		{"bücher.de", "", "punycode"},
		{"fe80::1%eth0", "", "scoped"},
		{"", "", "empty"},
		{strings.Repeat("a", 64) + ".com", "", "label"},
	} {
		got, err := normalizeHost(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("normalizeHost(%q) = %q, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.out {
			t.Errorf("normalizeHost(%q) = %q, %v; want %q", tc.in, got, err, tc.out)
		}
	}
}
