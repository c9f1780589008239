package jsrt

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dop251/goja"

	"amlasandbox/gocore/guest/hostapi"
	"amlasandbox/gocore/wire"
)

// JSName is the JavaScript identifier of a tool's stub (API.md §3.6): the
// tool's name with each '.', '/', '-' and ':' replaced by '_'.
func JSName(tool string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '/', '-', ':':
			return '_'
		}
		return r
	}, tool)
}

// toolMethod is the method a stub submits for a tool.
func toolMethod(tool string) string { return "mcp:" + tool }

// toolEntry is what the prelude needs to know about one registered tool.
type toolEntry struct {
	Name        string
	JSName      string
	Description string
	// Schema is the tool's input schema as JSON text ("" when absent).
	Schema string
}

func toolEntries(list []wire.ToolInfo) []toolEntry {
	out := make([]toolEntry, 0, len(list))
	for _, t := range list {
		e := toolEntry{Name: t.Name, JSName: JSName(t.Name), Description: t.Description}
		if len(t.InputSchema) > 0 && json.Valid(t.InputSchema) {
			e.Schema = string(t.InputSchema)
		}
		out = append(out, e)
	}
	return out
}

// pendingCall is a tool call whose answer the script is waiting for.
type pendingCall struct {
	method          string
	resolve, reject func(interface{}) error
}

// submitTool queues one tool call at once and returns the promise of its
// answer. paramsJSON is what the script passed, already serialised like
// JSON.stringify does it. Calls are never waited for here: the event loop
// waits only when the script has nothing else to do, so calls a script
// issues together reach the host together.
func (rt *runtime) submitTool(method, paramsJSON string) goja.Value {
	p, resolve, reject := rt.vm.NewPromise()
	if rt.opts.Tools == nil {
		rt.check(reject(rt.newError(toolFailure(method, wire.CodeInternal, "No handler for tool call: "+method))))
		return rt.vm.ToValue(p)
	}
	id := rt.opts.Tools.Submit(method, json.RawMessage(paramsJSON))
	rt.pending[id] = &pendingCall{method: method, resolve: resolve, reject: reject}
	rt.pendingOrder = append(rt.pendingOrder, id)
	return rt.vm.ToValue(p)
}

// awaitTool blocks for the next answer to a pending call and settles its
// promise (which runs the reactions it enables).
func (rt *runtime) awaitTool() {
	ids := append([]int64(nil), rt.pendingOrder...)
	ans := rt.opts.Tools.Next(ids)
	call, ok := rt.pending[ans.ID]
	if !ok {
		rt.fail(fmt.Sprintf("tool answer for unknown call %d: %s", ans.ID, ans.Error))
		return
	}
	delete(rt.pending, ans.ID)
	for i, id := range rt.pendingOrder {
		if id == ans.ID {
			rt.pendingOrder = append(rt.pendingOrder[:i], rt.pendingOrder[i+1:]...)
			break
		}
	}
	if !ans.OK {
		rt.check(call.reject(rt.newError(toolFailure(call.method, hostapi.FailureCode(ans), ans.Error))))
		return
	}
	v, err := rt.parseJSON(ans.Result)
	if err != nil {
		rt.check(call.reject(rt.newError("Tool '" + call.method + "' returned invalid JSON: " + err.Error())))
		return
	}
	rt.check(call.resolve(v))
}

// parseJSON turns a JSON answer into a JavaScript value with the engine's
// own JSON.parse (key order kept, numbers as JavaScript numbers).
func (rt *runtime) parseJSON(raw json.RawMessage) (goja.Value, error) {
	if len(raw) == 0 {
		return goja.Null(), nil
	}
	return rt.jsonParse(goja.Undefined(), rt.vm.ToValue(string(raw)))
}

// toolFailure is the message a failed tool call rejects with, as both
// reference versions word it: "tool call '<method>' failed: <code>: <error>".
func toolFailure(method, code, msg string) string {
	return "tool call '" + method + "' failed: " + code + ": " + msg
}
