package applets

// compareVersions orders two strings as GNU's filevercmp does (sort -V,
// ls -v): runs of digits compare as numbers and everything else character
// by character, with '~' before the end of the string, the end before
// letters and letters before other characters ("1.0~rc1" < "1.0" <
// "1.0a" < "1.0-1"); file suffixes (".tar.gz") are compared only when the
// rest is equal; ".", ".." and other names starting with "." come first.
func compareVersions(a, b string) int {
	switch {
	case a == "" || b == "":
		return boolInt(b == "") - boolInt(a == "")
	case a[0] == '.' && b[0] != '.':
		return -1
	case a[0] != '.' && b[0] == '.':
		return 1
	case a[0] == '.':
		if a == "." || b == "." {
			return boolInt(b == ".") - boolInt(a == ".")
		}
		if a == ".." || b == ".." {
			return boolInt(b == "..") - boolInt(a == "..")
		}
	}
	ap, bp := versionPrefixLen(a), versionPrefixLen(b)
	if c := verrevcmp(a[:ap], b[:bp]); c != 0 || ap == len(a) && bp == len(b) {
		return c
	}
	return verrevcmp(a, b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// versionPrefixLen is the length of s without its file suffix: the
// longest tail of the form (\.[A-Za-z~][A-Za-z0-9~]*)*, never all of s.
func versionPrefixLen(s string) int {
	prefix := 0
	for i := 0; i < len(s); {
		i++
		prefix = i
		for i+1 < len(s) && s[i] == '.' && (isASCIIAlpha(s[i+1]) || s[i+1] == '~') {
			for i += 2; i < len(s) && (isASCIIAlpha(s[i]) || isASCIIDigit(s[i]) || s[i] == '~'); i++ {
			}
		}
	}
	return prefix
}

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// versionOrder ranks the character at s[i] outside a run of digits: the
// end of s sorts after '~' and before everything else.
func versionOrder(s string, i int) int {
	if i == len(s) {
		return -1
	}
	c := s[i]
	switch {
	case isASCIIDigit(c):
		return 0
	case isASCIIAlpha(c):
		return int(c)
	case c == '~':
		return -2
	}
	return int(c) + 256
}

// verrevcmp compares two version strings without special cases.
func verrevcmp(s, t string) int {
	i, j := 0, 0
	for i < len(s) || j < len(t) {
		for i < len(s) && !isASCIIDigit(s[i]) || j < len(t) && !isASCIIDigit(t[j]) {
			sc, tc := versionOrder(s, i), versionOrder(t, j)
			if sc != tc {
				return sc - tc
			}
			i++
			j++
		}
		for i < len(s) && s[i] == '0' {
			i++
		}
		for j < len(t) && t[j] == '0' {
			j++
		}
		firstDiff := 0
		for i < len(s) && j < len(t) && isASCIIDigit(s[i]) && isASCIIDigit(t[j]) {
			if firstDiff == 0 {
				firstDiff = int(s[i]) - int(t[j])
			}
			i++
			j++
		}
		if i < len(s) && isASCIIDigit(s[i]) {
			return 1
		}
		if j < len(t) && isASCIIDigit(t[j]) {
			return -1
		}
		if firstDiff != 0 {
			return firstDiff
		}
	}
	return 0
}
