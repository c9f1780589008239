package journal

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

	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/wire"
)

// Event kinds.
const (
	EvClock    = 1
	EvRandom   = 2
	EvPoll     = 3
	EvFdStat   = 4
	EvPathStat = 5
	EvReaddir  = 6
	EvProcess  = 7
	EvCall     = 10
	EvAnswer   = 11
	EvNoAnswer = 12
	EvDisk     = 13
	EvSleep    = 14
)

// Outcomes of a call event.
const (
	CallAllowed  = 0 // passed the capability check (and needed no approval)
	CallDenied   = 1 // refused by the capability check
	CallApproved = 2 // passed the check and was approved
	CallRefused  = 3 // passed the check and the approver refused it
	// CallNoApprover: passed the check, needed approval, and the run had
	// no way to ask for it.
	CallNoApprover = 4
)

// FilestatSize is the size of WASI's filestat record.
const FilestatSize = 64

// Event is one input of a journal: Kind says which, and which fields
// hold it.
type Event struct {
	Kind    byte
	Errno   uint16
	Clock   byte
	Value   uint64 // clock value
	N       uint64 // poll subscriptions, readdir bufused, disk bytes, sleep ms, call id
	NEvents uint64
	Data    []byte // random bytes, poll events, filestat, readdir bytes, params, answer frame
	// Parts, when set, is an answer frame in pieces (as tool_wait holds it:
	// header and result), written as if they were one data; the writer
	// copies them once, into the journal.
	Parts   [][]byte
	Text    string // language, method
	Digest  []byte // process: guest digest (32) + code digest (8)
	Outcome byte   // call outcome; disk: 1 when refused
}

// Describe says what an event is, for divergence messages.
func (e *Event) Describe() string {
	switch e.Kind {
	case EvClock:
		return fmt.Sprintf("clock_time_get(clock %d)", e.Clock)
	case EvRandom:
		return fmt.Sprintf("random_get(%d bytes)", len(e.Data))
	case EvPoll:
		return fmt.Sprintf("poll_oneoff(%d subscriptions)", e.N)
	case EvFdStat:
		return "fd_filestat_get"
	case EvPathStat:
		return "path_filestat_get"
	case EvReaddir:
		return "fd_readdir"
	case EvProcess:
		return fmt.Sprintf("a %s process (code sha256 %x...)", e.Text, e.Digest[32:])
	case EvCall:
		return fmt.Sprintf("tool call %d: %s %s", e.N, e.Text, Clip(string(e.Data), 200))
	case EvAnswer:
		return fmt.Sprintf("the answer to tool call %d", frameID(e.Data))
	case EvNoAnswer:
		return "a tool_wait whose timeout passed"
	case EvDisk:
		return fmt.Sprintf("disk_reserve(%d bytes)", e.N)
	case EvSleep:
		return fmt.Sprintf("sleep(%d ms)", int64(e.N))
	}
	return fmt.Sprintf("event type %d", e.Kind)
}

// Clip is s cut to n bytes, saying how long it was.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

// frameID is the id in an answer frame's header (0 if unreadable).
func frameID(frame []byte) int64 {
	h, _, err := SplitFrame(frame)
	if err != nil {
		return 0
	}
	return h.ID
}

// EventWriter appends events. A nil EventWriter adds nothing.
type EventWriter struct {
	b    []byte
	last [4]uint64 // last value per clock id, for deltas
}

// Bytes are the events added, encoded (Journal.Events).
func (w *EventWriter) Bytes() []byte { return w.b }

// Add appends e.
func (w *EventWriter) Add(e *Event) {
	if w == nil {
		return
	}
	b := append(w.b, e.Kind)
	switch e.Kind {
	case EvClock:
		b = append(b, e.Clock)
		b = binary.AppendUvarint(b, uint64(e.Errno))
		if e.Errno == 0 {
			i := int(e.Clock) & 3
			b = binary.AppendVarint(b, int64(e.Value-w.last[i]))
			w.last[i] = e.Value
		}
	case EvRandom:
		b = binary.AppendUvarint(b, uint64(e.Errno))
		b = durable.AppendBytes(b, e.Data)
	case EvPoll:
		b = binary.AppendUvarint(b, e.N)
		b = binary.AppendUvarint(b, uint64(e.Errno))
		b = binary.AppendUvarint(b, e.NEvents)
		b = durable.AppendBytes(b, e.Data)
	case EvFdStat, EvPathStat:
		b = binary.AppendUvarint(b, uint64(e.Errno))
		if e.Errno == 0 {
			b = append(b, e.Data[:FilestatSize]...)
		}
	case EvReaddir:
		b = binary.AppendUvarint(b, uint64(e.Errno))
		b = binary.AppendUvarint(b, e.N)
		b = durable.AppendBytes(b, e.Data)
	case EvProcess:
		b = durable.AppendString(b, e.Text)
		b = append(b, e.Digest[:40]...)
	case EvCall:
		b = binary.AppendUvarint(b, e.N)
		b = durable.AppendString(b, e.Text)
		b = durable.AppendBytes(b, e.Data)
		b = append(b, e.Outcome)
	case EvAnswer:
		if e.Parts == nil {
			b = durable.AppendBytes(b, e.Data)
			break
		}
		n := 0
		for _, part := range e.Parts {
			n += len(part)
		}
		b = binary.AppendUvarint(b, uint64(n))
		for _, part := range e.Parts {
			b = append(b, part...)
		}
	case EvNoAnswer:
	case EvDisk:
		b = binary.AppendUvarint(b, e.N)
		b = append(b, e.Outcome)
	case EvSleep:
		b = binary.AppendUvarint(b, e.N)
	}
	w.b = b
}

