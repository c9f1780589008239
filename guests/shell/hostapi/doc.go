// Package hostapi is what the guest's languages (JavaScript, the shell and
// its applets) see of the host: a Tools interface for tool calls. The real
// implementation talks to the host functions of package wire (wasip1 only);
// Fake serves native tests.
//
// The languages never call host functions themselves; they are handed a Tools.
package hostapi
