package journal

// The journal format: everything that came into one run from outside its
// guests, in the order the guests received it, so the run can be
// replayed exactly or resumed elsewhere by re-executing it
// (docs/durable.md gives the layout).
//
//	magic "AMLAJRNL" · version (1 byte)
//	meta      uvarint length · the run's input, limits, start state, end
//	snapshot  uvarint length · the files at the start (a snapshot), or 0
//	events    uvarint raw length · uvarint stored length · DEFLATE data
//	HMAC-SHA-256 under the durable key of every byte before it (32 bytes)
//
// The events section inflates to exactly its raw length (at most
// MaxEvents, and no more than DEFLATE can make of its stored
// bytes), and nothing else of a journal is compressed. The trailer is
// checked before anything else is read, and every declared size against
// the bytes that hold it before anything is allocated for it.

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/wire"
)

const (
	// Magic and Version begin every journal.
	Magic   = "AMLAJRNL"
	Version = 2

	// MaxEvents bounds the inflated events of a journal read.
	MaxEvents = 4 << 30
	// maxDeflateRatio is more than DEFLATE can expand (a 258-byte match
	// costs at least 2 bits: 1032 to 1): declared events beyond it are
	// refused before any byte is inflated.
	maxDeflateRatio = 1040
)

// flateWriters are reused: making one allocates about a megabyte of
// tables, which was most of what journaling a short run cost.
var flateWriters = sync.Pool{New: func() any {
	zw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return zw
}}

// ErrInvalid is wrapped by every error about a journal's bytes.
var ErrInvalid = errors.New("invalid journal")

func journalErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// How a journaled run ended.
const (
	EndFinished = "finished" // the script ended by itself (any exit status or error)
	EndStopped  = "stopped"  // the host stopped it: timeout, cancel or a limit
	EndPaused   = "paused"   // it waits for approval of Pending
)

// Journal is a decoded journal.
type Journal struct {
	Input  wire.Input
	Limits Limits
	// Start state: a snapshot of the files, or only the digest of one.
	Snapshot    []byte
	FilesDigest [32]byte
	Budgets     map[string]int64
	// Packages are the Python packages mounted for the run, with a digest
	// of each one's contents (RunOptions.Packages).
	Packages []PackageDigest
	// End: how the recorded run ended; the Result fields that matter.
	End       string
	Reason    StopReason
	ExitCode  int
	ErrorKind string
	Error     string
	// Pending is the call awaiting approval (End == EndPaused).
	Pending *PendingCall
	// Events, encoded (EventWriter); decoded as a replay reads them
	// (EventReader).
	Events []byte
}

// Limits are the limits a run was recorded under (those of the sandbox
// it ran in: gocore/host's Limits, field for field).
type Limits struct {
	Timeout       time.Duration // wall time, not counting time blocked on Python
	MemoryLimit   int64         // bytes of guest linear memory
	MaxOutput     int64         // bytes per stream (stdout, stderr)
	MaxToolResult int64         // bytes of one serialized tool result
	MaxCallStack  int           // JavaScript call depth; 0 = guest default
	MaxToolCalls  int           // tool calls one run may make (max_steps)
	DiskQuota     int64         // bytes the sandbox's files may take on the host
}

// StopReason says why the host stopped a run (End == EndStopped). Its
// values are those of gocore/host's stop switch, and are stored as one
// byte.
type StopReason byte

const (
	StopNone    StopReason = 0
	StopCancel  StopReason = 1
	StopTimeout StopReason = 2
	StopLimit   StopReason = 3 // a host-side limit (tool calls per run)
)

// PendingCall is a tool call that waits for a human's approval, and what
// a paused run needs to continue after it: the answers that had reached
// the host but not yet the script (framed as tool_take gives them).
type PendingCall struct {
	// Token identifies this approval: random, made when the run paused,
	// so a token can be redeemed once (TokenID).
	Token      [16]byte
	ID         int64
	Method     string
	Params     json.RawMessage
	Unreceived [][]byte
}

