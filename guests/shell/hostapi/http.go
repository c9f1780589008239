package hostapi

import (
	"context"
	"encoding/json"
	"fmt"

	"amlasandbox/gocore/wire"
)

// HTTP makes HTTP requests through the host, which decides each one under
// the sandbox's network policy and makes it; the guest has no sockets.
// The host never follows a redirect: a 3xx comes back as it is, with its
// Location, for the client to follow as a new request.
type HTTP interface {
	// Do sends req and waits for the answer. A request the host refused
	// or could not make is a *RefusedError. When ctx has a deadline and
	// it passes first, Do returns ctx.Err() (context.DeadlineExceeded)
	// and the answer, when it comes, is dropped.
	Do(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error)
}

// RefusedError is an HTTP request the host refused or could not make.
// Message is the host's whole text (it names the check and the rule at
// fault); Check and Rule come from the host's wire.HTTPRefusal when it
// sent one. Code is the answer's code: wire.CodeHTTPRefused, or another
// failure code (cancelled, internal) when the call failed as a call.
type RefusedError struct {
	Code    string
	Check   string
	Rule    string
	Message string
}

func (e *RefusedError) Error() string { return e.Message }

// EncodeHTTPRequest is the params of the tool request (method
// wire.MethodHTTP) that carries req.
func EncodeHTTPRequest(req wire.HTTPRequest) (json.RawMessage, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the HTTP request: %w", err)
	}
	return b, nil
}

// DecodeHTTPAnswer reads the host's answer to an HTTP request: the
// response of an OK answer, a *RefusedError for any other.
func DecodeHTTPAnswer(a wire.ToolAnswer) (wire.HTTPResponse, error) {
	var resp wire.HTTPResponse
	if !a.OK {
		e := &RefusedError{Code: FailureCode(a), Message: a.Error}
		var refusal wire.HTTPRefusal
		if len(a.Result) > 0 && json.Unmarshal(a.Result, &refusal) == nil {
			e.Check, e.Rule = refusal.Check, refusal.Rule
			if e.Message == "" {
				e.Message = refusal.Message
			}
		}
		if e.Message == "" {
			e.Message = "the host refused the request (" + e.Code + ")"
		}
		return resp, e
	}
	if err := json.Unmarshal(a.Result, &resp); err != nil {
		return resp, &RefusedError{Code: wire.CodeInternal, Message: "undecodable HTTP response from the host: " + err.Error()}
	}
	return resp, nil
}

// ToolsHTTP is HTTP over any Tools (a request is a call of method
// wire.MethodHTTP). It cannot stop waiting early: ctx is checked before
// the request goes out only. The host-backed Tools (package hostcall)
// has its own Do that honours ctx's deadline.
type ToolsHTTP struct{ Tools Tools }

func (h ToolsHTTP) Do(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
	if err := ctx.Err(); err != nil {
		return wire.HTTPResponse{}, err
	}
	params, err := EncodeHTTPRequest(req)
	if err != nil {
		return wire.HTTPResponse{}, err
	}
	return DecodeHTTPAnswer(Call(h.Tools, wire.MethodHTTP, params))
}

// HTTPFunc lets a function serve as HTTP (test doubles).
type HTTPFunc func(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error)

func (f HTTPFunc) Do(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
	return f(ctx, req)
}
