// Package hostcall is the guest side of the host functions named in package
// wire: it reads the run's Input, writes output, and implements
// hostapi.Tools over tool_submit / tool_wait / tool_take.
//
// Only the wasip1 build talks to the host; other builds return errors so the
// rest of the guest still compiles and tests natively.
package hostcall
