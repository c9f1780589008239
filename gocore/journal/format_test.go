package journal

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/snapshot"
	"amlasandbox/gocore/snapshot/snapshottest"
	"amlasandbox/gocore/wire"
)

// testKey is the durable key the tests' journals are made under.
func testKey() []byte { return durable.ProcessKey() }

// emptySnapshot is a snapshot of a sandbox with empty /tmp and /workspace.
func emptySnapshot() []byte {
	w := snapshot.NewWriter(testKey(), false, 0)
	w.Dir(&snapshot.Entry{Path: "tmp", Dir: true, Mode: 0o700, MTime: 1_700_000_000_000_000_000})
	w.Dir(&snapshot.Entry{Path: "workspace", Dir: true, Mode: 0o700, MTime: 1_700_000_000_000_000_001})
	return w.Finish()
}

// jsonFrame frames an answer as tool_take does.
func jsonFrame(a wire.ToolAnswer) []byte {
	header, _ := json.Marshal(wire.AnswerHeader{ID: a.ID, OK: a.OK, Code: a.Code, Error: a.Error})
	return append(append(header, '\n'), a.Result...)
}

func sampleJournal(t *testing.T) *Journal {
	t.Helper()
	snap := emptySnapshot()
	ps, err := snapshot.Parse(snap, testKey())
	if err != nil {
		t.Fatal(err)
	}
	w := &EventWriter{}
	w.Add(&Event{Kind: EvProcess, Text: "javascript", Digest: make([]byte, 40)})
	w.Add(&Event{Kind: EvClock, Clock: 0, Value: 1_700_000_000_000_000_000})
	w.Add(&Event{Kind: EvClock, Clock: 0, Value: 1_700_000_000_000_000_500})
	w.Add(&Event{Kind: EvClock, Clock: 1, Errno: 28})
	w.Add(&Event{Kind: EvRandom, Data: []byte{1, 2, 3}})
	w.Add(&Event{Kind: EvCall, N: 1, Text: "mcp:add", Data: []byte(`{"a":1}`), Outcome: CallAllowed})
	w.Add(&Event{Kind: EvAnswer, Data: jsonFrame(wire.ToolAnswer{ID: 1, OK: true, Result: json.RawMessage(`3`)})})
	w.Add(&Event{Kind: EvNoAnswer})
	w.Add(&Event{Kind: EvDisk, N: 4096, Outcome: 1})
	w.Add(&Event{Kind: EvSleep, N: 20})
	w.Add(&Event{Kind: EvPoll, N: 1, NEvents: 1, Data: make([]byte, 32)})
	w.Add(&Event{Kind: EvPathStat, Data: make([]byte, FilestatSize)})
	w.Add(&Event{Kind: EvReaddir, N: 3, Data: []byte{9, 9, 9}})
	return &Journal{
		Input:       wire.Input{Language: "javascript", Code: "console.log(1)", Tools: []wire.ToolInfo{{Name: "add"}}},
		Limits:      Limits{Timeout: time.Second, MemoryLimit: 64 << 20, MaxOutput: 1 << 20, MaxToolResult: 1 << 20, MaxToolCalls: 10, DiskQuota: 1 << 30},
		Snapshot:    snap,
		FilesDigest: ps.Digest,
		Budgets:     map[string]int64{"cap:tool-call:mcp:add": 2},
		Packages:    []PackageDigest{{Name: "attrs", Digest: "0123abcd"}},
		End:         EndPaused,
		ExitCode:    1,
		ErrorKind:   "approval_required",
		Error:       "Approval required",
		Pending: &PendingCall{Token: NewToken(), ID: 2, Method: "mcp:pay", Params: json.RawMessage(`{"amount":5}`),
			Unreceived: [][]byte{jsonFrame(wire.ToolAnswer{ID: 1, OK: true, Result: json.RawMessage(`"x"`)})}},
		Events: w.Bytes(),
	}
}

func TestJournalRoundTrip(t *testing.T) {
	j := sampleJournal(t)
	got, err := Decode(j.Encode(testKey()), testKey())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, j)
	}
	er := NewEventReader(got.Events)
	var kinds []byte
	for !er.Done() {
		e, err := er.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == EvClock && e.Clock == 0 && e.Value != 1_700_000_000_000_000_000 && e.Value != 1_700_000_000_000_000_500 {
			t.Fatalf("clock value %d", e.Value)
		}
		kinds = append(kinds, e.Kind)
	}
	if len(kinds) != 13 {
		t.Fatalf("events %v", kinds)
	}
}

// reseal replaces a journal's trailer with the MAC under the test key,
// so checks after authentication are reached.
func reseal(b []byte) []byte { return resealWith(b, testKey()) }

func resealWith(b, key []byte) []byte {
	body := b[:len(b)-32]
	m := durable.NewMAC(key)
	m.Write(body)
	return m.Sum(append([]byte(nil), body...))
}

// sha256Reseal gives a journal the trailer of format version 1 (a plain
// SHA-256), as someone without the key would after editing it.
func sha256Reseal(b []byte) []byte {
	body := b[:len(b)-32]
	sum := sha256.Sum256(body)
	return append(append([]byte(nil), body...), sum[:]...)
}

