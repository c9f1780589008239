package host

import (
	"testing"

	"amlasandbox/gocore/wire"
)

// A tools_search request is answered by the host from the sandbox's tools,
// ranked by toolcat; it is no tool call: the handler never sees it, it is
// not among the run's calls and does not count against max tool calls.
func TestToolSearchAnsweredByHost(t *testing.T) {
	tools := []wire.ToolInfo{
		{Name: "github.add_label", Description: "Add a label to an issue.\nMore."},
		{Name: "github.create_issue", Description: "Create an issue."},
		{Name: "weather", Description: "Today's weather."},
	}
	sb, err := NewSandbox(testGuest, Config{Tools: tools, Limits: Limits{MaxToolCalls: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	seen := 0
	answer := func(ev wire.Event) (string, error) { seen++; return "null", nil }
	cases := []struct{ code, want string }{
		{`call tools_search {"query":"issue"}`,
			`ok [{"name":"github.create_issue","description":"Create an issue."},{"name":"github.add_label","description":"Add a label to an issue."}]` + "\n"},
		{`call tools_search {"query":"nothing"}`, "ok []\n"},
		{`call tools_search {"query":""}`,
			`ok [{"name":"github.add_label","description":"Add a label to an issue."},{"name":"github.create_issue","description":"Create an issue."},{"name":"weather","description":"Today's weather."}]` + "\n"},
		{`call tools_search []`, "err tools_search: params must be {\"query\": \"<words>\"}: json: cannot unmarshal array into Go value of type wire.ToolSearch\n"},
	}
	for _, c := range cases {
		res := run(t, sb, c.code, answer)
		if res.Stdout != c.want || res.ErrorKind != "" {
			t.Errorf("%s: got %q (%s), want %q", c.code, res.Stdout, res.Error, c.want)
		}
		if len(res.ToolCalls) != 0 {
			t.Errorf("%s: the run reports calls %+v", c.code, res.ToolCalls)
		}
	}
	if seen != 0 {
		t.Errorf("the handler saw %d requests", seen)
	}
}
