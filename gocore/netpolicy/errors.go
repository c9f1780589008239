package netpolicy

import (
	"errors"
	"strings"
	"unicode/utf8"

	"amlasandbox/gocore/wire"
)

// Names of the checks a request can fail. A Refusal carries one of them,
// so the guest, the tool-call record and the tests can tell which check
// refused a request.
const (
	CheckURL          = "url"                // the URL cannot be parsed or has a part the floor refuses
	CheckScheme       = "scheme"             // not http or https
	CheckMethod       = "method"             // not a token, or CONNECT, TRACE, TRACK
	CheckHost         = "host"               // empty, ambiguous numeric form, zone, non-ASCII
	CheckPort         = "port"               // neither 80, 443 nor a port a rule names
	CheckPath         = "path"               // dot segments, bad percent-encoding
	CheckHeader       = "header"             // a malformed header, or a Host header naming another host
	CheckBody         = "body"               // a form body that cannot be parsed, a JSON body with a repeated key
	CheckRequestSize  = "max_request_bytes"  // the body (or URL and headers) too big
	CheckAllow        = "allow"              // no rule allows the request
	CheckConstraint   = "constraint"         // a rule matched but its constraints failed
	CheckMaxCalls     = "max_calls"          // the matching rules' budgets are spent
	CheckSecret       = "secret"             // a placeholder where its secret may not go
	CheckAddress      = "address"            // the host resolved to a special-purpose address
	CheckMaxRequests  = "max_requests"       // the policy's request budget is spent
	CheckDeadline     = "deadline"           // the run's deadline has passed
	CheckTimeout      = "timeout"            // the request took longer than its timeout
	CheckResponseSize = "max_response_bytes" // the response body is bigger than allowed
	CheckEncoding     = "content_encoding"   // a response the host cannot scrub
	CheckNotAllowed   = "not_authorized"     // Do was given a request Authorize did not allow
	CheckTransport    = "transport"          // the network failed after every check passed
)

// Refusal is a request the policy refused, or one that failed: Check is
// one of the Check constants, Rule the rule ("allow[1] POST
// https://api.stripe.com/v1/refunds"), secret ("secrets.GITHUB_TOKEN") or
// policy field ("allow_private") concerned, "" when none; Value is the part
// of the request at fault (a URL, an address, a header name); Reason says
// what is wrong. No field ever holds a secret's value: values come from the
// guest's request, which holds placeholders only.
type Refusal struct {
	Check  string
	Rule   string
	Value  string
	Reason string
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString("network policy: ")
	if r.Check == CheckTransport {
		b.WriteString("request failed: ")
	} else {
		b.WriteString("refused by the " + r.Check + " check: ")
	}
	b.WriteString(r.Reason)
	if r.Value != "" {
		b.WriteString(" (" + r.Value + ")")
	}
	if r.Rule != "" {
		b.WriteString(" [" + r.Rule + "]")
	}
	return b.String()
}

// maxRefusalValue bounds the Value of a Refusal: a guest's URL or header
// can be 64 KiB long, and a refusal only needs to show which one it is.
const maxRefusalValue = 300

func refuse(check, rule, value, reason string) *Refusal {
	if len(value) > maxRefusalValue {
		cut := maxRefusalValue
		for cut > 0 && !utf8.RuneStart(value[cut]) {
			cut--
		}
		value = value[:cut] + "..."
	}
	return &Refusal{Check: check, Rule: rule, Value: value, Reason: reason}
}

// AsRefusal returns the Refusal in err's chain, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// ConfigError is a network policy that cannot be used: Field names the
// part of the JSON at fault ("allow[2].methods[0]", "secrets.GH.hosts").
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return "network policy: " + e.Reason
	}
	return "network policy: " + e.Field + ": " + e.Reason
}

func configErr(field, reason string) *ConfigError {
	return &ConfigError{Field: field, Reason: reason}
}

// ToWire is how err reaches the guest: a Refusal keeps its check and
// rule; any other error is reported under CheckTransport.
func ToWire(err error) wire.HTTPRefusal {
	if r, ok := AsRefusal(err); ok {
		return wire.HTTPRefusal{Check: r.Check, Rule: r.Rule, Message: r.Error()}
	}
	return wire.HTTPRefusal{Check: CheckTransport, Message: "network policy: request failed: " + err.Error()}
}
