package decl

import "testing"

// benchTools are the first 100 tools of the GitHub-like set.
func benchTools(b *testing.B) []Tool {
	tools := loadTools(b, "github")
	if len(tools) < 100 {
		b.Fatalf("only %d tools", len(tools))
	}
	return tools[:100]
}

// BenchmarkRender100 renders the declarations of 100 tools from their
// schemas, in both languages (the budget: 10 ms).
func BenchmarkRender100(b *testing.B) {
	tools := benchTools(b)
	b.ReportAllocs()
	for b.Loop() {
		s := NewSet(tools)
		_ = s.TypeScript()
		_ = s.Python()
	}
}

// BenchmarkRender100TypeScript is one language only: the prompt's case.
func BenchmarkRender100TypeScript(b *testing.B) {
	tools := benchTools(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = NewSet(tools).TypeScript()
	}
}

// BenchmarkDescribeOne is one tool's declaration, as tools.describe
// would ask for it from a set of 100.
func BenchmarkDescribeOne(b *testing.B) {
	tools := benchTools(b)
	b.ReportAllocs()
	for b.Loop() {
		s := NewSet(tools)
		if _, ok, _ := s.Declaration("python", "github.create_issue"); !ok {
			b.Fatal("no such tool")
		}
	}
}
