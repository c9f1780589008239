package host

import (
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

func TestFromTypeScript(t *testing.T) {
	tests := []struct {
		name     string
		in       wire.Input
		wantLang string
		wantIn   string // in the code the guest gets (Code, or Stdin with HasStdin)
		wantErr  string // in the stderr text
	}{
		{"javascript untouched", wire.Input{Language: wire.LangJavaScript, Code: "const a: number = 1"}, wire.LangJavaScript, "const a: number = 1", ""},
		{"shell untouched", wire.Input{Language: wire.LangShell, Code: "echo a: b"}, wire.LangShell, "echo a: b", ""},
		{"typescript stripped", wire.Input{Language: wire.LangTypeScript, Code: "const a: number = 1;"}, wire.LangJavaScript, "const a =", ""},
		{"script on stdin", wire.Input{Language: wire.LangTypeScript, Stdin: "let s: string = 'x';", HasStdin: true}, wire.LangJavaScript, "let s =", ""},
		{"syntax error", wire.Input{Language: wire.LangTypeScript, Code: "let x: = 1;"}, "", "", "SyntaxError: Unexpected \"=\"\n    at script.ts:1:8\n"},
		{"too deep", wire.Input{Language: wire.LangTypeScript, Code: strings.Repeat("[", 5000)}, "", "", "nested more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, failed := fromTypeScript(tc.in)
			if tc.wantErr != "" {
				if !strings.Contains(failed, tc.wantErr) {
					t.Fatalf("stderr %q, want it to contain %q", failed, tc.wantErr)
				}
				return
			}
			if failed != "" {
				t.Fatalf("unexpected failure: %s", failed)
			}
			code := out.Code
			if out.HasStdin {
				code = out.Stdin
			}
			if out.Language != tc.wantLang || !strings.Contains(code, tc.wantIn) {
				t.Errorf("got %s %q, want %s containing %q", out.Language, code, tc.wantLang, tc.wantIn)
			}
		})
	}
}
