package toolcat

import (
	"bufio"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"amlasandbox/gocore/wire"
)

func TestNames(t *testing.T) {
	cases := []struct {
		name, js, ns, py string
	}{
		{name: "get_weather", js: "get_weather", py: "get_weather"},
		{name: "github.create_issue", js: "github_create_issue", ns: "github", py: "github.create_issue"},
		{name: "stripe.charges.create", js: "stripe_charges_create", ns: "stripe", py: "stripe.charges.create"},
		// MCP servers' prefixes: "-", ":" and "/" are "_" in both languages.
		{name: "my-server.list-files", js: "my_server_list_files", ns: "my_server", py: "my_server.list_files"},
		{name: "srv:tool/sub", js: "srv_tool_sub", py: "srv_tool_sub"},
		// A dot first or last makes no namespace; in Python an empty part is no identifier.
		{name: ".hidden", js: "_hidden"},
		{name: "trailing.", js: "trailing_"},
		{name: "a..b", js: "a__b", ns: "a"},
		// Keywords: no Python path; JavaScript's globals are the guest's to judge.
		{name: "class", js: "class"},
		{name: "api.import", js: "api_import", ns: "api"},
		{name: "None.x", js: "None_x", ns: "None"},
		{name: "match", js: "match", py: "match"}, // a soft keyword is a name
		{name: "__debug__", js: "__debug__", py: "__debug__"},
		// Not identifiers in Python.
		{name: "2fa.send", js: "2fa_send", ns: "2fa"},
		{name: "web search", js: "web search"},
		{name: "a+b", js: "a+b"},
		// Unicode.
		{name: "météo.prévision", js: "météo_prévision", ns: "météo", py: "météo.prévision"},
		{name: "天气", js: "天气", py: "天气"},
		{name: "x\u00B7y", js: "x\u00B7y", py: "x\u00B7y"}, // MIDDLE DOT continues (Other_ID_Continue)
		{name: "\u00B7y", js: "\u00B7y"},                   // but does not start
		{name: "x\u200Dy", js: "x\u200Dy", py: "x\u200Dy"}, // ZWJ continues since Unicode 15.1
		{name: "\u2118x", js: "\u2118x", py: "\u2118x"},    // ℘ starts (Other_ID_Start)
		{name: "\u037Ax", js: "\u037Ax"},                   // ͺ: not kept by NFKC
		{name: "a\u2E2Fb", js: "a\u2E2Fb"},                 // ⸯ: a letter but Pattern_Syntax
		{name: "emoji_\U0001F600", js: "emoji_\U0001F600"},
		{name: "\U0002EBF0", js: "\U0002EBF0", py: "\U0002EBF0"}, // CJK extension I (15.1)
		{name: "", js: ""},
	}
	for _, c := range cases {
		if got := JSName(c.name); got != c.js {
			t.Errorf("JSName(%q) = %q, want %q", c.name, got, c.js)
		}
		if got := JSNamespace(c.name); got != c.ns {
			t.Errorf("JSNamespace(%q) = %q, want %q", c.name, got, c.ns)
		}
		if got := PyPath(c.name); got != c.py {
			t.Errorf("PyPath(%q) = %q, want %q", c.name, got, c.py)
		}
		// The guests slice a name and its forms at the same offsets.
		if js := JSName(c.name); len(js) != len(c.name) {
			t.Errorf("JSName(%q) changed the length", c.name)
		}
		if py := PyPath(c.name); py != "" && len(py) != len(c.name) {
			t.Errorf("PyPath(%q) changed the length", c.name)
		}
	}
}

// Two tools whose names differ only where one has "." and the other "_"
// share their JavaScript global: the guest gives it to the first.
func TestAnnotateClash(t *testing.T) {
	in := []wire.ToolInfo{{Name: "a.b"}, {Name: "a_b", Method: "mcp:srv/a_b"}, {Name: "a-b", JS: "forged", Py: "forged"}}
	got := Annotate(in)
	want := []wire.ToolInfo{
		{Name: "a.b", JS: "a_b", NS: "a", Py: "a.b"},
		{Name: "a_b", Method: "mcp:srv/a_b", JS: "a_b", Py: "a_b"},
		{Name: "a-b", JS: "a_b", Py: "a_b"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Annotate:\n got %+v\nwant %+v", got, want)
	}
	if in[0].JS != "" || in[2].JS != "forged" {
		t.Errorf("Annotate changed its input: %+v", in)
	}
	if !Annotated(got) || Annotated(in[:1]) || !Annotated(nil) {
		t.Error("Annotated is wrong")
	}
	if Annotate(nil) != nil {
		t.Error("Annotate(nil) is not nil")
	}
}

func TestRank(t *testing.T) {
	tools := []wire.ToolInfo{
		{Name: "github.create_issue", Description: "Create an issue in a repository."},
		{Name: "github.add_label", Description: "Add a label to an issue or a pull request."},
		{Name: "jira.create_ticket", Description: "Open a ticket (an ISSUE) in Jira."},
		{Name: "weather", Description: "Today's weather"},
		{Name: "labels.list", Description: "Every label of a repository."},
	}
	cases := []struct {
		query string
		want  []int
	}{
		// 3 for a word in the name, 1 for one only in the description.
		{"issue", []int{0, 1, 2}},
		{"issue label", []int{1}}, // every word must match: 1+3 for add_label
		{"label", []int{1, 4}},    // both in the name: ties keep the order
		{"create", []int{0, 2}},
		{"ISSUE  create", []int{0, 2}}, // case and spacing do not matter
		{"repository", []int{0, 4}},
		{"list repository", []int{4}},
		{"nothing-like-it", nil},
		{"", []int{0, 1, 2, 3, 4}}, // no words: every tool
		{"   ", []int{0, 1, 2, 3, 4}},
		{"github", []int{0, 1}},
		{"weather today", []int{3}},
	}
	for _, c := range cases {
		got := Rank(tools, c.query)
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Rank(%q) = %v, want %v", c.query, got, c.want)
		}
	}
	// A word in the name outranks words in the description.
	if s1, s2 := Score("add_label", "x", Words("label")), Score("x", "label", Words("label")); s1 != 3 || s2 != 1 {
		t.Errorf("scores %d and %d, want 3 and 1", s1, s2)
	}
}

