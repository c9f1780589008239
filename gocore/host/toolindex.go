package host

import (
	"amlasandbox/gocore/toolcat"
	"amlasandbox/gocore/wire"
)

// toolIndexName is the file in ToolInfoMount holding the whole list
// guestToolList returns (wire.Input.ToolIndex).
const toolIndexName = "index.json"

// indexTools hands a JavaScript or Python run the sandbox's tool list as the path of
// its index file rather than in the input, when in carries that list: the
// guest reads the file when a script first looks up a name it does not
// know, so a run that uses no tool pays nothing for many of them.
func (s *Sandbox) indexTools(in *wire.Input) {
	if (in.Language != wire.LangJavaScript && in.Language != wire.LangPython) || len(in.Tools) == 0 || len(s.guestTools) != len(in.Tools) || &in.Tools[0] != &s.guestTools[0] {
		return
	}
	in.Tools = nil
	in.ToolIndex = ToolInfoMount + "/" + toolIndexName
}

// nameTools gives the tools a JavaScript or Python run's input still
// carries (those of a durable run) the names a script calls them by, in
// place of any the list came with, as the index file has them: those
// guests read them rather than decide them (gocore/toolcat).
func (s *Sandbox) nameTools(in *wire.Input) {
	if (in.Language != wire.LangJavaScript && in.Language != wire.LangPython) || len(in.Tools) == 0 {
		return
	}
	in.Tools = toolcat.Annotate(in.Tools)
}
