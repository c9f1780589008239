package host

// The events of a journal: each input a guest received from outside
// itself, in the order received. All processes of a run execute one at a
// time on the run's goroutine (a parent waits in spawn while its child
// runs), so one sequence holds every process's inputs in order and
// replaying re-creates the same interleaving.
//
// An event is a tag byte and its fields (varints, length-prefixed bytes):
//
//	1 clock      clock id · errno · value as a signed delta from the last
//	             value of that clock (when errno is 0)
//	2 random     errno · bytes
//	3 poll       subscriptions · errno · events · the event records
//	4 fdstat     errno · the 64-byte filestat (when errno is 0)
//	5 pathstat   errno · the 64-byte filestat (when errno is 0)
//	6 readdir    errno · bufused · the bytes written
//	7 process    language · SHA-256 of the guest module · SHA-256 of the
//	             code (first 8 bytes): a process started
//	10 call      id · method · params · outcome
//	11 answer    the answer as tool_take framed it
//	12 no answer tool_wait's timeout passed first
//	13 disk      bytes asked · refused
//	14 sleep     milliseconds

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"amlasandbox/gocore/wire"
)

const (
	evClock    = 1
	evRandom   = 2
	evPoll     = 3
	evFdStat   = 4
	evPathStat = 5
	evReaddir  = 6
	evProcess  = 7
	evCall     = 10
	evAnswer   = 11
	evNoAnswer = 12
	evDisk     = 13
	evSleep    = 14
)

// Outcomes of a call event.
const (
	callAllowed  = 0 // passed the capability check (and needed no approval)
	callDenied   = 1 // refused by the capability check
	callApproved = 2 // passed the check and was approved
	callRefused  = 3 // passed the check and the approver refused it
	// callNoApprover: passed the check, needed approval, and the run had
	// no way to ask for it.
	callNoApprover = 4
)

// filestatSize is the size of WASI's filestat record.
const filestatSize = 64

type event struct {
	kind    byte
	errno   uint16
	clock   byte
	value   uint64 // clock value
	n       uint64 // poll subscriptions, readdir bufused, disk bytes, sleep ms, call id
	nevents uint64
	data    []byte // random bytes, poll events, filestat, readdir bytes, params, answer frame
	// parts, when set, is an answer frame in pieces (as tool_wait holds it:
	// header and result), written as if they were one data; the writer
	// copies them once, into the journal.
	parts   [][]byte
	text    string // language, method
	digest  []byte // process: guest digest (32) + code digest (8)
	outcome byte   // call outcome; disk: 1 when refused
}