func TestFirstLine(t *testing.T) {
	cases := map[string]string{
		"":                       "",
		"one":                    "one",
		"\n\n  first \nsecond":   "first",
		"  \n\t\n":               "",
		"line one.\r\nline two.": "line one.",
	}
	for in, want := range cases {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPyIdentifierMatchesCPython holds PyIdentifier to CPython 3.13's
// str.isidentifier, the Python guest's, on every code point:
// testdata/pyident.txt lists, as ranges, the code points c for which
// c.isidentifier() ("start") and ("a" + c).isidentifier() ("continue")
// are true, as the guest printed them (testdata/pyident.py).
func TestPyIdentifierMatchesCPython(t *testing.T) {
	f, err := os.Open("testdata/pyident.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]map[rune]bool{"start": {}, "continue": {}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			t.Fatalf("bad line %q", sc.Text())
		}
		lo, err1 := strconv.ParseInt(fields[1], 16, 32)
		hi, err2 := strconv.ParseInt(fields[2], 16, 32)
		set := want[fields[0]]
		if err1 != nil || err2 != nil || set == nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		for r := rune(lo); r <= rune(hi); r++ {
			set[r] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want["start"]) < 100000 {
		t.Fatalf("testdata/pyident.txt has only %d start characters", len(want["start"]))
	}
	bad := 0
	for r := rune(0); r <= 0x10FFFF && bad < 20; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are no UTF-8
		}
		if got := PyIdentifier(string(r)); got != want["start"][r] {
			t.Errorf("PyIdentifier(%U) = %v, CPython says %v", r, got, want["start"][r])
			bad++
		}
		if got := PyIdentifier("a" + string(r)); got != want["continue"][r] {
			t.Errorf("PyIdentifier(\"a\" + %U) = %v, CPython says %v", r, got, want["continue"][r])
			bad++
		}
	}
}

// Search lists a name once, the first tool of it, with its first line.
func TestSearchUnique(t *testing.T) {
	tools := []wire.ToolInfo{
		{Name: "a", Description: "\n first a \nmore"},
		{Name: "b", Description: "the b"},
		{Name: "a", Description: "second a"},
	}
	got, err := Search(tools, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []wire.ToolHit{{Name: "a", Description: "first a"}, {Name: "b", Description: "the b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Search(\"\") = %+v, want %+v", got, want)
	}
	if got, _ := Search(tools, "second", nil); len(got) != 0 {
		t.Errorf("the second \"a\" was searched: %+v", got)
	}
	if got, _ := Search(nil, "x", nil); got == nil || len(got) != 0 {
		t.Errorf("Search(nil) = %#v, want an empty list (JSON [])", got)
	}
}

// A search's query is bounded (the host scans every tool once per word),
// and stop ends a search over many tools.
func TestSearchBounds(t *testing.T) {
	tools := []wire.ToolInfo{{Name: "a b"}}
	cases := []struct {
		query, err string
	}{
		{strings.Repeat("a ", MaxWords), ""},
		{strings.Repeat("a ", MaxWords+1), "33 words"},
		{strings.Repeat("a", MaxQuery), ""},
		{strings.Repeat("a", MaxQuery+1), "1025 bytes"},
	}
	for _, c := range cases {
		_, err := Search(tools, c.query, nil)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.20q...: error %v, want one saying %q", c.query, err, c.err)
		}
	}
	many := make([]wire.ToolInfo, 10*stopEvery)
	for i := range many {
		many[i].Name = "t" + strconv.Itoa(i)
	}
	asked := 0
	if _, err := Search(many, "t", func() bool { asked++; return asked == 3 }); !errors.Is(err, ErrStopped) || asked != 3 {
		t.Errorf("stopped search: %v after %d questions", err, asked)
	}
	if hits, err := Search(many, "t", func() bool { return false }); err != nil || len(hits) != len(many) {
		t.Errorf("a search not stopped: %d hits, %v", len(hits), err)
	}
}
