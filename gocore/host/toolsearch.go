package host

import (
	"encoding/json"
	"errors"
	"fmt"

	"amlasandbox/gocore/toolcat"
	"amlasandbox/gocore/wire"
)

// searchTools answers a tools_search request (wire.MethodToolSearch) at
// once, from the sandbox's tools with their descriptions (Config.Tools,
// which SetTools leaves alone while a run is in progress): the hits of
// toolcat.Search, which gives up when the run stops (its deadline), as
// the tool_submit that asked then does. Like a refusal, the answer waits
// in the process's answers, so a replay finds it there; it is not a tool
// call and is not among the run's calls.
func (p *proc) searchTools(id int64, params json.RawMessage) (int64, error) {
	r := p.run
	a := wire.ToolAnswer{ID: id}
	var q wire.ToolSearch
	if err := json.Unmarshal(params, &q); err != nil {
		a.Code, a.Error = wire.CodeInvalidRequest, fmt.Sprintf(`%s: params must be {"query": "<words>"}: %v`, wire.MethodToolSearch, err)
	} else if hits, err := toolcat.Search(r.sb.cfg.Tools, q.Query, r.stopped); errors.Is(err, toolcat.ErrStopped) {
		return id, errStopped
	} else if err != nil {
		a.Code, a.Error = wire.CodeInvalidRequest, fmt.Sprintf("tools.search: %v", err)
	} else if b, err := json.Marshal(hits); err != nil {
		a.Code, a.Error = wire.CodeInternal, fmt.Sprintf("%s: %v", wire.MethodToolSearch, err)
	} else {
		a.OK, a.Result = true, b
	}
	r.mu.Lock()
	p.answers = append(p.answers, a)
	r.mu.Unlock()
	return id, nil
}
