package host

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

// The expected texts are Python's bytes.decode("utf-8", errors="replace").
var textCases = []struct{ in, want string }{
	{"", ""},
	{"abc", "abc"},
	{"\xc3\xa9", "é"},
	{"\xc3", "\uFFFD"},
	{"\xe2\x82", "\uFFFD"},
	{"\xe2\x82A", "\uFFFDA"},
	{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
	{"\xf0\x9f\x98\x80", "😀"},
	{"\xf0\x9f\x98", "\uFFFD"},
	{"\xff\xfe", "\uFFFD\uFFFD"},
	{"\xc0\xaf", "\uFFFD\uFFFD"},
	{"\xe0\x80\xaf", "\uFFFD\uFFFD\uFFFD"},
	{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	{"\xf0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
	{"a\x80b", "a\uFFFDb"},
	{"\xef\xbf\xbd", "\uFFFD"},
	{"\xe1\x80\xe2\xf0\x91\x92\xf1\xbfA", "\uFFFD\uFFFD\uFFFD\uFFFDA"},
	{"x\x00y", "x\x00y"},
}

func TestValidText(t *testing.T) {
	for _, tt := range textCases {
		if got := string(validText([]byte(tt.in))); got != tt.want {
			t.Errorf("validText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestTextStreamSplits: the same bytes cut into chunks at every place give
// the text they give whole.
func TestTextStreamSplits(t *testing.T) {
	for _, tt := range textCases {
		for cut := 0; cut <= len(tt.in); cut++ {
			for cut2 := cut; cut2 <= len(tt.in); cut2++ {
				var ts textStream
				got := string(ts.next([]byte(tt.in[:cut]))) + string(ts.next([]byte(tt.in[cut:cut2]))) +
					string(ts.next([]byte(tt.in[cut2:]))) + string(ts.flush())
				if got != tt.want {
					t.Errorf("%q cut at %d and %d: %q, want %q", tt.in, cut, cut2, got, tt.want)
				}
			}
		}
	}
	var ts textStream
	if got := string(ts.next([]byte("a\xc0"))); got != "a\uFFFD" {
		t.Errorf("a byte that begins nothing is held back: %q", got)
	}
}

// TestOutputText: what a run's guest writes reaches the result and the
// stream as text, a character split between two writes whole.
func TestOutputText(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		max    int64
		want   string
	}{
		{"split 2-byte", []string{"c3", "a9"}, 0, "é"},
		{"split 4-byte three ways", []string{"41f0", "9f", "9880"}, 0, "A😀"},
		{"invalid", []string{"ff41"}, 0, "\uFFFDA"},
		{"cut at the end", []string{"41e282"}, 0, "A\uFFFD"},
		{"cut by the cap", []string{"4141e282ac"}, 4, "AA\uFFFD\n[output truncated at 4 bytes]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newTestSandbox(t, Limits{MaxOutput: tt.max}, nil)
			r, err := sb.Start("shell", "raw "+strings.Join(tt.writes, " "), "", false, true)
			if err != nil {
				t.Fatal(err)
			}
			var streamed strings.Builder
			var res wire.Result
			for done := false; !done; {
				ev := r.Step(5*time.Second, true)
				switch ev.Kind {
				case wire.EventOutput:
					if ev.Stream == "stdout" {
						streamed.WriteString(ev.Data)
					}
				case wire.EventDone:
					res, done = *ev.Result, true
				}
			}
			if res.Stdout != tt.want {
				t.Errorf("result %q, want %q", res.Stdout, tt.want)
			}
			// The stream carries what was kept, without the cap's note.
			want, _, _ := strings.Cut(tt.want, "\n[output truncated")
			if streamed.String() != want {
				t.Errorf("streamed %q, want %q", streamed.String(), want)
			}
		})
	}
}

func TestValidTextDoesNotCopyValid(t *testing.T) {
	b, _ := hex.DecodeString("41c3a9")
	if got := validText(b); &got[0] != &b[0] {
		t.Error("valid text was copied")
	}
}
