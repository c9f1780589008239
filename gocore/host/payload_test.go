package host

import (
	"strings"
	"testing"
)

func TestCheckPayload(t *testing.T) {
	deep := strings.Repeat("[", maxPayloadDepth+1) + strings.Repeat("]", maxPayloadDepth+1)
	okDeep := strings.Repeat("[", maxPayloadDepth) + strings.Repeat("]", maxPayloadDepth)
	cases := []struct {
		name, in string
		want     string // substring of the error, "" = accepted
	}{
		{"object", `{"city":"SF","n":[1,2.5e3,-0]}`, ""},
		{"pair", `{"s":"\ud83d\ude00"}`, ""},
		{"escaped quote", `{"s":"a\"\\u0000b"}`, ""},
		{"nul escape", `{"s":"\u0000"}`, ""},
		{"lone high", `{"s":"\ud800"}`, "lone surrogate \\ud800"},
		{"lone high key", `{"\ud800":1}`, "lone surrogate"},
		{"high then non-low", `["\ud800\u0041"]`, "lone surrogate"},
		{"lone low", `"\udc00x"`, "lone surrogate \\udc00"},
		{"too deep", deep, "nested more than 500"},
		{"deep ok", okDeep, ""},
		{"long number", `{"n":` + strings.Repeat("9", maxNumberLength+1) + `}`, "a number of 4001"},
		{"number ok", strings.Repeat("9", maxNumberLength), ""},
		{"invalid utf8", "\"\xff\"", "not valid UTF-8 (at byte 1)"},
		{"not json", `{"a":}`, "not a single valid JSON value"},
		{"two values", `1 2`, "not a single valid JSON value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkPayload([]byte(c.in))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want error containing %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "Invalid payload JSON: ") {
				t.Fatalf("error %q lacks the reference prefix", err)
			}
		})
	}
}

func TestPreview(t *testing.T) {
	small := []byte(`{"a":1}`)
	if got, cut := preview(small); string(got) != string(small) || cut {
		t.Fatalf("small params changed: %s %v", got, cut)
	}
	big := []byte(`{"s":"` + strings.Repeat("é", 2000) + `"}`)
	got, cut := preview(big)
	if !cut || len(got) > 400 || !strings.Contains(string(got), "bytes)") {
		t.Fatalf("big params preview = %s (%d bytes), cut=%v", got, len(got), cut)
	}
	if err := checkPayload(got); err != nil {
		t.Fatalf("preview is not valid JSON: %v", err)
	}
}
