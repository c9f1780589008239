package host

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// sizeShapes are JSON texts of the shapes that decode into much more (or
// much less) Python memory than their length, with the most that
// json.loads of CPython 3.11, 3.12 and 3.13 allocated for each
// (tracemalloc, measured on these texts).
var sizeShapes = []struct {
	name   string
	json   func() string
	python int64
}{
	{"ascii string", func() string { return `{"s":"` + strings.Repeat("x", 1_000_000) + `"}` }, 1_000_105},
	{"latin-1 string", func() string { return `{"s":"` + strings.Repeat("é", 500_000) + `"}` }, 500_073},
	{"one astral character", func() string { return `{"s":"` + strings.Repeat("x", 500_000) + `😀"}` }, 2_000_080},
	{"escaped astral character", func() string { return `{"s":"` + strings.Repeat("x", 500_000) + `\ud83d\ude00"}` }, 2_000_080},
	{"empty dicts", func() string { return "[" + strings.TrimSuffix(strings.Repeat("{},", 200_000), ",") + "]" }, 14_423_936},
	{"empty lists", func() string { return "[" + strings.TrimSuffix(strings.Repeat("[],", 200_000), ",") + "]" }, 12_824_056},
	{"empty strings", func() string { return "[" + strings.TrimSuffix(strings.Repeat(`"",`, 400_000), ",") + "]" }, 3_293_376},
	{"small ints", func() string { return "[" + strings.TrimSuffix(strings.Repeat("0,", 400_000), ",") + "]" }, 3_292_608},
	{"ints", func() string { return "[" + join(200_000, func(i int) string { return fmt.Sprint(1000 + i) }) + "]" }, 7_224_000},
	{"floats", func() string { return "[" + join(200_000, func(i int) string { return fmt.Sprint(i) + ".5" }) + "]" }, 6_424_000},
	{"records", func() string {
		return "[" + join(50_000, func(i int) string { return fmt.Sprintf(`{"id":%d,"name":"n%d","ok":true}`, 1000+i, i) }) + "]"
	}, 13_783_181},
	{"many keys", func() string {
		return "{" + join(100_000, func(i int) string { return fmt.Sprintf(`"k%d":%d`, i, 1000+i) }) + "}"
	}, 12_133_690},
}

func join(n int, item func(int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ",")
}

// pythonSize must not fall below what CPython really allocates (the charge
// would then let the host hold more than memory_limit) and should not be
// so far above it that ordinary calls are refused.
func TestPythonSizeBoundsCPython(t *testing.T) {
	dump := os.Getenv("AMLA_DUMP_SIZE_SHAPES") // a directory: write the texts, to measure them with Python
	for _, c := range sizeShapes {
		text := c.json()
		if dump != "" {
			os.WriteFile(dump+"/"+strings.ReplaceAll(c.name, " ", "_")+".json", []byte(text), 0o644)
		}
		if err := checkPayload([]byte(text)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := pythonSize([]byte(text))
		if got < c.python || got > 3*c.python {
			t.Errorf("%s: estimated %d bytes, CPython takes %d (want between 1 and 3 times that)", c.name, got, c.python)
		}
	}
}

func TestRequestCharge(t *testing.T) {
	params := []byte(`{"s":"` + strings.Repeat("x", 1000) + `"}`)
	if got, min := requestCharge(params), 3*int64(len(params)); got < min {
		t.Errorf("an ASCII string's request is charged %d, less than its three copies (%d)", got, min)
	}
}