// EventReader decodes events one at a time.
type EventReader struct {
	r     *durable.Reader
	index int // events read so far
	last  [4]uint64
}

// NewEventReader reads the events b holds (Journal.Events).
func NewEventReader(b []byte) *EventReader {
	return &EventReader{r: durable.NewReader(b, 0, "journal events", journalErr)}
}

// Done reports whether every event was read.
func (er *EventReader) Done() bool { return er.r.Left() <= 0 }

// Index is the number of events read so far: the index of the next one.
func (er *EventReader) Index() int { return er.index }

// Next decodes the next event (Done must be false).
func (er *EventReader) Next() (*Event, error) {
	r := er.r
	e := &Event{}
	var err error
	if e.Kind, err = r.Byte("event type"); err != nil {
		return nil, err
	}
	errno := func() error {
		v, err := r.Uvarint("errno")
		if err == nil && v > 0xffff {
			err = r.Errorf("journal event %d: errno %d", er.index, v)
		}
		e.Errno = uint16(v)
		return err
	}
	bytesField := func(what string) ([]byte, error) {
		n, err := r.Uvarint(what)
		if err != nil {
			return nil, err
		}
		return r.Bytes(n, what)
	}
	switch e.Kind {
	case EvClock:
		if e.Clock, err = r.Byte("clock id"); err == nil {
			if err = errno(); err == nil && e.Errno == 0 {
				var d int64
				if d, err = r.Varint("clock value"); err == nil {
					i := int(e.Clock) & 3
					e.Value = er.last[i] + uint64(d)
					er.last[i] = e.Value
				}
			}
		}
	case EvRandom:
		if err = errno(); err == nil {
			e.Data, err = bytesField("random bytes")
		}
	case EvPoll:
		if e.N, err = r.Uvarint("subscriptions"); err == nil {
			if err = errno(); err == nil {
				if e.NEvents, err = r.Uvarint("events"); err == nil {
					e.Data, err = bytesField("poll events")
					if err == nil && uint64(len(e.Data)) != e.NEvents*32 {
						err = r.Errorf("journal event %d: %d poll events in %d bytes", er.index, e.NEvents, len(e.Data))
					}
				}
			}
		}
	case EvFdStat, EvPathStat:
		if err = errno(); err == nil && e.Errno == 0 {
			e.Data, err = r.Bytes(FilestatSize, "filestat")
		}
	case EvReaddir:
		if err = errno(); err == nil {
			if e.N, err = r.Uvarint("bufused"); err == nil {
				e.Data, err = bytesField("directory entries")
				if err == nil && uint64(len(e.Data)) != e.N {
					err = r.Errorf("journal event %d: bufused %d with %d bytes", er.index, e.N, len(e.Data))
				}
			}
		}
	case EvProcess:
		if e.Text, err = r.String(64, "language"); err == nil {
			e.Digest, err = r.Bytes(40, "digests")
		}
	case EvCall:
		if e.N, err = r.Uvarint("call id"); err == nil {
			if e.Text, err = r.String(1<<31, "method"); err == nil {
				if e.Data, err = bytesField("params"); err == nil {
					e.Outcome, err = r.Byte("outcome")
					if err == nil && e.Outcome > CallNoApprover {
						err = r.Errorf("journal event %d: unknown call outcome %d", er.index, e.Outcome)
					}
				}
			}
		}
	case EvAnswer:
		if e.Data, err = bytesField("answer"); err == nil {
			if _, _, ferr := SplitFrame(e.Data); ferr != nil {
				err = r.Errorf("journal event %d: %v", er.index, ferr)
			}
		}
	case EvNoAnswer:
	case EvDisk:
		if e.N, err = r.Uvarint("disk bytes"); err == nil {
			e.Outcome, err = r.Byte("refused")
		}
	case EvSleep:
		e.N, err = r.Uvarint("sleep ms")
	default:
		err = r.Errorf("journal event %d at byte %d: unknown event type %d", er.index, r.Off()-1, e.Kind)
	}
	if err != nil {
		return nil, err
	}
	er.index++
	return e, nil
}

// ValidateEvents decodes every event once, so a replay never meets a
// damaged one halfway through.
func ValidateEvents(b []byte) error {
	er := NewEventReader(b)
	for !er.Done() {
		if _, err := er.Next(); err != nil {
			return err
		}
	}
	return nil
}

// SplitFrame splits an answer as tool_take frames it: the header JSON, a
// newline, the result JSON.
func SplitFrame(frame []byte) (wire.AnswerHeader, []byte, error) {
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
