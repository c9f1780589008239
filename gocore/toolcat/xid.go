package toolcat

import "unicode"

// The Unicode properties XID_Start and XID_Continue, which Python's
// identifiers are made of (PEP 3131), derived from Go's tables as Unicode
// Standard Annex #31 defines them: ID_Start is the letters (L), letter
// numbers (Nl) and Other_ID_Start, less Pattern_Syntax and
// Pattern_White_Space; ID_Continue adds the marks Mn and Mc, the digits
// Nd, the connectors Pc and Other_ID_Continue. The X forms leave out the
// few characters that NFKC does not keep identifiers of (xidOut). Go's
// tables are of Unicode 15.0, CPython 3.13's of 15.1: unicode151 adds
// what 15.1 added. TestPyIdentifierMatchesCPython holds the result to
// CPython 3.13's str.isidentifier on every code point.

var (
	idStart    = []*unicode.RangeTable{unicode.L, unicode.Nl, unicode.Other_ID_Start}
	idContinue = []*unicode.RangeTable{unicode.L, unicode.Nl, unicode.Other_ID_Start,
		unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue}
	notID = []*unicode.RangeTable{unicode.Pattern_Syntax, unicode.Pattern_White_Space}
)

// xidOut are the characters of ID_Start (and, except U+0E33, U+0EB3,
// U+FF9E and U+FF9F, of ID_Continue) that XID_Start (XID_Continue) leaves
// out.
var xidOut = map[rune]bool{
	0x037A: true, 0x0E33: true, 0x0EB3: true, 0x309B: true, 0x309C: true,
	0xFC5E: true, 0xFC5F: true, 0xFC60: true, 0xFC61: true, 0xFC62: true, 0xFC63: true,
	0xFDFA: true, 0xFDFB: true, 0xFE70: true, 0xFE72: true, 0xFE74: true, 0xFE76: true,
	0xFE78: true, 0xFE7A: true, 0xFE7C: true, 0xFE7E: true, 0xFF9E: true, 0xFF9F: true,
}

// xidContinueKept are the characters of xidOut that XID_Continue keeps.
var xidContinueKept = map[rune]bool{0x0E33: true, 0x0EB3: true, 0xFF9E: true, 0xFF9F: true}

// unicode151Start are the letters Unicode 15.1 added (CJK Unified
// Ideographs Extension I); unicode151Continue the characters it added to
// ID_Continue alone (ZWNJ, ZWJ and the two katakana middle dots).
var (
	unicode151Start    = &unicode.RangeTable{R32: []unicode.Range32{{Lo: 0x2EBF0, Hi: 0x2EE5D, Stride: 1}}}
	unicode151Continue = map[rune]bool{0x200C: true, 0x200D: true, 0x30FB: true, 0xFF65: true}
)

func xidStart(r rune) bool {
	if unicode.Is(unicode151Start, r) {
		return true
	}
	return unicode.IsOneOf(idStart, r) && !unicode.IsOneOf(notID, r) && !xidOut[r]
}

func xidContinue(r rune) bool {
	if unicode.Is(unicode151Start, r) || unicode151Continue[r] {
		return true
	}
	return unicode.IsOneOf(idContinue, r) && !unicode.IsOneOf(notID, r) && (!xidOut[r] || xidContinueKept[r])
}
