package typescript

import (
	"errors"
	"strings"
	"testing"
)

// lineOf is the 1-based line of the first occurrence of needle in s.
func lineOf(s, needle string) int {
	i := strings.Index(s, needle)
	if i < 0 {
		return -1
	}
	return strings.Count(s[:i], "\n") + 1
}

func TestStripKeepsLines(t *testing.T) {
	tests := []struct {
		name, src string
		marks     []string // each must stay on its source line
		absent    []string // must not survive (types)
	}{
		{
			name:   "annotations and interfaces",
			src:    "interface P { x: number;\n  y: number }\n\nconst p: P = { x: 1, y: 2 };\nfunction f(a: number, b?: string): number {\n  return a;\n}\nmarkA(f(p.x));\n",
			marks:  []string{"const p", "return a", "markA"},
			absent: []string{"interface", ": number"},
		},
		{
			name:  "enum then code on the next line",
			src:   "enum Color { Red, Green }\nconst c: Color = Color.Green;\nmarkB(c);\n",
			marks: []string{"const c", "markB"},
		},
		{
			name:  "decorators, parameter properties and generics",
			src:   "function dec(v: any, ctx: any) { return v }\n@dec\nclass A<T> {\n  constructor(private y: T) {}\n  @dec m(a: T): T { return a }\n}\nmarkC(new A<number>(1).m(2));\n",
			marks: []string{"markC"},
		},
		{
			name:  "namespace and satisfies",
			src:   "namespace N {\n  export const z = 1;\n}\nconst cfg = { a: 1 } satisfies Record<string, number>;\nmarkD(N.z, cfg);\n",
			marks: []string{"markD"},
		},
		{
			name:  "multi-line template literal is kept as written",
			src:   "const x: number = 1;\nconst s = `a\n  ${x}\nb`;\nmarkE(s);\n",
			marks: []string{"markE"},
		},
		{
			name:  "top-level await and return",
			src:   "const v: number = await Promise.resolve(1);\nif (v > 0) return v;\nmarkF(v);\nreturn\n",
			marks: []string{"if (v > 0)", "markF"},
		},
		{
			name:   "type-only import",
			src:    "import type { Foo } from './foo';\nconst f: Foo | null = null;\nmarkG(f);\n",
			marks:  []string{"markG"},
			absent: []string{"import"},
		},
		{
			name:  "regular expression with a backtick",
			src:   "const n: number = 2;\nconst r = /`/g;\nconst q = (n) / 2;\nmarkH(r, q);\n",
			marks: []string{"markH"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Strip(tc.src)
			if err != nil {
				t.Fatalf("Strip: %v", err)
			}
			for _, m := range tc.marks {
				if got, want := lineOf(out, m), lineOf(tc.src, m); got != want {
					t.Errorf("%q on line %d, want %d; output:\n%s", m, got, want, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("output still has %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestStripKeepsTemplateText(t *testing.T) {
	src := "const x: number = 1;\nconst s = `a\n  ${x}\n\nb`;\n"
	out, err := Strip(src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "`a\n  ${x}\n\nb`") {
		t.Errorf("template text changed:\n%s", out)
	}
}

func TestStripColumns(t *testing.T) {
	src := "const a: number = 1;\nconst b: string = 'x'; foo(a);\n"
	out, err := Strip(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || strings.Index(lines[1], "foo(") != strings.Index("const b: string = 'x'; foo(a);", "foo(") {
		t.Errorf("foo( not at its source column:\n%s", out)
	}
}

func TestStripReturns(t *testing.T) {
	out, err := Strip("await 0;\nreturn 5;\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "return 5;") || strings.Contains(out, "throw") {
		t.Errorf("return not restored:\n%s", out)
	}
	out, err = Strip("const s = 'return';\nawait 0;\nreturn;\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "return;") || strings.Contains(out, "throw") {
		t.Errorf("bare return not restored:\n%s", out)
	}
}

func TestStripErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"syntax error position", "const a: number = 1;\nconst b = (a +;\n", 2, 15, "Unexpected"},
		{"position after a multibyte character", "const é = 1;\nlet x: = 2;\n", 2, 8, "Unexpected"},
		{"too large", strings.Repeat("x;\n", MaxSourceBytes/3+1), 0, 0, "at most"},
		{"deep brackets", strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000), 0, 0, "nested more than"},
		{"deep prefix operators", "const x = " + strings.Repeat("!", 100000) + "1;", 0, 0, "operators in a row"},
		{"deep template substitutions", strings.Repeat("`${", 50000) + "1" + strings.Repeat("}`", 50000), 0, 0, "nested more than"},
		{"deep generics", "let x: " + strings.Repeat("A<", 100000) + "B" + strings.Repeat(">", 100000) + ";", 0, 0, "operators in a row"},
		{"deep arrows", "const f = " + strings.Repeat("a => ", 100000) + "1;", 0, 0, "operators in a row"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Strip(tc.src)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Strip error = %v, want *Error", err)
			}
			if e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", e.Line, e.Column, e.Message, tc.line, tc.col, tc.msg)
			}
		})
	}
}

func TestStripAcceptsWithinCaps(t *testing.T) {
	src := "const x = " + strings.Repeat("(", MaxNesting-1) + "1" + strings.Repeat(")", MaxNesting-1) + ";\n" +
		"const s = '" + strings.Repeat("(", 5000) + "';\n// " + strings.Repeat("{", 5000) + "\n"
	if _, err := Strip(src); err != nil {
		t.Fatalf("Strip: %v", err)
	}
}

func BenchmarkStrip20KB(b *testing.B) {
	unit := "interface Item { id: number; name: string; tags?: string[] }\n" +
		"enum Kind { A = 'a', B = 'b' }\n" +
		"async function load(ids: number[]): Promise<Item[]> {\n" +
		"  const out: Item[] = [];\n" +
		"  for (const id of ids) {\n" +
		"    const r = await get_item({ id }) as Item;\n" +
		"    if (r.tags?.includes(Kind.A)) out.push(r);\n" +
		"  }\n" +
		"  return out;\n" +
		"}\n"
	var sb strings.Builder
	for i := 0; sb.Len() < 20<<10; i++ {
		sb.WriteString(strings.ReplaceAll(unit, "load", "load"+strings.Repeat("x", i%7)+string(rune('a'+i%26))))
	}
	src := sb.String()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Strip(src); err != nil {
			b.Fatal(err)
		}
	}
}

// A regular expression after the head of an if reads as a division to the
// layout's lexer; a backtick in it must not make the layout touch the
// template literal below it.
func TestStripRegexAfterParenthesis(t *testing.T) {
	src := "const s: string = 'a`b';\nlet n: number = 0;\nif (s) /`/.test(s) && n++;\nconst t = `x\n\n  y`;\nmark(t, n);\n"
	out, err := Strip(src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "`x\n\n  y`") || !strings.Contains(out, "/`/.test(s)") {
		t.Errorf("program changed:\n%s", out)
	}
	if samePrograms(out, "const s = 'a`b';\nlet n = 0;\nif (s) /`/.test(s) && n++;\nconst t = `x\n\n  y`;\nmark(t, n);\n") != true {
		t.Errorf("not the same program:\n%s", out)
	}
}
