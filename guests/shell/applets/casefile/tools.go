package casefile

import (
	"encoding/json"
	"errors"
	"fmt"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
)

// ToolSpec is one entry of a case's "tools" section: a registered tool and
// the canned answer its calls get.
type ToolSpec struct {
	wire.ToolInfo
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// FakeTools builds a hostapi.Fake from a "tools" section (a JSON array of
// ToolSpec) that answers each call with the canned result or error.
func FakeTools(spec string) (*hostapi.Fake, error) {
	var specs []ToolSpec
	if err := json.Unmarshal([]byte(spec), &specs); err != nil {
		return nil, fmt.Errorf("tools section: %w", err)
	}
	fake := &hostapi.Fake{}
	for _, s := range specs {
		fake.ToolList = append(fake.ToolList, s.ToolInfo)
	}
	fake.Handler = func(method string, _ json.RawMessage) (json.RawMessage, error) {
		for _, s := range specs {
			if s.MethodOf() == method {
				if s.Error != "" {
					return nil, errors.New(s.Error)
				}
				return s.Result, nil
			}
		}
		return nil, errors.New("no handler for " + method)
	}
	return fake, nil
}
