package host

// The durable key: snapshots, journals and approval tokens end in an
// HMAC-SHA-256 under it, so a sandbox reads back only artifacts made under
// the same key, unchanged. The key is the application's (Python:
// Sandbox(durable_key=...), AMLA_SANDBOX_DURABLE_KEY, or a random key kept
// in the user cache directory); a sandbox given none uses a random key of
// this process (gocore/durable).

import "amlasandbox/gocore/durable"

// SetDurableKey sets the key the sandbox's artifacts are made and checked
// with (empty: the process's random key). The key is copied.
func (s *Sandbox) SetDurableKey(key []byte) {
	k := durable.ProcessKey()
	if len(key) > 0 {
		k = append([]byte(nil), key...)
	}
	s.key.Store(&k)
	// Placeholders follow the key (network.go); a policy that SetPlaceholders
	// refused keeps the ones it drew.
	_ = s.net.derivePlaceholders(k)
}

// durableKey is the key in use.
func (s *Sandbox) durableKey() []byte { return *s.key.Load() }

// ProcessDurableKey is the key of sandboxes given none.
func ProcessDurableKey() []byte { return durable.ProcessKey() }

// DecodeJournal decodes a journal made under the sandbox's key.
func (s *Sandbox) DecodeJournal(data []byte) (*Journal, error) {
	return DecodeJournal(data, s.durableKey())
}
