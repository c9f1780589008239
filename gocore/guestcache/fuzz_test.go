package guestcache

import (
	"strings"
	"testing"
)

// FuzzEngineVersion reads the engine record of arbitrary bytes as it
// reads a compiled artifact's: an error or a version, never a panic, and a
// version only from a well-formed record.
func FuzzEngineVersion(f *testing.F) {
	f.Add([]byte(nil))
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Add([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, artifact []byte) {
		v, err := EngineVersion(artifact)
		if err != nil {
			if v != "" || !strings.HasPrefix(err.Error(), "engine fingerprint: ") {
				t.Fatalf("version %q with error %v", v, err)
			}
			return
		}
		if v == "" {
			t.Fatal("no version and no error")
		}
	})
}
