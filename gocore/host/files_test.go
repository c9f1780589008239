package host

import (
	"errors"
	"strings"
	"testing"
)

func TestSandboxPath(t *testing.T) {
	tests := []struct {
		in    string
		clean string
		kind  string // "" = accepted
	}{
		{"/workspace/a.txt", "/workspace/a.txt", ""},
		{"a.txt", "/workspace/a.txt", ""},
		{"./d//e/", "/workspace/d/e", ""},
		{"/tmp", "/tmp", ""},
		{"/tmp/./x", "/tmp/x", ""},
		{"", "", FileInvalid},
		{"/workspace/a\x00b", "", FileInvalid},
		{"/workspace/\xff", "", FileInvalid},
		{"../etc/passwd", "", FileDenied},
		{"/workspace/a/../b", "", FileDenied},
		{"/etc/passwd", "", FileDenied},
		{"/", "", FileDenied},
		{"/workspacex", "", FileDenied},
		{"/usr/lib/python3.13/site-packages", "", FileDenied},
	}
	for _, tc := range tests {
		clean, comps, err := sandboxPath(tc.in)
		if tc.kind == "" {
			if err != nil || clean != tc.clean || "/"+strings.Join(comps, "/") != tc.clean {
				t.Errorf("sandboxPath(%q) = %q, %q, %v; want %q", tc.in, clean, comps, err, tc.clean)
			}
			continue
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Kind != tc.kind || fe.Path != tc.in {
			t.Errorf("sandboxPath(%q) error = %v; want kind %s naming the path", tc.in, err, tc.kind)
		}
	}
}
