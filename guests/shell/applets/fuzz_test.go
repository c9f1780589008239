package applets

import (
	"regexp"
	"testing"
)

// FuzzParsers feeds arbitrary text to the hand-written parsers: sed
// scripts, POSIX regular expressions, tr sets and printf formats. None may
// panic, and a translated regex must compile or be reported.
func FuzzParsers(f *testing.F) {
	for _, seed := range []string{
		`s/a\(b\)*/\1&/g`, `/x/,/y/{p;d}`, `[[:alpha:]]\{2,3\}`, `a\|b+?`, `[]a-]`, `a-z\n[:digit:]`,
		`%5.2f %s %b`, `:a;N;$!ba;s/\n/ /g`, `y/abc/xyz/`, `1~2p`, `0,/re/d`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseSed(s, basicRE)
		_, _ = parseSed(s, extendedRE)
		for _, syn := range []regexSyntax{basicRE, extendedRE} {
			if re2, err := toRE2(s, syn); err == nil {
				_, _ = regexp.Compile(re2)
			}
		}
		_, _ = parseTrSet(s)
		_, _ = backslashEscapes(s)
		_, _ = parseSortKey(s)
		_, _ = parseList(s)
	})
}
