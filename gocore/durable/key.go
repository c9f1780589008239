package durable

// The durable key: snapshots, journals and approval tokens end in an
// HMAC-SHA-256 under it, so a sandbox reads back only artifacts made under
// the same key, unchanged. The key is the application's (Python:
// Sandbox(durable_key=...), AMLA_SANDBOX_DURABLE_KEY, or a random key kept
// in the user cache directory); a sandbox given none uses ProcessKey.

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"hash"
	"sync"
)

var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("durable key: no random bytes: " + err.Error())
	}
	return k
})

// ProcessKey is the random key of this process: the key of sandboxes
// given none. It is made once and never changes.
func ProcessKey() []byte { return processKey() }

// NewMAC is the keyed hash every trailer is made with: HMAC-SHA-256 under
// the durable key.
func NewMAC(key []byte) hash.Hash { return hmac.New(sha256.New, key) }
