package host

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
// maxJournalEvents, and no more than DEFLATE can make of its stored
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

	"amlasandbox/gocore/wire"
)

const (
	journalMagic   = "AMLAJRNL"
	journalVersion = 2

	// maxJournalEvents bounds the inflated events of a journal read.
	maxJournalEvents = 4 << 30
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

// ErrJournal is wrapped by every error about a journal's bytes.
var ErrJournal = errors.New("invalid journal")

func journalErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrJournal, fmt.Sprintf(format, a...))
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
	Reason    stopReason
	ExitCode  int
	ErrorKind string
	Error     string
	// Pending is the call awaiting approval (End == EndPaused).
	Pending *PendingCall
	// Events, encoded (see event.go); decoded as a replay reads them.
	Events []byte
}

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

// newToken returns a fresh random token id.
func newToken() (t [16]byte) {
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
	section := appendBytes(nil, j.Events)
	if j.Pending != nil {
		for _, f := range j.Pending.Unreceived {
			section = appendBytes(section, f)
		}
	}
	var events bytes.Buffer
	zw := flateWriters.Get().(*flate.Writer)
	zw.Reset(&events)
	zw.Write(section)
	zw.Close()
	flateWriters.Put(zw)
	raw := len(section)
	out := make([]byte, 0, len(journalMagic)+1+len(meta)+len(j.Snapshot)+events.Len()+64)
	out = append(out, journalMagic...)
	out = append(out, journalVersion)
	out = appendBytes(out, meta)
	out = appendBytes(out, j.Snapshot)
	out = binary.AppendUvarint(out, uint64(raw))
	out = appendBytes(out, events.Bytes())
	m := newMAC(key)
	m.Write(out)
	return m.Sum(out)
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func (j *Journal) appendMeta(b []byte) []byte {
	b = appendString(b, j.Input.Language)
	b = appendString(b, j.Input.Code)
	b = appendString(b, j.Input.Stdin)
	b = appendBool(b, j.Input.HasStdin)
	tools, _ := json.Marshal(j.Input.Tools)
	b = appendBytes(b, tools)
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
		b = appendString(b, k)
		b = binary.AppendVarint(b, j.Budgets[k])
	}
	b = binary.AppendUvarint(b, uint64(len(j.Packages)))
	for _, p := range j.Packages {
		b = appendString(b, p.Name)
		b = appendString(b, p.Digest)
	}
	b = appendString(b, j.End)
	b = append(b, byte(j.Reason))
	b = binary.AppendVarint(b, int64(j.ExitCode))
	b = appendString(b, j.ErrorKind)
	b = appendString(b, j.Error)
	b = appendBool(b, j.Pending != nil)
	if p := j.Pending; p != nil {
		b = append(b, p.Token[:]...)
		b = binary.AppendUvarint(b, uint64(p.ID))
		b = appendString(b, p.Method)
		b = appendBytes(b, p.Params)
		b = binary.AppendUvarint(b, uint64(len(p.Unreceived)))
	}
	return b
}

// DecodeJournal checks and decodes a journal made under key. Its trailer
// is checked first; every field is bounded by the bytes that hold it; the
// events are inflated to exactly their declared length, which is bounded
// by maxJournalEvents and by what its stored bytes can inflate to.
func DecodeJournal(data, key []byte) (*Journal, error) {
	body, err := checkTrailer(data, journalMagic, journalVersion, "journal", journalErr, key)
	if err != nil {
		return nil, err
	}
	r := &snapReader{b: body, off: len(journalMagic) + 1, what: "journal", err: journalErr}
	metaLen, err := r.uvarint("meta length")
	if err != nil {
		return nil, err
	}
	meta, err := r.bytesN(metaLen, "meta")
	if err != nil {
		return nil, err
	}
	j := &Journal{}
	var unreceived uint64
	if unreceived, err = j.decodeMeta(meta); err != nil {
		return nil, err
	}
	snapLen, err := r.uvarint("snapshot length")
	if err != nil {
		return nil, err
	}
	if j.Snapshot, err = r.bytesN(snapLen, "snapshot"); err != nil {
		return nil, err
	}
	if len(j.Snapshot) == 0 {
		j.Snapshot = nil
	} else {
		ps, err := parseSnapshot(j.Snapshot, key)
		if err != nil {
			return nil, journalErr("its start snapshot: %v", err)
		}
		if ps.digest != j.FilesDigest {
			return nil, journalErr("its start snapshot's files digest is not the one its meta names")
		}
	}
	raw, err := r.uvarint("events length")
	if err != nil {
		return nil, err
	}
	if raw > maxJournalEvents {
		return nil, journalErr("events of %d bytes, more than %d", raw, int64(maxJournalEvents))
	}
	storedLen, err := r.uvarint("stored events length")
	if err != nil {
		return nil, err
	}
	stored, err := r.bytesN(storedLen, "events")
	if err != nil {
		return nil, err
	}
	if r.off != len(body) {
		return nil, journalErr("%d bytes after its end", len(body)-r.off)
	}
	if raw > uint64(len(stored))*maxDeflateRatio+64 {
		return nil, journalErr("events of %d bytes declared, more than %d stored bytes can inflate to", raw, len(stored))
	}
	events := make([]byte, raw)
	x := &exactReader{r: flate.NewReader(bytes.NewReader(stored)), left: int64(raw), name: "journal: its events section", mk: journalErr}
	if _, err := io.ReadFull(x, events); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = journalErr("journal: its events section inflates to fewer bytes than it declares")
		}
		return nil, err
	}
	if _, err := x.Read(nil); err != io.EOF {
		return nil, err
	}
	er := &snapReader{b: events, what: "journal events", err: journalErr}
	n, err := er.uvarint("events length")
	if err != nil {
		return nil, err
	}
	if j.Events, err = er.bytesN(n, "events"); err != nil {
		return nil, err
	}
	for i := uint64(0); j.Pending != nil && i < unreceived; i++ {
		l, err := er.uvarint("unreceived answer length")
		if err != nil {
			return nil, err
		}
		f, err := er.bytesN(l, "unreceived answer")
		if err != nil {
			return nil, err
		}
		if _, _, err := splitFrame(f); err != nil {
			return nil, journalErr("the pending call's answers: %v", err)
		}
		j.Pending.Unreceived = append(j.Pending.Unreceived, f)
	}
	if er.off != len(er.b) {
		return nil, journalErr("%d bytes after its events", len(er.b)-er.off)
	}
	if err := validateEvents(j.Events); err != nil {
		return nil, err
	}
	return j, nil
}