// TokenID is the pending call's token id, as text.
func (p *PendingCall) TokenID() string { return fmt.Sprintf("%x", p.Token) }

// NewToken returns a fresh random token id.
func NewToken() (t [16]byte) {
	if _, err := rand.Read(t[:]); err != nil {
		panic("approval token: no random bytes: " + err.Error())
	}
	return t
}

// PackageDigest names a mounted package and the digest of its contents.
type PackageDigest struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// Encode returns the journal's bytes, authenticated under key.
func (j *Journal) Encode(key []byte) []byte {
	meta := j.appendMeta(nil)
	// The inflated section: the events, then the pending call's
	// unreceived answers (they may be big, and compress as events do).
	section := durable.AppendBytes(nil, j.Events)
	if j.Pending != nil {
		for _, f := range j.Pending.Unreceived {
			section = durable.AppendBytes(section, f)
		}
	}
	var events bytes.Buffer
	zw := flateWriters.Get().(*flate.Writer)
	zw.Reset(&events)
	zw.Write(section)
	zw.Close()
	flateWriters.Put(zw)
	raw := len(section)
	out := make([]byte, 0, len(Magic)+1+len(meta)+len(j.Snapshot)+events.Len()+64)
	out = append(out, Magic...)
	out = append(out, Version)
	out = durable.AppendBytes(out, meta)
	out = durable.AppendBytes(out, j.Snapshot)
	out = binary.AppendUvarint(out, uint64(raw))
	out = durable.AppendBytes(out, events.Bytes())
	m := durable.NewMAC(key)
	m.Write(out)
	return m.Sum(out)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func (j *Journal) appendMeta(b []byte) []byte {
	b = durable.AppendString(b, j.Input.Language)
	b = durable.AppendString(b, j.Input.Code)
	b = durable.AppendString(b, j.Input.Stdin)
	// One byte of flags: bit 0 the input has stdin, bit 1 the run was in
	// a kept session (keep_state). Journals before keep_state have 0 or 1.
	flags := byte(0)
	if j.Input.HasStdin {
		flags |= 1
	}
	if j.Input.KeepState {
		flags |= 2
	}
	b = append(b, flags)
	tools, _ := json.Marshal(j.Input.Tools)
	b = durable.AppendBytes(b, tools)
	b = binary.AppendUvarint(b, uint64(j.Input.MaxCallStack))
	l := j.Limits
	for _, v := range []int64{int64(l.Timeout), l.MemoryLimit, l.MaxOutput, l.MaxToolResult, int64(l.MaxCallStack), int64(l.MaxToolCalls), l.DiskQuota} {
		b = binary.AppendVarint(b, v)
	}
	b = append(b, j.FilesDigest[:]...)
	keys := make([]string, 0, len(j.Budgets))
	for k := range j.Budgets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = durable.AppendString(b, k)
		b = binary.AppendVarint(b, j.Budgets[k])
	}
	b = binary.AppendUvarint(b, uint64(len(j.Packages)))
	for _, p := range j.Packages {
		b = durable.AppendString(b, p.Name)
		b = durable.AppendString(b, p.Digest)
	}
	b = durable.AppendString(b, j.End)
	b = append(b, byte(j.Reason))
	b = binary.AppendVarint(b, int64(j.ExitCode))
	b = durable.AppendString(b, j.ErrorKind)
	b = durable.AppendString(b, j.Error)
	b = appendBool(b, j.Pending != nil)
	if p := j.Pending; p != nil {
		b = append(b, p.Token[:]...)
		b = binary.AppendUvarint(b, uint64(p.ID))
		b = durable.AppendString(b, p.Method)
		b = durable.AppendBytes(b, p.Params)
		b = binary.AppendUvarint(b, uint64(len(p.Unreceived)))
	}
	return b
}

