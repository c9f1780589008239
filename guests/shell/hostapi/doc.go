// Package hostapi is what the shell guest (the shell and its applets) sees
// of the host's tools: a Tools interface for tool calls, and an HTTP
// interface for the HTTP requests the host makes under the sandbox's
// network policy (curl, wget), which travel as tool calls of method
// "http" (package wire). The real
// implementation (package hostcall) talks to the host functions of package
// wire (wasip1 only); Fake serves native tests. JavaScript is another
// guest (guests/js), which the shell starts through the host (`node`),
// never in this one.
//
// The shell and its applets never call host functions themselves; they are
// handed a Tools.
package hostapi
