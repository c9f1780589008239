package durable

// The envelope of a durable artifact:
//
//	magic (8 bytes) · version (1 byte) · body · trailer (32 bytes)
//
// The trailer is an HMAC-SHA-256 under the durable key: of every byte
// before it (CheckTrailer: a journal), or of what the format says it
// covers (a snapshot's skeleton, which its files digest completes).

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// TrailerSize is the size of an artifact's trailer.
const TrailerSize = sha256.Size

// ErrorFunc makes the errors of one format: each wraps that format's
// sentinel error (snapshot.ErrInvalid, journal.ErrInvalid).
type ErrorFunc func(format string, a ...any) error

// CheckHeader checks data's magic and version and returns the bytes
// before its 32-byte trailer. what names the artifact in errors
// ("snapshot", "journal").
func CheckHeader(data []byte, magic string, version byte, what string, mkErr ErrorFunc) ([]byte, error) {
	if len(data) < len(magic)+1+TrailerSize {
		return nil, mkErr("%d bytes are too few for an amla-sandbox %s", len(data), what)
	}
	if string(data[:len(magic)]) != magic {
		return nil, mkErr("not an amla-sandbox %s (it does not start with %q)", what, magic)
	}
	if v := data[len(magic)]; v != version {
		why := ""
		if v < version {
			why = "; older versions carry no authentication and cannot be read"
		}
		return nil, mkErr("%s format version %d is not supported (this build reads version %d%s)", what, v, version, why)
	}
	return data[:len(data)-TrailerSize], nil
}

// AuthError is the error for a trailer that is not the MAC of what it
// covers: another key made it, or the bytes were changed.
func AuthError(what string, mkErr ErrorFunc) error {
	return mkErr("authentication failed: this %s was made under another durable key, or its bytes were changed, truncated or damaged "+
		"(give the key it was made with: durable_key=... or AMLA_SANDBOX_DURABLE_KEY)", what)
}

// CheckTrailer verifies that data ends with the MAC under key of every
// byte before it (a journal's trailer) and returns those bytes.
func CheckTrailer(data []byte, magic string, version byte, what string, mkErr ErrorFunc, key []byte) ([]byte, error) {
	body, err := CheckHeader(data, magic, version, what, mkErr)
	if err != nil {
		return nil, err
	}
	m := NewMAC(key)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), data[len(body):]) {
		return nil, AuthError(what, mkErr)
	}
	return body, nil
}

// AppendString appends s as a uvarint length and its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendBytes appends v as a uvarint length and its bytes.
func AppendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}
