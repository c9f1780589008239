package hostcall

import (
	"encoding/json"
	"testing"
)

func TestDecodeAnswer(t *testing.T) {
	cases := []struct {
		name, in   string
		ok         bool
		id         int64
		result     string
		errMessage string
		bad        bool
	}{
		{"result", `{"id":3,"ok":true}` + "\n" + `{"a":"x\ny"}`, true, 3, `{"a":"x\ny"}`, "", false},
		{"raw newline in result", `{"id":1,"ok":true}` + "\n" + "[1,\n2]", true, 1, "[1,\n2]", "", false},
		{"error with newline", `{"id":2,"ok":false,"error":"Tool 'mcp:t' failed: x\nParameters: {}"}` + "\n", false, 2, "", "Tool 'mcp:t' failed: x\nParameters: {}", false},
		{"refusal keeps its result", `{"id":4,"ok":false,"code":"http_refused","error":"no"}` + "\n" + `{"check":"allow"}`, false, 4, `{"check":"allow"}`, "no", false},
		{"garbage", "nope", false, 0, "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := decodeAnswer([]byte(c.in))
			if c.bad {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil || a.OK != c.ok || a.ID != c.id || string(a.Result) != c.result || a.Error != c.errMessage {
				t.Fatalf("got %+v, %v", a, err)
			}
			if a.OK && !json.Valid(a.Result) {
				t.Fatal("result not valid JSON")
			}
		})
	}
}
