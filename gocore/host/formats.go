package host

// The snapshot and journal formats are packages of their own
// (gocore/snapshot, gocore/journal, pure Go); these are the names the
// host's API gives what it hands out of them.

import (
	"amlasandbox/gocore/journal"
	"amlasandbox/gocore/snapshot"
)

// Journal is a decoded journal.
type Journal = journal.Journal

// PendingCall is a tool call that waits for a human's approval.
type PendingCall = journal.PendingCall

// PackageDigest names a mounted package and the digest of its contents.
type PackageDigest = journal.PackageDigest

// How a journaled run ended.
const (
	EndFinished = journal.EndFinished
	EndStopped  = journal.EndStopped
	EndPaused   = journal.EndPaused
)

// ErrSnapshot is wrapped by every error about a snapshot's bytes.
var ErrSnapshot = snapshot.ErrInvalid

// ErrJournal is wrapped by every error about a journal's bytes.
var ErrJournal = journal.ErrInvalid

// DecodeJournal checks and decodes a journal made under key.
func DecodeJournal(data, key []byte) (*Journal, error) { return journal.Decode(data, key) }

// The outcomes of a tool call, as a run decides them (approval.go) and
// its journal records them.
const (
	callAllowed    = journal.CallAllowed
	callDenied     = journal.CallDenied
	callApproved   = journal.CallApproved
	callRefused    = journal.CallRefused
	callNoApprover = journal.CallNoApprover
)

// newToken returns a fresh random approval token id.
func newToken() [16]byte { return journal.NewToken() }

// A journal stores the stop switch's reason as it is: these fail to
// compile if the two ever disagree.
var (
	_ [0]struct{} = [stopNone - stopReason(journal.StopNone)]struct{}{}
	_ [0]struct{} = [stopCancel - stopReason(journal.StopCancel)]struct{}{}
	_ [0]struct{} = [stopTimeout - stopReason(journal.StopTimeout)]struct{}{}
	_ [0]struct{} = [stopLimit - stopReason(journal.StopLimit)]struct{}{}
)