// Decode checks and decodes a journal made under key. Its trailer
// is checked first; every field is bounded by the bytes that hold it; the
// events are inflated to exactly their declared length, which is bounded
// by MaxEvents and by what its stored bytes can inflate to.
func Decode(data, key []byte) (*Journal, error) {
	body, err := durable.CheckTrailer(data, Magic, Version, "journal", journalErr, key)
	if err != nil {
		return nil, err
	}
	r := durable.NewReader(body, len(Magic)+1, "journal", journalErr)
	metaLen, err := r.Uvarint("meta length")
	if err != nil {
		return nil, err
	}
	meta, err := r.Bytes(metaLen, "meta")
	if err != nil {
		return nil, err
	}
	j := &Journal{}
	var unreceived uint64
	if unreceived, err = j.decodeMeta(meta); err != nil {
		return nil, err
	}
	snapLen, err := r.Uvarint("snapshot length")
	if err != nil {
		return nil, err
	}
	if j.Snapshot, err = r.Bytes(snapLen, "snapshot"); err != nil {
		return nil, err
	}
	if len(j.Snapshot) == 0 {
		j.Snapshot = nil
	} else {
		ps, err := snapshot.Parse(j.Snapshot, key)
		if err != nil {
			return nil, journalErr("its start snapshot: %v", err)
		}
		if ps.Digest != j.FilesDigest {
			return nil, journalErr("its start snapshot's files digest is not the one its meta names")
		}
	}
	raw, err := r.Uvarint("events length")
	if err != nil {
		return nil, err
	}
	if raw > MaxEvents {
		return nil, journalErr("events of %d bytes, more than %d", raw, int64(MaxEvents))
	}
	storedLen, err := r.Uvarint("stored events length")
	if err != nil {
		return nil, err
	}
	stored, err := r.Bytes(storedLen, "events")
	if err != nil {
		return nil, err
	}
	if r.Left() != 0 {
		return nil, journalErr("%d bytes after its end", r.Left())
	}
	if raw > uint64(len(stored))*maxDeflateRatio+64 {
		return nil, journalErr("events of %d bytes declared, more than %d stored bytes can inflate to", raw, len(stored))
	}
	events := make([]byte, raw)
	x := durable.NewExactReader(flate.NewReader(bytes.NewReader(stored)), int64(raw), "journal: its events section", journalErr)
	if _, err := io.ReadFull(x, events); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = journalErr("journal: its events section inflates to fewer bytes than it declares")
		}
		return nil, err
	}
	if _, err := x.Read(nil); err != io.EOF {
		return nil, err
	}
	er := durable.NewReader(events, 0, "journal events", journalErr)
	n, err := er.Uvarint("events length")
	if err != nil {
		return nil, err
	}
	if j.Events, err = er.Bytes(n, "events"); err != nil {
		return nil, err
	}
	for i := uint64(0); j.Pending != nil && i < unreceived; i++ {
		l, err := er.Uvarint("unreceived answer length")
		if err != nil {
			return nil, err
		}
		f, err := er.Bytes(l, "unreceived answer")
		if err != nil {
			return nil, err
		}
		if _, _, err := SplitFrame(f); err != nil {
			return nil, journalErr("the pending call's answers: %v", err)
		}
		j.Pending.Unreceived = append(j.Pending.Unreceived, f)
	}
	if er.Left() != 0 {
		return nil, journalErr("%d bytes after its events", er.Left())
	}
	if err := ValidateEvents(j.Events); err != nil {
		return nil, err
	}
	return j, nil
}

