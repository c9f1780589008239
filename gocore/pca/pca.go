package pca

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// KeyPrefix starts every key and signature string.
const KeyPrefix = "ed25519:"

// TimeLayout is the expires_at format: UTC, whole seconds.
const TimeLayout = "2006-01-02T15:04:05+00:00"

// DefaultCapabilities is what create_pca grants when given none.
var DefaultCapabilities = []string{"tool_call:**"}

// Authority is an Ed25519 key pair that issues PCAs.
type Authority struct {
	seed []byte
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

// ErrSeedSize is the documented text (docs/capabilities.md, "PCA tokens") for a seed that is not 32 bytes.
var ErrSeedSize = errors.New("Seed must be exactly 32 bytes")

// ExpiryRangeError is Create's refusal of an expiry outside the years 1 to
// 9999 (Python's datetime range; Python raises OverflowError for it).
type ExpiryRangeError struct{ Secs int64 }

func (e *ExpiryRangeError) Error() string {
	return fmt.Sprintf("expires_in_secs %d puts the expiry outside the years 1 to 9999", e.Secs)
}

// FromSeed derives the key pair deterministically from a 32-byte seed.
func FromSeed(seed []byte) (*Authority, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, ErrSeedSize
	}
	priv := ed25519.NewKeyFromSeed(seed)
	return &Authority{
		seed: append([]byte(nil), seed...),
		priv: priv,
		pub:  priv.Public().(ed25519.PublicKey),
	}, nil
}

// Generate makes a fresh key pair from the random source r.
func Generate(r io.Reader) (*Authority, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(r, seed); err != nil {
		return nil, fmt.Errorf("reading random seed: %w", err)
	}
	return FromSeed(seed)
}

// PublicKey returns the 32 raw public key bytes.
func (a *Authority) PublicKey() []byte { return append([]byte(nil), a.pub...) }

// PublicKeyHex returns "ed25519:" + 64 lowercase hex digits.
func (a *Authority) PublicKeyHex() string { return KeyPrefix + hex.EncodeToString(a.pub) }

// ParseKey reads an "ed25519:<64 hex digits>" public key (hex of either
// case).
func ParseKey(s string) (ed25519.PublicKey, error) {
	if !strings.HasPrefix(s, KeyPrefix) {
		return nil, fmt.Errorf("Unknown key algorithm in: %s", s)
	}
	b, err := hex.DecodeString(s[len(KeyPrefix):])
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("Invalid Ed25519 public key in: %s (want %s and 64 hex digits)", s, KeyPrefix)
	}
	return ed25519.PublicKey(b), nil
}

// Create builds and signs a PCA (docs/capabilities.md, "PCA tokens"). capabilities nil means
// DefaultCapabilities; a "tool_call:" prefix is removed from each entry.
// executor "" means the issuer's own key. expires_at is now +
// expiresInSecs, in UTC, truncated to the second; it must fall in the
// years 1 to 9999 (Python's datetime range).
func (a *Authority) Create(capabilities []string, expiresInSecs int64, executor string, now time.Time) ([]byte, error) {
	if capabilities == nil {
		capabilities = DefaultCapabilities
	}
	if executor == "" {
		executor = a.PublicKeyHex()
	}
	execKey, err := ParseKey(executor)
	if err != nil {
		return nil, err
	}
	const limit = 10000 * 366 * 86400 // far outside the range, far from overflow
	if expiresInSecs > limit || expiresInSecs < -limit {
		return nil, &ExpiryRangeError{Secs: expiresInSecs}
	}
	expires := time.Unix(now.Unix()+expiresInSecs, int64(now.Nanosecond())).UTC()
	if expires.Year() < 1 || expires.Year() > 9999 {
		return nil, &ExpiryRangeError{Secs: expiresInSecs}
	}
	caps := make([]any, len(capabilities))
	for i, c := range capabilities {
		data, err := Encode(Map{{"tool", strings.TrimPrefix(c, "tool_call:")}, {"constraints", []any{}}})
		if err != nil {
			return nil, err
		}
		caps[i] = Map{{"key", fmt.Sprintf("cap:%d", i)}, {"type", "tool-call"}, {"data", data}}
	}
	body := Map{
		{"version", []any{0, 1}},
		{"capabilities", caps},
		{"designated_executor", Map{{"type", "pubkey"}, {"value", []any{0, []byte(execKey)}}}},
		{"expires_at", expires.Format(TimeLayout)},
		{"issuer", a.PublicKeyHex()},
	}
	signed, err := Encode(body)
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(a.priv, signed)
	return Encode(append(body, Entry{"signature", KeyPrefix + hex.EncodeToString(sig)}))
}

// Token is a verified PCA.
type Token struct {
	Issuer    string // "ed25519:<hex>"
	Executor  []byte // the designated executor's public key
	ExpiresAt time.Time
	Patterns  []string // the granted tool patterns, in order
}

// Verification errors. Their texts are the engine detail that follows
// "Failed to create runtime: " in Python.
var (
	ErrNoPCA           = errors.New("No PCA provided. Create one with EphemeralAuthority().create_pca().")
	ErrNoAuthorities   = errors.New("No trusted authorities configured. Use Runtime.for_testing() for development, or set trusted_authorities in RuntimeConfig.")
	ErrUntrusted       = errors.New("PCA issuer is not a trusted authority. Ensure the PCA is signed by a trusted authority.")
	ErrBadSignature    = errors.New("PCA signature verification failed. Ensure the PCA is signed by a trusted authority.")
	ErrExpired         = errors.New("PCA has expired")
	ErrMalformed       = errors.New("PCA is malformed")
	ErrBadAuthorityKey = errors.New("Failed to set trusted authorities. Check public key format")
)