// describe says what an event is, for divergence messages.
func (e *event) describe() string {
	switch e.kind {
	case evClock:
		return fmt.Sprintf("clock_time_get(clock %d)", e.clock)
	case evRandom:
		return fmt.Sprintf("random_get(%d bytes)", len(e.data))
	case evPoll:
		return fmt.Sprintf("poll_oneoff(%d subscriptions)", e.n)
	case evFdStat:
		return "fd_filestat_get"
	case evPathStat:
		return "path_filestat_get"
	case evReaddir:
		return "fd_readdir"
	case evProcess:
		return fmt.Sprintf("a %s process (code sha256 %x...)", e.text, e.digest[32:])
	case evCall:
		return fmt.Sprintf("tool call %d: %s %s", e.n, e.text, clip(string(e.data), 200))
	case evAnswer:
		return fmt.Sprintf("the answer to tool call %d", frameID(e.data))
	case evNoAnswer:
		return "a tool_wait whose timeout passed"
	case evDisk:
		return fmt.Sprintf("disk_reserve(%d bytes)", e.n)
	case evSleep:
		return fmt.Sprintf("sleep(%d ms)", int64(e.n))
	}
	return fmt.Sprintf("event type %d", e.kind)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

// frameID is the id in an answer frame's header (0 if unreadable).
func frameID(frame []byte) int64 {
	h, _, err := splitFrame(frame)
	if err != nil {
		return 0
	}
	return h.ID
}

// eventWriter appends events.
type eventWriter struct {
	b     []byte
	count int
	last  [4]uint64 // last value per clock id, for deltas
}

func (w *eventWriter) add(e *event) {
	if w == nil {
		return
	}
	w.count++
	b := append(w.b, e.kind)
	switch e.kind {
	case evClock:
		b = append(b, e.clock)
		b = binary.AppendUvarint(b, uint64(e.errno))
		if e.errno == 0 {
			i := int(e.clock) & 3
			b = binary.AppendVarint(b, int64(e.value-w.last[i]))
			w.last[i] = e.value
		}
	case evRandom:
		b = binary.AppendUvarint(b, uint64(e.errno))
		b = appendBytes(b, e.data)
	case evPoll:
		b = binary.AppendUvarint(b, e.n)
		b = binary.AppendUvarint(b, uint64(e.errno))
		b = binary.AppendUvarint(b, e.nevents)
		b = appendBytes(b, e.data)
	case evFdStat, evPathStat:
		b = binary.AppendUvarint(b, uint64(e.errno))
		if e.errno == 0 {
			b = append(b, e.data[:filestatSize]...)
		}
	case evReaddir:
		b = binary.AppendUvarint(b, uint64(e.errno))
		b = binary.AppendUvarint(b, e.n)
		b = appendBytes(b, e.data)
	case evProcess:
		b = appendString(b, e.text)
		b = append(b, e.digest[:40]...)
	case evCall:
		b = binary.AppendUvarint(b, e.n)
		b = appendString(b, e.text)
		b = appendBytes(b, e.data)
		b = append(b, e.outcome)
	case evAnswer:
		if e.parts == nil {
			b = appendBytes(b, e.data)
			break
		}
		n := 0
		for _, part := range e.parts {
			n += len(part)
		}
		b = binary.AppendUvarint(b, uint64(n))
		for _, part := range e.parts {
			b = append(b, part...)
		}
	case evNoAnswer:
	case evDisk:
		b = binary.AppendUvarint(b, e.n)
		b = append(b, e.outcome)
	case evSleep:
		b = binary.AppendUvarint(b, e.n)
	}
	w.b = b
}

// eventReader decodes events one at a time.
type eventReader struct {
	r     snapReader
	index int // events read so far
	last  [4]uint64
}

func newEventReader(b []byte) *eventReader {
	return &eventReader{r: snapReader{b: b, what: "journal events", err: journalErr}}
}

func (er *eventReader) done() bool { return er.r.off >= len(er.r.b) }

// next decodes the next event (done() must be false).
func (er *eventReader) next() (*event, error) {
	r := &er.r
	e := &event{}
	var err error
	if e.kind, err = r.byte1("event type"); err != nil {
		return nil, err
	}
	errno := func() error {
		v, err := r.uvarint("errno")
		if err == nil && v > 0xffff {
			err = r.err("journal event %d: errno %d", er.index, v)
		}
		e.errno = uint16(v)
		return err
	}
	bytesField := func(what string) ([]byte, error) {
		n, err := r.uvarint(what)
		if err != nil {
			return nil, err
		}
		return r.bytesN(n, what)
	}
	switch e.kind {
	case evClock:
		if e.clock, err = r.byte1("clock id"); err == nil {
			if err = errno(); err == nil && e.errno == 0 {
				var d int64
				if d, err = r.varint("clock value"); err == nil {
					i := int(e.clock) & 3
					e.value = er.last[i] + uint64(d)
					er.last[i] = e.value
				}
			}
		}
	case evRandom:
		if err = errno(); err == nil {
			e.data, err = bytesField("random bytes")
		}
	case evPoll:
		if e.n, err = r.uvarint("subscriptions"); err == nil {
			if err = errno(); err == nil {
				if e.nevents, err = r.uvarint("events"); err == nil {
					e.data, err = bytesField("poll events")
					if err == nil && uint64(len(e.data)) != e.nevents*32 {
						err = r.err("journal event %d: %d poll events in %d bytes", er.index, e.nevents, len(e.data))
					}
				}
			}
		}
	case evFdStat, evPathStat:
		if err = errno(); err == nil && e.errno == 0 {
			e.data, err = r.bytesN(filestatSize, "filestat")
		}
	case evReaddir:
		if err = errno(); err == nil {
			if e.n, err = r.uvarint("bufused"); err == nil {
				e.data, err = bytesField("directory entries")
				if err == nil && uint64(len(e.data)) != e.n {
					err = r.err("journal event %d: bufused %d with %d bytes", er.index, e.n, len(e.data))
				}
			}
		}
	case evProcess:
		if e.text, err = r.str(64, "language"); err == nil {
			e.digest, err = r.bytesN(40, "digests")
		}
	case evCall:
		if e.n, err = r.uvarint("call id"); err == nil {
			if e.text, err = r.str(1<<31, "method"); err == nil {
				if e.data, err = bytesField("params"); err == nil {
					e.outcome, err = r.byte1("outcome")
					if err == nil && e.outcome > callNoApprover {
						err = r.err("journal event %d: unknown call outcome %d", er.index, e.outcome)
					}
				}
			}
		}
	case evAnswer:
		if e.data, err = bytesField("answer"); err == nil {
			if _, _, ferr := splitFrame(e.data); ferr != nil {
				err = r.err("journal event %d: %v", er.index, ferr)
			}
		}
	case evNoAnswer:
	case evDisk:
		if e.n, err = r.uvarint("disk bytes"); err == nil {
			e.outcome, err = r.byte1("refused")
		}
	case evSleep:
		e.n, err = r.uvarint("sleep ms")
	default:
		err = r.err("journal event %d at byte %d: unknown event type %d", er.index, r.off-1, e.kind)
	}
	if err != nil {
		return nil, err
	}
	er.index++
	return e, nil
}

// validateEvents decodes every event once, so a replay never meets a
// damaged one halfway through.
func validateEvents(b []byte) error {
	er := newEventReader(b)
	for !er.done() {
		if _, err := er.next(); err != nil {
			return err
		}
	}
	return nil
}

// splitFrame splits an answer as tool_take frames it: the header JSON, a
// newline, the result JSON.
func splitFrame(frame []byte) (wire.AnswerHeader, []byte, error) {
	var h wire.AnswerHeader
	i := bytes.IndexByte(frame, '\n')
	if i < 0 {
		return h, nil, fmt.Errorf("an answer without its header line")
	}
	if err := json.Unmarshal(frame[:i], &h); err != nil {
		return h, nil, fmt.Errorf("an answer's header: %v", err)
	}
	return h, frame[i+1:], nil
}
