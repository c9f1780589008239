package casefile

import (
	"testing"
)

func TestParseString(t *testing.T) {
	text := `# leading comment
=== two lines and a file
$ echo a
$ cat f
--- file f
x

--- stdout
a
x
--- stderr ~
warn
--- exit 3

=== escapes
$ x
--- stdout
\--- not a header
\\two
\ kept

=== exact content
$ printf hi
--- stdout "hi"
--- want-file out.txt "1\n"
--- no-file gone
--- env A=b
--- dir d
`
	cases, err := ParseString("t", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Fatalf("got %d cases", len(cases))
	}
	c := cases[0]
	if c.Script != "echo a\ncat f" || c.Files[0] != (File{"f", "x\n"}) || c.Stdout.Text != "a\nx\n" ||
		!c.Stderr.Contains || c.Exit != 3 || c.Pos != "t:2" {
		t.Errorf("case 0 = %+v", c)
	}
	if got := cases[1].Stdout.Text; got != "--- not a header\n\\two\n\\ kept\n" {
		t.Errorf("escapes: %q", got)
	}
	c = cases[2]
	if c.Stdout.Text != "hi" || c.WantFiles[0] != (File{"out.txt", "1\n"}) || c.NoFiles[0] != "gone" ||
		c.Env[0] != "A=b" || c.Dirs[0] != "d" || c.Stderr.Set {
		t.Errorf("case 1 = %+v", c)
	}
	if !(Expect{Text: "a\nc\n", Contains: true}).Check("abc") {
		t.Error("Contains check failed")
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"stray\n",
		"=== no command\n--- stdout\nx\n",
		"=== bad\n$ x\n--- exit nope\n",
		"=== bad\n$ x\n--- frobnicate\n",
		"=== bad\n$ x\n--- dir d\ncontent\n",
	} {
		if _, err := ParseString("t", text); err == nil {
			t.Errorf("no error for %q", text)
		}
	}
}