// AuthorityKeyError lists trusted keys that are not "ed25519:<64 hex>"; its
// text is docs/capabilities.md's ("PCA tokens"), with the list shown as Python shows a list of str.
type AuthorityKeyError struct{ Keys []string }

func (e *AuthorityKeyError) Error() string {
	parts := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		parts[i] = pyRepr(k)
	}
	return ErrBadAuthorityKey.Error() + ": [" + strings.Join(parts, ", ") + "]"
}
func (e *AuthorityKeyError) Unwrap() error { return ErrBadAuthorityKey }

func pyRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	r := strings.NewReplacer(`\`, `\\`, q, `\`+q, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return q + r.Replace(s) + q
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Verify decodes a PCA, checks that its issuer is one of trusted, that the
// signature is the issuer's over the token without its signature, and that
// it has not expired at now.
func Verify(token []byte, trusted []string, now time.Time) (*Token, error) {
	if len(trusted) == 0 {
		return nil, ErrNoAuthorities
	}
	keys := make([]ed25519.PublicKey, len(trusted))
	for i, t := range trusted {
		k, err := ParseKey(t)
		if err != nil {
			return nil, &AuthorityKeyError{Keys: trusted}
		}
		keys[i] = k
	}
	if len(token) == 0 {
		return nil, ErrNoPCA
	}
	v, err := Decode(token)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	m, ok := v.(Map)
	if !ok {
		return nil, malformed("not a map")
	}
	want := []string{"version", "capabilities", "designated_executor", "expires_at", "issuer", "signature"}
	if len(m) != len(want) {
		return nil, malformed("expected the fields %s", strings.Join(want, ", "))
	}
	for i, e := range m {
		if e.Key != want[i] {
			return nil, malformed("expected field %q at position %d, found %q", want[i], i, e.Key)
		}
	}
	get := func(k string) any { v, _ := m.Get(k); return v }

	// Signer first: nothing else is trusted before the signature is.
	issuer, ok := get("issuer").(string)
	if !ok {
		return nil, malformed("issuer is not a string")
	}
	issuerKey, err := ParseKey(issuer)
	if err != nil {
		return nil, malformed("issuer: %v", err)
	}
	isTrusted := false
	for _, k := range keys {
		if bytes.Equal(k, issuerKey) {
			isTrusted = true
			break
		}
	}
	if !isTrusted {
		return nil, ErrUntrusted
	}
	sigText, ok := get("signature").(string)
	if !ok || !strings.HasPrefix(sigText, KeyPrefix) {
		return nil, malformed("signature is not an %s string", KeyPrefix)
	}
	sig, err := hex.DecodeString(sigText[len(KeyPrefix):])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, malformed("signature is not 64 bytes of hex")
	}
	signed, err := Encode(m[:len(m)-1])
	if err != nil {
		return nil, malformed("%v", err)
	}
	if !ed25519.Verify(issuerKey, signed, sig) {
		return nil, ErrBadSignature
	}

	// Signed content.
	if ver, ok := get("version").([]any); !ok || len(ver) != 2 || ver[0] != int64(0) || ver[1] != int64(1) {
		return nil, malformed("unsupported version (want [0, 1])")
	}
	exp, ok := get("expires_at").(string)
	if !ok {
		return nil, malformed("expires_at is not a string")
	}
	expires, err := time.Parse(time.RFC3339, exp)
	if err != nil {
		return nil, malformed("expires_at %q is not a timestamp", exp)
	}
	if !now.Before(expires) {
		return nil, fmt.Errorf("%w (expires_at %s)", ErrExpired, exp)
	}
	de, ok := get("designated_executor").(Map)
	if !ok || len(de) != 2 || de[0].Key != "type" || de[0].Value != "pubkey" || de[1].Key != "value" {
		return nil, malformed("designated_executor is not {type: pubkey, value: [0, key]}")
	}
	dv, ok := de[1].Value.([]any)
	if !ok || len(dv) != 2 || dv[0] != int64(0) {
		return nil, malformed("designated_executor value is not [0, key]")
	}
	execKey, ok := dv[1].([]byte)
	if !ok || len(execKey) != ed25519.PublicKeySize {
		return nil, malformed("designated_executor key is not 32 bytes")
	}
	capList, ok := get("capabilities").([]any)
	if !ok {
		return nil, malformed("capabilities is not an array")
	}
	patterns := make([]string, 0, len(capList))
	for i, c := range capList {
		p, err := capabilityPattern(c)
		if err != nil {
			return nil, malformed("capabilities[%d]: %v", i, err)
		}
		patterns = append(patterns, p)
	}
	return &Token{Issuer: issuer, Executor: execKey, ExpiresAt: expires, Patterns: patterns}, nil
}

func capabilityPattern(c any) (string, error) {
	cm, ok := c.(Map)
	if !ok {
		return "", errors.New("not a map")
	}
	if t, _ := cm.Get("type"); t != "tool-call" {
		return "", fmt.Errorf("type is %v, not tool-call", t)
	}
	if _, ok := cm.Get("key"); !ok {
		return "", errors.New("no key")
	}
	raw, _ := cm.Get("data")
	data, ok := raw.([]byte)
	if !ok {
		return "", errors.New("data is not a byte string")
	}
	dv, err := Decode(data)
	if err != nil {
		return "", err
	}
	dm, ok := dv.(Map)
	if !ok {
		return "", errors.New("data is not a map")
	}
	tool, _ := dm.Get("tool")
	s, ok := tool.(string)
	if !ok {
		return "", errors.New("data has no tool pattern")
	}
	return s, nil
}
