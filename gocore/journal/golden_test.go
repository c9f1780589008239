package journal

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/wire"
)

// goldenJournals are the journals of testdata/golden.txt, which the host
// encoded before the format was a package of its own (their start
// snapshot is gocore/snapshot's golden one). This build must write the
// same bytes and read them back.
func goldenJournals(t *testing.T) (map[string]*Journal, map[string][]byte) {
	t.Helper()
	text, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		name, h, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("golden line %q", line)
		}
		if want[name], err = hex.DecodeString(h); err != nil {
			t.Fatal(err)
		}
	}
	snaps, err := os.ReadFile("../snapshot/testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	var snap []byte
	var digest [32]byte
	for _, line := range strings.Split(string(snaps), "\n") {
		name, h, _ := strings.Cut(line, " ")
		b, _ := hex.DecodeString(h)
		switch name {
		case "compress=false":
			snap = b
		case "digest":
			copy(digest[:], b)
		}
	}
	w := &EventWriter{}
	w.Add(&Event{Kind: EvProcess, Text: "javascript", Digest: []byte(strings.Repeat("d", 40))})
	w.Add(&Event{Kind: EvClock, Clock: 0, Value: 1_700_000_000_000_000_000})
	w.Add(&Event{Kind: EvClock, Clock: 0, Value: 1_700_000_000_000_000_500})
	w.Add(&Event{Kind: EvClock, Clock: 1, Errno: 28})
	w.Add(&Event{Kind: EvRandom, Data: []byte{1, 2, 3}})
	w.Add(&Event{Kind: EvCall, N: 1, Text: "mcp:add", Data: []byte(`{"a":1}`), Outcome: CallApproved})
	w.Add(&Event{Kind: EvAnswer, Data: jsonFrame(wire.ToolAnswer{ID: 1, OK: true, Result: json.RawMessage(`3`)})})
	w.Add(&Event{Kind: EvAnswer, Parts: [][]byte{[]byte(`{"id":2,"ok":true}` + "\n"), []byte(`"two"`)}})
	w.Add(&Event{Kind: EvNoAnswer})
	w.Add(&Event{Kind: EvDisk, N: 4096, Outcome: 1})
	w.Add(&Event{Kind: EvSleep, N: 20})
	w.Add(&Event{Kind: EvPoll, N: 1, NEvents: 1, Data: make([]byte, 32)})
	w.Add(&Event{Kind: EvPathStat, Data: make([]byte, FilestatSize)})
	w.Add(&Event{Kind: EvFdStat, Errno: 8})
	w.Add(&Event{Kind: EvReaddir, N: 3, Data: []byte{9, 9, 9}})
	lim := Limits{Timeout: time.Second, MemoryLimit: 64 << 20, MaxOutput: 1 << 20, MaxToolResult: 1 << 20, MaxCallStack: 300, MaxToolCalls: 10, DiskQuota: 1 << 30}
	w2 := &EventWriter{}
	w2.Add(&Event{Kind: EvProcess, Text: "shell", Digest: []byte(strings.Repeat("e", 40))})
	w2.Add(&Event{Kind: EvSleep, N: 9000})
	return map[string]*Journal{
		"paused": {
			Input:       wire.Input{Language: "javascript", Code: "console.log(1)", Stdin: "in", HasStdin: true, Tools: []wire.ToolInfo{{Name: "add", Description: "adds two numbers"}}, MaxCallStack: 300},
			Limits:      lim,
			Snapshot:    snap,
			FilesDigest: digest,
			Budgets:     map[string]int64{"cap:tool-call:mcp:add": 2, "cap:b": -1},
			Packages:    []PackageDigest{{Name: "attrs", Digest: "0123abcd"}},
			End:         EndPaused,
			ExitCode:    1,
			ErrorKind:   "approval_required",
			Error:       "Approval required",
			Pending: &PendingCall{Token: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, ID: 2, Method: "mcp:pay", Params: json.RawMessage(`{"amount":5}`),
				Unreceived: [][]byte{jsonFrame(wire.ToolAnswer{ID: 1, OK: true, Result: json.RawMessage(`"x"`)})}},
			Events: w.Bytes(),
		},
		"stopped": {Input: wire.Input{Language: "shell", Code: "sleep 9"}, Limits: lim, FilesDigest: digest, Budgets: map[string]int64{},
			End: EndStopped, Reason: StopTimeout, ExitCode: 124, ErrorKind: wire.ErrKindTimeout, Error: "timed out", Events: w2.Bytes()},
	}, want
}

var goldenKey = []byte("golden durable key")

func TestGoldenBytes(t *testing.T) {
	js, want := goldenJournals(t)
	for name, j := range js {
		if got := j.Encode(goldenKey); !bytes.Equal(got, want[name]) {
			t.Errorf("%s: this build writes\n%x\nand the format is\n%x", name, got, want[name])
		}
	}
}

func TestGoldenRead(t *testing.T) {
	js, want := goldenJournals(t)
	for name, j := range js {
		got, err := Decode(want[name], goldenKey)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, j) {
			t.Fatalf("%s: decoded\n%+v\nwant\n%+v", name, got, j)
		}
	}
}
