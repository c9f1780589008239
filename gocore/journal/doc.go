// Package journal is the journal format: everything that came into one
// run from outside its guests (its input, limits and start state, each
// clock reading, random byte, tool call and answer, in the order the
// guests received them) and how the run ended, as one authenticated byte
// string (docs/durable.md gives the layout). A journal lets a run be
// replayed exactly, or resumed elsewhere by re-executing it; a paused
// run's journal is its approval token.
//
// It encodes and decodes journals (Journal.Encode, Decode) and their
// events (EventWriter, EventReader). It is pure Go and needs no cgo:
// recording and replaying a run (gocore/host) use it, and nothing here
// runs a guest or touches the filesystem.
//
// It must never accept a journal whose trailer is not the MAC under the
// durable key of every byte before it (checked before anything else is
// read), never allocate for a declared size before checking it against
// the bytes that hold it, never inflate the events past their declared
// length, never hand a replay an event it has not validated (Decode
// decodes every event once), and never change the bytes it writes for the
// same journal and key.
package journal
