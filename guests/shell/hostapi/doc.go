// Package hostapi is what the shell guest (the shell and its applets) sees
// of the host's tools: a Tools interface for tool calls. The real
// implementation (package hostcall) talks to the host functions of package
// wire (wasip1 only); Fake serves native tests. JavaScript is another
// guest (guests/js), which the shell starts through the host (`node`),
// never in this one.
//
// The shell and its applets never call host functions themselves; they are
// handed a Tools.
package hostapi
