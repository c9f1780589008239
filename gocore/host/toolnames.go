package host

import (
	"encoding/json"
	"fmt"
	"strconv"

	"amlasandbox/gocore/wire"
)

// The rule for which names a script may call is the host's, so it is the
// same for every guest and for any request a guest submits, whether a
// prelude built it or a script wrote it by hand: a request names a tool by
// its method, a non-empty string that is the method of one of the
// sandbox's tools (wire.ToolInfo.MethodOf). Anything else is answered by
// the host with an invalid_request error naming what was wrong, and never
// reaches the authorizer or the tool handler.

// toolMethods is the set of methods a script may call: one per tool of
// Config.Tools. nil when the embedder gave no tool list (Config.Tools is
// nil), where the authorizer alone decides; pycore always gives a list.
func toolMethods(tools []wire.ToolInfo) map[string]bool {
	if tools == nil {
		return nil
	}
	m := make(map[string]bool, len(tools))
	for _, t := range tools {
		m[t.MethodOf()] = true
	}
	return m
}

// rawRequest is a submitted request before its method is checked.
type rawRequest struct {
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
}

// decodeRequest reads a submitted request. A request that is not a JSON
// object is a decode error; one whose method is missing, null, not a
// string or empty decodes, and methodErr says what is wrong with it
// (req.Method is then "", or the string given).
func decodeRequest(raw []byte) (req wire.ToolRequest, methodErr, decodeErr error) {
	var rr rawRequest
	if err := json.Unmarshal(raw, &rr); err != nil {
		return req, nil, err
	}
	req.Params = rr.Params
	switch {
	case len(rr.Method) == 0 || string(rr.Method) == "null":
		return req, fmt.Errorf(`Invalid tool request: it names no tool (its "method" is missing)`), nil
	case rr.Method[0] != '"':
		return req, fmt.Errorf(`Invalid tool request: its "method" must be a tool's name as a string, not %s`, jsonKind(rr.Method[0])), nil
	}
	if err := json.Unmarshal(rr.Method, &req.Method); err != nil {
		return req, nil, err
	}
	if req.Method == "" {
		return req, fmt.Errorf(`Invalid tool request: its tool name ("method") is empty`), nil
	}
	return req, nil, nil
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// checkMethod refuses a method that is none of the sandbox's tools.
func (s *Sandbox) checkMethod(method string) error {
	if s.methods == nil || s.methods[method] {
		return nil
	}
	return fmt.Errorf("Unknown tool: %s is not one of this sandbox's tools", strconv.Quote(method))
}