func (j *Journal) decodeMeta(meta []byte) (unreceived uint64, err error) {
	r := durable.NewReader(meta, 0, "journal meta", journalErr)
	const maxText = 1 << 31
	in := &j.Input
	if in.Language, err = r.String(64, "language"); err != nil {
		return 0, err
	}
	if in.Code, err = r.String(maxText, "code"); err != nil {
		return 0, err
	}
	if in.Stdin, err = r.String(maxText, "stdin"); err != nil {
		return 0, err
	}
	b, err := r.Byte("flags")
	if err != nil {
		return 0, err
	}
	if b > 3 {
		return 0, journalErr("unknown flags %#x", b)
	}
	in.HasStdin, in.KeepState = b&1 != 0, b&2 != 0
	tools, err := r.String(maxText, "tools")
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal([]byte(tools), &in.Tools); err != nil {
		return 0, journalErr("tools: %v", err)
	}
	stack, err := r.Uvarint("max call stack")
	if err != nil {
		return 0, err
	}
	in.MaxCallStack = int(min(stack, 1<<31))
	var lim [7]int64
	for i := range lim {
		if lim[i], err = r.Varint("limits"); err != nil {
			return 0, err
		}
	}
	j.Limits = Limits{Timeout: time.Duration(lim[0]), MemoryLimit: lim[1], MaxOutput: lim[2], MaxToolResult: lim[3],
		MaxCallStack: int(lim[4]), MaxToolCalls: int(lim[5]), DiskQuota: lim[6]}
	d, err := r.Bytes(32, "files digest")
	if err != nil {
		return 0, err
	}
	copy(j.FilesDigest[:], d)
	nb, err := r.Uvarint("budget count")
	if err != nil {
		return 0, err
	}
	if nb > uint64(len(meta)) {
		return 0, journalErr("%d budgets in %d bytes", nb, len(meta))
	}
	j.Budgets = map[string]int64{}
	for i := uint64(0); i < nb; i++ {
		k, err := r.String(snapshot.MaxKeyBytes, "budget key")
		if err != nil {
			return 0, err
		}
		if j.Budgets[k], err = r.Varint("budget"); err != nil {
			return 0, err
		}
	}
	np, err := r.Uvarint("package count")
	if err != nil {
		return 0, err
	}
	if np > uint64(len(meta)) {
		return 0, journalErr("%d packages in %d bytes", np, len(meta))
	}
	for i := uint64(0); i < np; i++ {
		var p PackageDigest
		if p.Name, err = r.String(snapshot.MaxKeyBytes, "package name"); err != nil {
			return 0, err
		}
		if p.Digest, err = r.String(128, "package digest"); err != nil {
			return 0, err
		}
		j.Packages = append(j.Packages, p)
	}
	if j.End, err = r.String(16, "end"); err != nil {
		return 0, err
	}
	switch j.End {
	case EndFinished, EndStopped, EndPaused:
	default:
		return 0, journalErr("unknown end %q", j.End)
	}
	reason, err := r.Byte("stop reason")
	if err != nil {
		return 0, err
	}
	if reason > byte(StopLimit) {
		return 0, journalErr("unknown stop reason %d", reason)
	}
	j.Reason = StopReason(reason)
	code, err := r.Varint("exit code")
	if err != nil {
		return 0, err
	}
	j.ExitCode = int(code)
	if j.ErrorKind, err = r.String(64, "error kind"); err != nil {
		return 0, err
	}
	if j.Error, err = r.String(maxText, "error"); err != nil {
		return 0, err
	}
	hasPending, err := r.Byte("pending")
	if err != nil {
		return 0, err
	}
	if (hasPending == 1) != (j.End == EndPaused) {
		return 0, journalErr("a pending call goes with end %q, and only with it", EndPaused)
	}
	if hasPending == 1 {
		p := &PendingCall{}
		tok, err := r.Bytes(16, "pending token")
		if err != nil {
			return 0, err
		}
		copy(p.Token[:], tok)
		id, err := r.Uvarint("pending id")
		if err != nil {
			return 0, err
		}
		p.ID = int64(min(id, 1<<62))
		if p.Method, err = r.String(maxText, "pending method"); err != nil {
			return 0, err
		}
		params, err := r.String(maxText, "pending params")
		if err != nil {
			return 0, err
		}
		p.Params = json.RawMessage(params)
		if unreceived, err = r.Uvarint("unreceived count"); err != nil {
			return 0, err
		}
		j.Pending = p
	}
	if r.Left() != 0 {
		return 0, journalErr("%d bytes after its meta", r.Left())
	}
	return unreceived, nil
}
