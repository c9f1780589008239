package hostcall

import (
	"encoding/binary"
	"testing"
)

func frame(head, stdout, stderr string) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, uint32(len(stdout)))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(stderr)))
	return append(append(append(b, head...), stdout...), stderr...)
}

func TestDecodeSpawnFrame(t *testing.T) {
	res, err := decodeSpawnFrame(frame(`{"stdout":"","stderr":"","exit_code":3,"error":"e"}`, "a\x00b\n", "{err}"))
	if err != nil || res.Stdout != "a\x00b\n" || res.Stderr != "{err}" || res.ExitCode != 3 || res.Error != "e" {
		t.Fatalf("got %+v, %v", res, err)
	}
	long := frame(`{"exit_code":0}`, "x", "")
	binary.LittleEndian.PutUint32(long, 1<<31)
	for name, b := range map[string][]byte{
		"short":          []byte("{}"),
		"lengths past":   long,
		"not json":       frame("nope", "", ""),
		"plain json":     []byte(`{"stdout":"x","stderr":"","exit_code":0}`),
		"output in json": frame(`{"exit_code":0`, "}", ""),
	} {
		if _, err := decodeSpawnFrame(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
