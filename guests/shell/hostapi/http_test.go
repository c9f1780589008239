package hostapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
)

func TestToolsHTTP(t *testing.T) {
	refusal := `{"check":"allow","rule":"","message":"network policy: refused by the allow check: no rule allows GET https://evil.example/"}`
	fake := &hostapi.Fake{Handler: func(method string, params json.RawMessage) (json.RawMessage, error) {
		if method != wire.MethodHTTP {
			t.Fatalf("method %q, want %q", method, wire.MethodHTTP)
		}
		var req wire.HTTPRequest
		if err := json.Unmarshal(params, &req); err != nil {
			t.Fatal(err)
		}
		if req.URL == "https://evil.example/" {
			return nil, &hostapi.CodedError{Code: wire.CodeHTTPRefused, Message: "refused: no rule"}
		}
		return json.Marshal(wire.HTTPResponse{Status: 201, StatusText: "Created", Body: req.Body, URL: req.URL,
			Headers: [][2]string{{"Content-Type", "text/plain"}}})
	}}
	h := hostapi.ToolsHTTP{Tools: fake}
	resp, err := h.Do(context.Background(), wire.HTTPRequest{Method: "POST", URL: "https://ok.example/x", Body: []byte("hi\x00")})
	if err != nil || resp.Status != 201 || string(resp.Body) != "hi\x00" || resp.Headers[0][1] != "text/plain" {
		t.Fatalf("got %+v, %v", resp, err)
	}
	if got := string(fake.Calls[0].Params); got != `{"method":"POST","url":"https://ok.example/x","body":"aGkA"}` {
		t.Errorf("params %s", got)
	}
	_, err = h.Do(context.Background(), wire.HTTPRequest{Method: "GET", URL: "https://evil.example/"})
	var re *hostapi.RefusedError
	if !errors.As(err, &re) || re.Code != wire.CodeHTTPRefused || re.Message != "refused: no rule" {
		t.Fatalf("got %#v", err)
	}

	// A failed answer that carries the host's HTTPRefusal gives its check and rule.
	_, err = hostapi.DecodeHTTPAnswer(wire.ToolAnswer{Code: wire.CodeHTTPRefused, Error: "whole text",
		Result: json.RawMessage(refusal)})
	if !errors.As(err, &re) || re.Check != "allow" || re.Message != "whole text" {
		t.Fatalf("got %#v", err)
	}
	_, err = hostapi.DecodeHTTPAnswer(wire.ToolAnswer{OK: true, Result: json.RawMessage(`[1]`)})
	if !errors.As(err, &re) || re.Code != wire.CodeInternal {
		t.Fatalf("undecodable result: got %#v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := len(fake.Calls)
	if _, err := h.Do(ctx, wire.HTTPRequest{Method: "GET", URL: "https://ok.example/"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v", err)
	}
	if len(fake.Calls) != before {
		t.Error("a request went out under a cancelled context")
	}
}
