package wire

// An HTTP request goes through the ordinary tool calls: the guest submits
// (tool_submit) a ToolRequest whose Method is MethodHTTP and whose Params
// are an HTTPRequest, and waits for its answer as for any call, so
// requests made together are in flight together. The host, not Python,
// decides and makes it under the sandbox's network policy. The answer is
// OK with an HTTPResponse as its result, or not OK with Code
// CodeHTTPRefused, Error the message the guest shows (it names the check
// and the rule at fault), and an HTTPRefusal as its result.
//
// A sandbox's exposed secrets reach the guest as Input.Env variables
// holding placeholders; see package netpolicy.
//
// A guest that no longer wants the answer to an HTTP request it made (an
// aborted fetch) submits a request of method MethodHTTPCancel with params
// {"id": <the request's id>}: the host stops that request, which is then
// answered (refused, check "cancelled") at once if it was still in
// flight; the cancel request itself is answered OK with null.
const (
	MethodHTTP       = "http"
	MethodHTTPCancel = "http_cancel"
	CodeHTTPRefused  = "http_refused"
)

// HTTPRequest is one HTTP request a guest asks the host to make under the
// sandbox's network policy: the whole request in one piece. Method is the
// verb as the guest's client wrote it; URL is absolute (http or https);
// Headers keep the client's order and repeats as [name, value] pairs; Body
// is the whole request body (base64 in JSON, as encoding/json writes
// []byte).
type HTTPRequest struct {
	Method  string      `json:"method"`
	URL     string      `json:"url"`
	Headers [][2]string `json:"headers,omitempty"`
	Body    []byte      `json:"body,omitempty"`
}

// HTTPResponse is the host's answer to an HTTPRequest that was made: the
// status, the response headers as [name, value] pairs (canonical names, in
// a stable order), the whole body (base64 in JSON), and URL, the URL the
// guest asked for (redirects are never followed: a 3xx comes back as it
// is, with its Location, for the guest to follow as a new request).
// Secrets never appear in it: the host scrubs them to their placeholders.
type HTTPResponse struct {
	Status     int         `json:"status"`
	StatusText string      `json:"status_text"`
	Headers    [][2]string `json:"headers"`
	Body       []byte      `json:"body"`
	URL        string      `json:"url"`
}

// HTTPRefusal is how a refused or failed HTTP request is reported to the
// guest: Check names the check that refused it (see package netpolicy:
// "scheme", "address", "constraint", "timeout", ...; "transport" for a
// network failure after every check passed), Rule the rule or secret it
// concerns ("" when none), Message the whole text the guest shows.
type HTTPRefusal struct {
	Check   string `json:"check"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}
