package applets

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// jqDecodeAll reads every value of a stream with jqDecoder.
func jqDecodeAll(r io.Reader) ([]any, error) {
	dec := newJQDecoder(r)
	var out []any
	for {
		v, err := dec.Decode()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// stdDecodeAll reads the same with encoding/json, numbers as jqDecoder
// gives them: int for integers that fit (not -0), json.Number otherwise.
func stdDecodeAll(data string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, normalizeStd(v))
	}
}

func normalizeStd(v any) any {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if !strings.ContainsAny(s, ".eE") && s != "-0" && len(strings.TrimPrefix(s, "-")) <= 18 {
			n, err := strconv.Atoi(s)
			if err == nil {
				return n
			}
		}
		return v
	case []any:
		for i := range v {
			v[i] = normalizeStd(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalizeStd(v[k])
		}
	}
	return v
}

func TestJQDecoderMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`1`, `-0`, `0`, `-12`, `123456789012345678`, `1234567890123456789`, `99999999999999999999`,
		`1.5`, `-2.50`, `1e3`, `1E+3`, `2e-2`, `"a"`, `""`, `"\u00e9\n\t\"\\\/"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\udc00x"`, "\"caf\xc3\xa9\"", "\"bad \xff byte\"", `true`, `false`, `null`,
		`[]`, `{}`, `[1,[2,[3]]]`, `{"a":1,"b":{"c":[true,null,"x"]}}`, ` { "k" : "v" , "n" : [ 1 , 2 ] } `,
		"1 2 3", `{"a":1}{"a":2}` + "\n" + `[3]`, `{"a":1,"a":2}`,
		// Errors.
		`{`, `[1,`, `[1 2]`, `{"a" 1}`, `{a:1}`, `tru`, `nul`, `01`, `1.`, `1e`, `-`, `"abc`, "\"a\x01\"", `"\x"`,
		`[1,]`, `{"a":1,}`, `}`,
	} {
		want, wantErr := stdDecodeAll(in)
		for name, r := range map[string]io.Reader{
			"whole":        strings.NewReader(in),
			"byte by byte": iotest.OneByteReader(strings.NewReader(in)),
		} {
			got, err := jqDecodeAll(r)
			if (err != nil) != (wantErr != nil) {
				t.Errorf("%s %q: error %v, encoding/json says %v", name, in, err, wantErr)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q: got %#v, want %#v", name, in, got, want)
			}
		}
	}
}

func TestJQDecoderLargeStream(t *testing.T) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i < 50000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"user` + strconv.Itoa(i) + `","score":1.25}`)
	}
	b.WriteString("]\n7")
	want, err := stdDecodeAll(b.String())
	if err != nil {
		t.Fatal(err)
	}
	got, err := jqDecodeAll(iotest.HalfReader(bytes.NewReader(b.Bytes())))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("large stream differs (err %v)", err)
	}
}