// withEvents encodes j with raw bytes as its inflated events section.
func withSection(j *Journal, section []byte, declared uint64) []byte {
	out := append([]byte(Magic), Version)
	out = durable.AppendBytes(out, j.appendMeta(nil))
	out = durable.AppendBytes(out, j.Snapshot)
	out = binary.AppendUvarint(out, declared)
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.BestSpeed)
	zw.Write(section)
	zw.Close()
	out = durable.AppendBytes(out, z.Bytes())
	m := durable.NewMAC(testKey())
	m.Write(out)
	return m.Sum(out)
}

func TestDecodeHostileJournals(t *testing.T) {
	j := sampleJournal(t)
	j.End, j.Pending, j.ErrorKind = EndFinished, nil, ""
	good := j.Encode(testKey())
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	otherSnap := *j
	otherSnap.FilesDigest[0] ^= 1
	badEvents := func(ev ...byte) []byte {
		return withSection(j, durable.AppendBytes(nil, ev), uint64(len(durable.AppendBytes(nil, ev))))
	}
	zeros := make([]byte, 1<<20)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too few"},
		{"not a journal", bytes.Repeat([]byte("y"), 64), "not an amla-sandbox journal"},
		{"a snapshot", snapshottest.New(testKey()).Dir("tmp", 0o755).Dir("workspace", 0o755).Done(nil), "not an amla-sandbox journal"},
		{"future version", reseal(append([]byte(Magic), append([]byte{3}, make([]byte, 40)...)...)), "version 3 is not supported"},
		{"version 1 (unauthenticated)", sha256Reseal(append([]byte(Magic), append([]byte{1}, make([]byte, 40)...)...)), "version 1 is not supported (this build reads version 2; older versions carry no authentication"},
		{"truncated", good[:len(good)-3], "authentication failed"},
		{"tampered", flipped, "authentication failed"},
		{"tampered, with a SHA-256 trailer", sha256Reseal(flipped), "authentication failed"},
		{"made under another key", resealWith(good, []byte("another application's durable key")), "authentication failed"},
		{"events beyond what DEFLATE makes of them", withSection(j, durable.AppendBytes(nil, nil), 256<<20), "stored bytes can inflate to"},
		{"snapshot of another state", otherSnap.Encode(testKey()), "files digest is not the one"},
		{"unknown event", badEvents(99), "unknown event type 99"},
		{"event cut short", badEvents(EvCall, 1), "damaged or truncated"},
		{"call outcome", badEvents(EvCall, 1, 0, 0, 9), "unknown call outcome 9"},
		{"answer without header", badEvents(EvAnswer, 3, 'a', 'b', 'c'), "without its header"},
		{"poll size", badEvents(EvPoll, 1, 0, 2, 1, 0), "poll events"},
		{"events inflate past their length", withSection(j, append(durable.AppendBytes(nil, nil), zeros...), 10), "more bytes than it declares"},
		{"events inflate short", withSection(j, durable.AppendBytes(nil, nil), 4096), "fewer bytes"},
		{"events too big", withSection(j, nil, MaxEvents+1), "more than"},
		{"bytes after the events", withSection(j, append(durable.AppendBytes(nil, nil), 1, 2), 3), "after its events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.data, testKey())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestForgedJournalCostsLittle: a journal of a few hundred KB whose events
// inflate to 256 MiB is refused for its trailer before anything is
// inflated or allocated for it.
func TestForgedJournalCostsLittle(t *testing.T) {
	j := sampleJournal(t)
	j.End, j.Pending, j.ErrorKind = EndFinished, nil, ""
	const raw = 256 << 20
	section := make([]byte, raw)
	forged := sha256Reseal(withSection(j, section, raw))
	section = nil
	if len(forged) > 1<<20 {
		t.Fatalf("the forged journal is %d bytes", len(forged))
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode(forged, testKey())
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("got %v, want an authentication failure", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(forged)) {
		t.Fatalf("decoding a forged journal of %d bytes allocated %d bytes", len(forged), grew)
	}
}

func FuzzDecode(f *testing.F) {
	w := &EventWriter{}
	w.Add(&Event{Kind: EvClock, Value: 5})
	w.Add(&Event{Kind: EvCall, N: 1, Text: "m", Data: []byte("{}")})
	f.Add(w.Bytes())
	f.Add([]byte{EvAnswer, 2, '{', '\n'})
	f.Fuzz(func(t *testing.T, events []byte) {
		// A journal whose events are the fuzzed bytes: decoding must
		// refuse them or give events that decode again.
		j := &Journal{Input: wire.Input{Language: "shell"}, End: EndFinished, Events: events}
		got, err := Decode(j.Encode(testKey()), testKey())
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if err := ValidateEvents(got.Events); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDecodeBytes: whole journals, resealed under the key so they reach
// every check after authentication (the meta, the snapshot, the events
// section). Decoding must refuse them with ErrInvalid, or give a journal
// that encodes and decodes to itself.
func FuzzDecodeBytes(f *testing.F) {
	j := &Journal{Input: wire.Input{Language: "shell", Code: "echo"}, End: EndStopped, Reason: StopTimeout, Budgets: map[string]int64{"k": 1}}
	f.Add(j.Encode(testKey())[len(Magic)+1:])
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		data := reseal(append(append([]byte(Magic), Version), append(body, make([]byte, 32)...)...))
		got, err := Decode(data, testKey())
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		again, err := Decode(got.Encode(testKey()), testKey())
		if err != nil {
			t.Fatalf("a decoded journal, encoded again, is refused: %v", err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Fatalf("a decoded journal, encoded again, decodes to\n%+v\nnot\n%+v", again, got)
		}
	})
}
