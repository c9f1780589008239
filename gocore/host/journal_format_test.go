package host

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

	"amlasandbox/gocore/wire"
)

func sampleJournal(t *testing.T) *Journal {
	t.Helper()
	snap, err := newTestSandbox(t, Limits{}, nil).Snapshot(SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := parseSnapshot(snap, testKey())
	if err != nil {
		t.Fatal(err)
	}
	w := &eventWriter{}
	w.add(&event{kind: evProcess, text: "javascript", digest: make([]byte, 40)})
	w.add(&event{kind: evClock, clock: 0, value: 1_700_000_000_000_000_000})
	w.add(&event{kind: evClock, clock: 0, value: 1_700_000_000_000_000_500})
	w.add(&event{kind: evClock, clock: 1, errno: 28})
	w.add(&event{kind: evRandom, data: []byte{1, 2, 3}})
	w.add(&event{kind: evCall, n: 1, text: "mcp:add", data: []byte(`{"a":1}`), outcome: callAllowed})
	w.add(&event{kind: evAnswer, data: jsonFrame(wire.ToolAnswer{ID: 1, OK: true, Result: json.RawMessage(`3`)})})
	w.add(&event{kind: evNoAnswer})
	w.add(&event{kind: evDisk, n: 4096, outcome: 1})
	w.add(&event{kind: evSleep, n: 20})
	w.add(&event{kind: evPoll, n: 1, nevents: 1, data: make([]byte, 32)})
	w.add(&event{kind: evPathStat, data: make([]byte, filestatSize)})
	w.add(&event{kind: evReaddir, n: 3, data: []byte{9, 9, 9}})
	return &Journal{
		Input:       wire.Input{Language: "javascript", Code: "console.log(1)", Tools: []wire.ToolInfo{{Name: "add"}}},
		Limits:      Limits{Timeout: time.Second, MemoryLimit: 64 << 20, MaxOutput: 1 << 20, MaxToolResult: 1 << 20, MaxToolCalls: 10, DiskQuota: 1 << 30},
		Snapshot:    snap,
		FilesDigest: ps.digest,
		Budgets:     map[string]int64{"cap:tool-call:mcp:add": 2},
		Packages:    []PackageDigest{{Name: "attrs", Digest: "0123abcd"}},
		End:         EndPaused,
		ExitCode:    1,
		ErrorKind:   ErrKindApproval,
		Error:       "Approval required",
		Pending: &PendingCall{Token: newToken(), ID: 2, Method: "mcp:pay", Params: json.RawMessage(`{"amount":5}`),
			Unreceived: [][]byte{jsonFrame(wire.ToolAnswer{ID: 1, OK: true, Result: json.RawMessage(`"x"`)})}},
		Events: w.b,
	}
}

func TestJournalRoundTrip(t *testing.T) {
	j := sampleJournal(t)
	got, err := DecodeJournal(j.Encode(testKey()), testKey())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, j)
	}
	er := newEventReader(got.Events)
	var kinds []byte
	for !er.done() {
		e, err := er.next()
		if err != nil {
			t.Fatal(err)
		}
		if e.kind == evClock && e.clock == 0 && e.value != 1_700_000_000_000_000_000 && e.value != 1_700_000_000_000_000_500 {
			t.Fatalf("clock value %d", e.value)
		}
		kinds = append(kinds, e.kind)
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
	m := newMAC(key)
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
	out := append([]byte(journalMagic), journalVersion)
	out = appendBytes(out, j.appendMeta(nil))
	out = appendBytes(out, j.Snapshot)
	out = binary.AppendUvarint(out, declared)
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.BestSpeed)
	zw.Write(section)
	zw.Close()
	out = appendBytes(out, z.Bytes())
	m := newMAC(testKey())
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
		return withSection(j, appendBytes(nil, ev), uint64(len(appendBytes(nil, ev))))
	}
	zeros := make([]byte, 1<<20)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too few"},
		{"not a journal", bytes.Repeat([]byte("y"), 64), "not an amla-sandbox journal"},
		{"a snapshot", newSnap().dir("tmp", 0o755).dir("workspace", 0o755).done(nil), "not an amla-sandbox journal"},
		{"future version", reseal(append([]byte(journalMagic), append([]byte{3}, make([]byte, 40)...)...)), "version 3 is not supported"},
		{"version 1 (unauthenticated)", sha256Reseal(append([]byte(journalMagic), append([]byte{1}, make([]byte, 40)...)...)), "version 1 is not supported (this build reads version 2; older versions carry no authentication"},
		{"truncated", good[:len(good)-3], "authentication failed"},
		{"tampered", flipped, "authentication failed"},
		{"tampered, with a SHA-256 trailer", sha256Reseal(flipped), "authentication failed"},
		{"made under another key", resealWith(good, []byte("another application's durable key")), "authentication failed"},
		{"events beyond what DEFLATE makes of them", withSection(j, appendBytes(nil, nil), 256<<20), "stored bytes can inflate to"},
		{"snapshot of another state", otherSnap.Encode(testKey()), "files digest is not the one"},
		{"unknown event", badEvents(99), "unknown event type 99"},
		{"event cut short", badEvents(evCall, 1), "damaged or truncated"},
		{"call outcome", badEvents(evCall, 1, 0, 0, 9), "unknown call outcome 9"},
		{"answer without header", badEvents(evAnswer, 3, 'a', 'b', 'c'), "without its header"},
		{"poll size", badEvents(evPoll, 1, 0, 2, 1, 0), "poll events"},
		{"events inflate past their length", withSection(j, append(appendBytes(nil, nil), zeros...), 10), "more bytes than it declares"},
		{"events inflate short", withSection(j, appendBytes(nil, nil), 4096), "fewer bytes"},
		{"events too big", withSection(j, nil, maxJournalEvents+1), "more than"},
		{"bytes after the events", withSection(j, append(appendBytes(nil, nil), 1, 2), 3), "after its events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeJournal(tt.data, testKey())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if !errors.Is(err, ErrJournal) {
				t.Fatalf("%v does not wrap ErrJournal", err)
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
	_, err := DecodeJournal(forged, testKey())
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("got %v, want an authentication failure", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(forged)) {
		t.Fatalf("decoding a forged journal of %d bytes allocated %d bytes", len(forged), grew)
	}
}

func FuzzDecodeJournal(f *testing.F) {
	w := &eventWriter{}
	w.add(&event{kind: evClock, value: 5})
	w.add(&event{kind: evCall, n: 1, text: "m", data: []byte("{}")})
	f.Add(w.b)
	f.Add([]byte{evAnswer, 2, '{', '\n'})
	f.Fuzz(func(t *testing.T, events []byte) {
		// A journal whose events are the fuzzed bytes: decoding must
		// refuse them or give events that decode again.
		j := &Journal{Input: wire.Input{Language: "shell"}, End: EndFinished, Events: events}
		got, err := DecodeJournal(j.Encode(testKey()), testKey())
		if err != nil {
			if !errors.Is(err, ErrJournal) {
				t.Fatalf("error %v does not wrap ErrJournal", err)
			}
			return
		}
		if err := validateEvents(got.Events); err != nil {
			t.Fatal(err)
		}
	})
}
