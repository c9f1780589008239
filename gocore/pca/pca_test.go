package pca

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	seedX    = bytes.Repeat([]byte("x"), 32)
	fixedNow = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Known answers for from_seed(b"x"*32), checked against an independent
// Ed25519 implementation (Python's cryptography package), once.
const (
	katPub    = "ee31f83c88a71219a6fcf9bee0da9bc22620588f5a15a6145553504df9649e5c"
	katSig    = "f363406b17f542243f4e363eee4efca057a4145d19bc621897170592606b32f4596fef70c1edafea82bd4c5494e77065c83198c01cdf836c8e09763841452c0a"
	katSHA256 = "fc51794aac590f7cefc32110f12aab3cb25182410b1f98a9f15e93896a7e8ce6"
)

// text is a CBOR text string head + bytes, written out by hand so the
// known-answer test does not depend on the encoder under test.
func text(s string) []byte {
	if len(s) < 24 {
		return append([]byte{0x60 | byte(len(s))}, s...)
	}
	return append([]byte{0x78, byte(len(s))}, s...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestKnownAnswer(t *testing.T) {
	a, err := FromSeed(seedX)
	if err != nil {
		t.Fatal(err)
	}
	if a.PublicKeyHex() != "ed25519:"+katPub {
		t.Fatalf("public key %s", a.PublicKeyHex())
	}
	pub, _ := hex.DecodeString(katPub)
	data := cat([]byte{0xa2}, text("tool"), text("**"), text("constraints"), []byte{0x80})
	body := cat(
		text("version"), []byte{0x82, 0x00, 0x01},
		text("capabilities"), []byte{0x81, 0xa3}, text("key"), text("cap:0"), text("type"), text("tool-call"),
		text("data"), []byte{0x40 | byte(len(data))}, data,
		text("designated_executor"), []byte{0xa2}, text("type"), text("pubkey"), text("value"),
		[]byte{0x82, 0x00, 0x58, 0x20}, pub,
		text("expires_at"), text("2025-01-01T01:00:00+00:00"),
		text("issuer"), text("ed25519:"+katPub),
	)
	want := cat([]byte{0xa6}, body, text("signature"), text("ed25519:"+katSig))

	got, err := a.Create([]string{"tool_call:**"}, 3600, "", fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("PCA bytes differ:\n got  %x\n want %x", got, want)
	}
	if sum := sha256.Sum256(got); hex.EncodeToString(sum[:]) != katSHA256 {
		t.Fatalf("sha256 %x", sum)
	}
	// The default capability list is the same token.
	def, _ := a.Create(nil, 3600, "", fixedNow)
	if !bytes.Equal(def, want) {
		t.Fatal("default capabilities differ")
	}
	tok, err := Verify(got, []string{"ed25519:" + katPub}, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok.Patterns) != 1 || tok.Patterns[0] != "**" || !bytes.Equal(tok.Executor, pub) {
		t.Fatalf("%+v", tok)
	}
}

func TestFromSeed(t *testing.T) {
	for _, n := range []int{0, 31, 33, 64} {
		if _, err := FromSeed(make([]byte, n)); err == nil || err.Error() != "Seed must be exactly 32 bytes" {
			t.Errorf("seed of %d bytes: %v", n, err)
		}
	}
	a1, _ := FromSeed(seedX)
	a2, _ := FromSeed(seedX)
	if a1.PublicKeyHex() != a2.PublicKeyHex() || len(a1.PublicKey()) != 32 {
		t.Fatal("not deterministic")
	}
	g, err := Generate(rand.Reader)
	if err != nil || !strings.HasPrefix(g.PublicKeyHex(), "ed25519:") || len(g.PublicKeyHex()) != 72 {
		t.Fatal(err)
	}
}

func TestCreate(t *testing.T) {
	a, _ := FromSeed(seedX)
	other, _ := FromSeed(bytes.Repeat([]byte("y"), 32))
	tok, err := a.Create([]string{"tool_call:stripe/**", "mcp:add", "tool_call:"}, 90, other.PublicKeyHex(), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(tok, []string{other.PublicKeyHex(), a.PublicKeyHex()}, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.Patterns, ",") != "stripe/**,mcp:add," || !bytes.Equal(v.Executor, other.PublicKey()) {
		t.Fatalf("%+v", v)
	}
	if !v.ExpiresAt.Equal(fixedNow.Add(90 * time.Second)) {
		t.Fatal(v.ExpiresAt)
	}
	// An empty list grants nothing; sub-second parts of now are dropped.
	tok, _ = a.Create([]string{}, 3600, "", fixedNow.Add(999*time.Millisecond))
	v, err = Verify(tok, []string{a.PublicKeyHex()}, fixedNow)
	if err != nil || len(v.Patterns) != 0 || !v.ExpiresAt.Equal(fixedNow.Add(time.Hour)) {
		t.Fatalf("%+v %v", v, err)
	}
	for _, tt := range []struct{ executor, want string }{
		{"rsa:abcd", "Unknown key algorithm in: rsa:abcd"},
		{"ED25519:" + katPub, "Unknown key algorithm in: ED25519:" + katPub},
		{"ed25519:xyz", "Invalid Ed25519 public key in: ed25519:xyz (want ed25519: and 64 hex digits)"},
	} {
		if _, err := a.Create(nil, 3600, tt.executor, fixedNow); err == nil || err.Error() != tt.want {
			t.Errorf("executor %q: %v", tt.executor, err)
		}
	}
	if _, err := a.Create(nil, 8000*366*86400, "", fixedNow); err == nil {
		t.Error("expiry beyond year 9999 accepted")
	}
	if _, err := a.Create(nil, 1<<62, "", fixedNow); err == nil {
		t.Error("huge expires_in_secs accepted")
	}
	if _, err := a.Create(nil, -1, "", fixedNow); err != nil {
		t.Errorf("an already expired token can be made: %v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	a, _ := FromSeed(seedX)
	other, _ := FromSeed(bytes.Repeat([]byte("y"), 32))
	good, _ := a.Create(nil, 3600, "", fixedNow)
	trusted := []string{a.PublicKeyHex()}

	notHex := append([]byte(nil), good...)
	notHex[len(notHex)-3] = 'g' // a digit of the signature
	idx := bytes.Index(good, []byte("**"))
	tampered := append([]byte(nil), good...)
	tampered[idx] = 'x' // the granted pattern

	tests := []struct {
		name    string
		token   []byte
		trusted []string
		now     time.Time
		want    error
	}{
		{"untrusted issuer", good, []string{other.PublicKeyHex()}, fixedNow, ErrUntrusted},
		{"expired", good, trusted, fixedNow.Add(time.Hour), ErrExpired},
		{"signature not hex", notHex, trusted, fixedNow, ErrMalformed},
		{"tampered pattern", tampered, trusted, fixedNow, ErrBadSignature},
		{"empty token", nil, trusted, fixedNow, ErrNoPCA},
		{"no authorities", good, nil, fixedNow, ErrNoAuthorities},
		{"bad authority key", good, []string{"ed25519:zz"}, fixedNow, ErrBadAuthorityKey},
		{"garbage", []byte("not cbor"), trusted, fixedNow, ErrMalformed},
		{"truncated", good[:len(good)-1], trusted, fixedNow, ErrMalformed},
		{"trailing byte", append(append([]byte(nil), good...), 0), trusted, fixedNow, ErrMalformed},
	}
	for _, tt := range tests {
		_, err := Verify(tt.token, tt.trusted, tt.now)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	// A flipped hex digit may still be hex: then it is a bad signature.
	flip2 := append([]byte(nil), good...)
	last := len(flip2) - 1
	if flip2[last] == '0' {
		flip2[last] = '1'
	} else {
		flip2[last] = '0'
	}
	if _, err := Verify(flip2, trusted, fixedNow); !errors.Is(err, ErrBadSignature) {
		t.Errorf("changed signature: %v", err)
	}
	var ke *AuthorityKeyError
	_, err := Verify(good, []string{"ed25519:zz", "it's"}, fixedNow)
	if !errors.As(err, &ke) || err.Error() != `Failed to set trusted authorities. Check public key format: ['ed25519:zz', "it's"]` {
		t.Errorf("authority key error: %v", err)
	}
	// Upper-case hex in a trusted key is the same key.
	if _, err := Verify(good, []string{"ed25519:" + strings.ToUpper(katPub)}, fixedNow); err != nil {
		t.Errorf("upper-case key: %v", err)
	}
}

func TestCBOR(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{0, "00"}, {23, "17"}, {24, "1818"}, {255, "18ff"}, {256, "190100"}, {65536, "1a00010000"},
		{int64(1) << 40, "1b0000010000000000"}, {-1, "20"}, {-25, "3818"}, {uint64(1<<64 - 1), "1bffffffffffffffff"},
		{true, "f5"}, {false, "f4"}, {nil, "f6"}, {"", "60"}, {"a", "6161"}, {[]byte{1, 2}, "420102"},
		{[]any{}, "80"}, {[]any{1, "a"}, "82016161"}, {Map{{"b", 1}, {"a", 2}}, "a2616201616102"},
	}
	for _, tt := range tests {
		b, err := Encode(tt.v)
		if err != nil || hex.EncodeToString(b) != tt.want {
			t.Errorf("Encode(%v) = %x, %v; want %s", tt.v, b, err, tt.want)
			continue
		}
		back, err := Decode(b)
		if err != nil {
			t.Errorf("Decode(%x): %v", b, err)
			continue
		}
		b2, _ := Encode(back)
		if !bytes.Equal(b, b2) {
			t.Errorf("round trip %x != %x", b, b2)
		}
	}
	if _, err := Encode(1.5); err == nil || err.Error() != "Cannot encode float64 to CBOR" {
		t.Errorf("float: %v", err)
	}
	for _, bad := range []string{
		"", "1800", "190017", "9f", "5f", "c0", "f93c00", "a1", "a10101", "a2616101616102", "62ffff",
		"9b7fffffffffffffff", "3bffffffffffffffff", "817f", strings.Repeat("81", 100) + "00",
	} {
		b, _ := hex.DecodeString(bad)
		if _, err := Decode(b); err == nil {
			t.Errorf("Decode(%s): no error", bad)
		}
	}
}

func FuzzVerify(f *testing.F) {
	a, _ := FromSeed(seedX)
	good, _ := a.Create([]string{"a", "b/**"}, 3600, "", fixedNow)
	f.Add(good)
	f.Add([]byte{0xa6})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Never panics; anything that verifies was signed by a.
		if _, err := Verify(data, []string{a.PublicKeyHex()}, fixedNow); err == nil && !bytes.Equal(data, good) {
			t.Fatalf("a token never issued verifies: %x", data)
		}
		if v, err := Decode(data); err == nil {
			b, err := Encode(v)
			if err != nil || !bytes.Equal(b, data) {
				t.Fatalf("canonical decode does not re-encode: %x -> %x (%v)", data, b, err)
			}
		}
	})
}
