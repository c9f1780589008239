package host

import "encoding/json"

// Authorizer decides every tool call a run makes before Python sees it.
// Authorize consumes budget when it allows; a non-nil error is the denial
// message the script sees (its Error() text is shown verbatim).
type Authorizer interface {
	Authorize(method string, params json.RawMessage) error
}

// AllowAll authorizes every call; used when no capability engine is given.
type AllowAll struct{}

func (AllowAll) Authorize(string, json.RawMessage) error { return nil }
