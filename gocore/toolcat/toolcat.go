package toolcat

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"amlasandbox/gocore/wire"
)

// JSName is the JavaScript identifier form of a tool's name, or of a part
// of it: each ".", "/", ":" and "-" becomes "_".
func JSName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '/', ':', '-':
			return '_'
		}
		return r
	}, name)
}

// PyName is the Python identifier form of one dot-separated part of a
// tool's name: each "/", ":" and "-" becomes "_".
func PyName(part string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', ':', '-':
			return '_'
		}
		return r
	}, part)
}

// JSNamespace is the JavaScript namespace a tool is a member of: the
// identifier form of its name before the first dot, when that dot is
// neither the first nor the last character; "" when it has none. The
// member's name is the rest after that dot.
func JSNamespace(name string) string {
	dot := strings.IndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 {
		return ""
	}
	return JSName(name[:dot])
}

// PyPath is the dotted Python path of a tool (PyName of each part), or ""
// when a part is not a Python identifier or is a keyword.
func PyPath(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		p = PyName(p)
		if !PyIdentifier(p) || pyKeywords[p] {
			return ""
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// pyKeywords are Python 3.13's keywords (keyword.kwlist).
var pyKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`False None True and as assert async await break class continue def
del elif else except finally for from global if import in is lambda nonlocal not or pass raise
return try while with yield`) {
		pyKeywords[w] = true
	}
}

// PyKeyword says whether s is a Python keyword.
func PyKeyword(s string) bool { return pyKeywords[s] }

// PyIdentifier says whether s is an identifier as Python 3.13's
// str.isidentifier decides: a first character of XID_Start or "_", the
// rest XID_Continue (Unicode 15.1, the guest's CPython).
func PyIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r < 0x80 {
			switch {
			case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			case r >= '0' && r <= '9' && i > 0:
			default:
				return false
			}
			continue
		}
		if i == 0 && !xidStart(r) || i > 0 && !xidContinue(r) {
			return false
		}
	}
	return true
}

// Annotate is tools with each one's names (wire.ToolInfo.JS, NS and Py)
// set, in a new slice; tools itself is not changed.
func Annotate(tools []wire.ToolInfo) []wire.ToolInfo {
	if tools == nil {
		return nil
	}
	out := make([]wire.ToolInfo, len(tools))
	for i, t := range tools {
		t.JS, t.NS, t.Py = JSName(t.Name), JSNamespace(t.Name), PyPath(t.Name)
		out[i] = t
	}
	return out
}

// Annotated says whether every tool has its names set (Annotate).
func Annotated(tools []wire.ToolInfo) bool {
	for _, t := range tools {
		if t.JS == "" && t.Name != "" {
			return false
		}
	}
	return true
}

// Words are a query's words: split on white space, lower-cased.
func Words(query string) []string {
	return strings.Fields(strings.ToLower(query))
}

// Score ranks one tool for the lower-case words: 0 unless every word is in
// its name or its description (ignoring case); else 3 per word in the name
// and 1 per word found only in the description.
func Score(name, description string, words []string) int {
	name, description = strings.ToLower(name), strings.ToLower(description)
	score := 0
	for _, w := range words {
		switch {
		case strings.Contains(name, w):
			score += 3
		case strings.Contains(description, w):
			score++
		default:
			return 0
		}
	}
	return score
}

// Rank is the places in tools of those that match query, best first,
// ties in the tools' order. A query with no words matches every tool.
func Rank(tools []wire.ToolInfo, query string) []int {
	ranked, _ := rank(tools, Words(query), nil)
	return ranked
}

// stopEvery is how many tools rank scores between asking stop.
const stopEvery = 64

// rank is Rank of the words; it gives up, returning false, when stop
// (nil: never) says so.
func rank(tools []wire.ToolInfo, words []string, stop func() bool) ([]int, bool) {
	type hit struct{ i, score int }
	var hits []hit
	for i, t := range tools {
		if stop != nil && i%stopEvery == stopEvery-1 && stop() {
			return nil, false
		}
		s := 1
		if len(words) > 0 {
			s = Score(t.Name, t.Description, words)
		}
		if s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	out := make([]int, len(hits))
	for k, h := range hits {
		out[k] = h.i
	}
	return out, true
}

// FirstLine is the first line of a description that is not blank,
// trimmed: what lists and search results show of a tool.
func FirstLine(description string) string {
	for _, l := range strings.Split(description, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Unique is tools with each name once: the first tool of a name (a later
// one of the same name is no tool a script can reach by it).
func Unique(tools []wire.ToolInfo) []wire.ToolInfo {
	seen := make(map[string]bool, len(tools))
	first := make([]wire.ToolInfo, 0, len(tools))
	for _, t := range tools {
		if !seen[t.Name] {
			seen[t.Name] = true
			first = append(first, t)
		}
	}
	return first
}

// A search's query is at most MaxQuery bytes of at most MaxWords words:
// a search scans every tool's name and description once per word, in
// the host, so its cost is bounded by the tool list's size.
const (
	MaxQuery = 1024
	MaxWords = 32
)

// ErrStopped is Search's error when stop ended it.
var ErrStopped = errors.New("the search was stopped")

// Search is the tools that match query, best first (Rank), each name once
// (Unique), with the first line of its description. A query over
// MaxQuery bytes or MaxWords words is an error saying so; stop (nil:
// never), asked now and then, ends the search with ErrStopped.
func Search(tools []wire.ToolInfo, query string, stop func() bool) ([]wire.ToolHit, error) {
	if len(query) > MaxQuery {
		return nil, fmt.Errorf("the query is %d bytes; a search takes at most %d", len(query), MaxQuery)
	}
	words := Words(query)
	if len(words) > MaxWords {
		return nil, fmt.Errorf("the query has %d words; a search takes at most %d", len(words), MaxWords)
	}
	tools = Unique(tools)
	ranked, ok := rank(tools, words, stop)
	if !ok {
		return nil, ErrStopped
	}
	hits := make([]wire.ToolHit, len(ranked))
	for k, i := range ranked {
		hits[k] = wire.ToolHit{Name: tools[i].Name, Description: FirstLine(tools[i].Description)}
	}
	return hits, nil
}