func (j *Journal) decodeMeta(meta []byte) (unreceived uint64, err error) {
	r := &snapReader{b: meta, what: "journal meta", err: journalErr}
	const maxText = 1 << 31
	in := &j.Input
	if in.Language, err = r.str(64, "language"); err != nil {
		return 0, err
	}
	if in.Code, err = r.str(maxText, "code"); err != nil {
		return 0, err
	}
	if in.Stdin, err = r.str(maxText, "stdin"); err != nil {
		return 0, err
	}
	b, err := r.byte1("has stdin")
	if err != nil {
		return 0, err
	}
	in.HasStdin = b == 1
	tools, err := r.str(maxText, "tools")
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal([]byte(tools), &in.Tools); err != nil {
		return 0, journalErr("tools: %v", err)
	}
	stack, err := r.uvarint("max call stack")
	if err != nil {
		return 0, err
	}
	in.MaxCallStack = int(min(stack, 1<<31))
	var lim [7]int64
	for i := range lim {
		if lim[i], err = r.varint("limits"); err != nil {
			return 0, err
		}
	}
	j.Limits = Limits{Timeout: time.Duration(lim[0]), MemoryLimit: lim[1], MaxOutput: lim[2], MaxToolResult: lim[3],
		MaxCallStack: int(lim[4]), MaxToolCalls: int(lim[5]), DiskQuota: lim[6]}
	d, err := r.bytesN(32, "files digest")
	if err != nil {
		return 0, err
	}
	copy(j.FilesDigest[:], d)
	nb, err := r.uvarint("budget count")
	if err != nil {
		return 0, err
	}
	if nb > uint64(len(meta)) {
		return 0, journalErr("%d budgets in %d bytes", nb, len(meta))
	}
	j.Budgets = map[string]int64{}
	for i := uint64(0); i < nb; i++ {
		k, err := r.str(maxKeyBytes, "budget key")
		if err != nil {
			return 0, err
		}
		if j.Budgets[k], err = r.varint("budget"); err != nil {
			return 0, err
		}
	}
	np, err := r.uvarint("package count")
	if err != nil {
		return 0, err
	}
	if np > uint64(len(meta)) {
		return 0, journalErr("%d packages in %d bytes", np, len(meta))
	}
	for i := uint64(0); i < np; i++ {
		var p PackageDigest
		if p.Name, err = r.str(maxKeyBytes, "package name"); err != nil {
			return 0, err
		}
		if p.Digest, err = r.str(128, "package digest"); err != nil {
			return 0, err
		}
		j.Packages = append(j.Packages, p)
	}
	if j.End, err = r.str(16, "end"); err != nil {
		return 0, err
	}
	switch j.End {
	case EndFinished, EndStopped, EndPaused:
	default:
		return 0, journalErr("unknown end %q", j.End)
	}
	reason, err := r.byte1("stop reason")
	if err != nil {
		return 0, err
	}
	if reason > byte(stopLimit) {
		return 0, journalErr("unknown stop reason %d", reason)
	}
	j.Reason = stopReason(reason)
	code, err := r.varint("exit code")
	if err != nil {
		return 0, err
	}
	j.ExitCode = int(code)
	if j.ErrorKind, err = r.str(64, "error kind"); err != nil {
		return 0, err
	}
	if j.Error, err = r.str(maxText, "error"); err != nil {
		return 0, err
	}
	hasPending, err := r.byte1("pending")
	if err != nil {
		return 0, err
	}
	if (hasPending == 1) != (j.End == EndPaused) {
		return 0, journalErr("a pending call goes with end %q, and only with it", EndPaused)
	}
	if hasPending == 1 {
		p := &PendingCall{}
		tok, err := r.bytesN(16, "pending token")
		if err != nil {
			return 0, err
		}
		copy(p.Token[:], tok)
		id, err := r.uvarint("pending id")
		if err != nil {
			return 0, err
		}
		p.ID = int64(min(id, 1<<62))
		if p.Method, err = r.str(maxText, "pending method"); err != nil {
			return 0, err
		}
		params, err := r.str(maxText, "pending params")
		if err != nil {
			return 0, err
		}
		p.Params = json.RawMessage(params)
		if unreceived, err = r.uvarint("unreceived count"); err != nil {
			return 0, err
		}
		j.Pending = p
	}
	if r.off != len(meta) {
		return 0, journalErr("%d bytes after its meta", len(meta)-r.off)
	}
	return unreceived, nil
}
