package guesttest

// Durable sessions on the real host with the real guests
// (docs/durable.md): record and replay exactly (Promise.all, the clock,
// random numbers, files and their times, nested processes), approval
// that pauses and resumes from a token, replays of stopped runs.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// driveAll answers requests with answer and approvals with approve;
// requests issued together are answered in reverse order (as concurrent
// handlers may finish), which the journal must capture.
func driveAll(t *testing.T, r *host.Run, answer func(wire.Event) (string, error), approve func(wire.Event) bool) wire.Result {
	t.Helper()
	var batch []wire.Event
	flush := func() {
		for i := len(batch) - 1; i >= 0; i-- {
			ev := batch[i]
			res, err := answer(ev)
			if err != nil {
				r.ResumeError(ev.ID, wire.CodeInternal, err.Error())
			} else if err := r.Resume(ev.ID, res); err != nil {
				t.Fatal(err)
			}
		}
		batch = batch[:0]
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ev := r.Step(20*time.Millisecond, true)
		switch ev.Kind {
		case wire.EventDone:
			return *ev.Result
		case wire.EventRequest:
			if answer == nil {
				t.Fatalf("a request reached the driver: %s %s", ev.Method, ev.Params)
			}
			batch = append(batch, ev)
			continue
		case host.EventApproval:
			if approve == nil {
				t.Fatalf("an approval reached the driver: %s", ev.Method)
			}
			if err := r.Approve(ev.ID, approve(ev)); err != nil {
				t.Fatal(err)
			}
		}
		flush()
	}
	r.Cancel()
	t.Fatal("run did not end within a minute")
	return wire.Result{}
}

func startDurable(t *testing.T, sb *host.Sandbox, o host.RunOptions) *host.Run {
	t.Helper()
	r, err := sb.StartDurable(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func journalOf(t *testing.T, r *host.Run) []byte {
	t.Helper()
	j, err := r.Journal()
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func decode(t *testing.T, b []byte) *host.Journal {
	t.Helper()
	j, err := host.DecodeJournal(b, host.ProcessDurableKey())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// approvalAuth allows every call; those named true need approval.
type approvalAuth map[string]bool

func (a approvalAuth) Authorize(string, json.RawMessage) error { return nil }

func (a approvalAuth) AuthorizeCall(method string, _ json.RawMessage) (bool, error) {
	return a[method], nil
}

// writeFiles puts files (path under the sandbox's root -> contents) into
// its directory directly.
func writeFiles(t *testing.T, sb *host.Sandbox, files map[string]string) {
	t.Helper()
	for p, data := range files {
		path := filepath.Join(sb.Root(), filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var durableTools = []wire.ToolInfo{
	{Name: "add", Description: "add two numbers", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`)},
	{Name: "lookup", Description: "look a key up", InputSchema: json.RawMessage(`{"type":"object","properties":{"k":{"type":"string"}}}`)},
	{Name: "pay", Description: "move money", InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}}}`)},
}

func newRealSandbox(t *testing.T, auth host.Authorizer) *host.Sandbox {
	t.Helper()
	return newDurableSandbox(t, auth, host.Limits{})
}

func newDurableSandbox(t *testing.T, auth host.Authorizer, lim host.Limits) *host.Sandbox {
	t.Helper()
	js, shell := guests(t)
	sb, err := host.NewSandbox(nil, host.Config{Tools: durableTools, Authorizer: auth, Limits: lim,
		Guests: map[string]*host.GuestModule{wire.LangShell: shell, wire.LangJavaScript: js}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// toolAnswers answers like a small agent toolbox: add sums, lookup
// returns a record (and fails for "missing"), pay confirms.
type toolAnswers struct {
	mu    sync.Mutex
	calls []string
}

func (a *toolAnswers) answer(ev wire.Event) (string, error) {
	a.mu.Lock()
	a.calls = append(a.calls, ev.Method+" "+string(ev.Params))
	a.mu.Unlock()
	var p map[string]any
	_ = json.Unmarshal(ev.Params, &p)
	switch ev.Method {
	case "mcp:add":
		x, _ := p["a"].(float64)
		y, _ := p["b"].(float64)
		return fmt.Sprint(x + y), nil
	case "mcp:lookup":
		if p["k"] == "missing" {
			return "", fmt.Errorf("no such key: missing")
		}
		return fmt.Sprintf(`{"key": %q, "value": %d, "tags": ["a", "b"]}`, p["k"], len(fmt.Sprint(p["k"]))), nil
	case "mcp:pay":
		return `{"ok": true, "receipt": "r-1"}`, nil
	}
	return "null", nil
}

// durableScripts are agent-style scripts whose output depends on every
// kind of input: tool answers (together and in turn), the clock, random
// numbers, sleeps, files and their times, nested processes.
var durableScripts = []struct{ name, lang, code string }{
	{"js promise all", "javascript", `
const [s, r, q] = await Promise.all([add({a: 1, b: 2}), lookup({k: "alpha"}), add({a: 40, b: 2})]);
console.log(s, JSON.stringify(r), q);`},
	{"js clock and random", "javascript", `
const t0 = Date.now(); const r = Math.random(); const p = performance.now();
await new Promise(res => setTimeout(res, 15));
console.log(t0, r, p, Date.now() - t0 >= 0, new Date().toISOString());`},
	{"js failing tool", "javascript", `
try { await lookup({k: "missing"}); } catch (e) { console.log("caught:", e.message); }
console.log(await add({a: Math.floor(Math.random() * 100), b: 1}));`},
	{"js files", "javascript", `
await fs.writeFile("/workspace/notes.txt", "n=" + Math.random());
await fs.mkdir("/workspace/sub", {recursive: true});
await fs.writeFile("/workspace/sub/a.json", JSON.stringify(await lookup({k: "beta"})));
const st = await fs.stat("/workspace/notes.txt");
console.log((await fs.readdir("/workspace")).join(","), st.size, st.mtimeMs, await fs.readFile("/workspace/notes.txt", "utf8"));`},
	{"js nested shell", "javascript", `
const out = await shell("echo rnd=$RANDOM; date +%s%N; tool add --a 5 --b 6; ls -l /workspace");
console.log(out.stdout, out.exitCode, Date.now());`},
	{"js calls in a loop", "javascript", `
let total = 0;
for (let i = 0; i < 25; i++) { total += await add({a: i, b: Math.floor(Math.random() * 3)}); }
const many = await Promise.all(Array.from({length: 12}, (_, i) => lookup({k: "k" + i})));
console.log(total, many.map(m => m.value).join(""));`},
	{"js error exit", "javascript", `
console.log(await add({a: 1, b: 1})); throw new Error("boom at " + Date.now());`},
	{"shell random and date", "shell", `echo $RANDOM $RANDOM; date; date +%N; sleep 0.02; date +%s%N`},
	{"shell tools and files", "shell", `
tool add --a 2 --b 3 > /workspace/sum.txt
tool lookup --k gamma | jq -r .value >> /workspace/sum.txt
mkdir -p /workspace/d && echo $RANDOM > /workspace/d/f && ls -l /workspace /workspace/d
find /workspace -newer /workspace/sum.txt; cat /workspace/sum.txt`},
	{"shell nested node", "shell", `
node -e 'console.log(Date.now(), Math.random()); console.log(await add({a: 7, b: 8}))'
echo after $RANDOM`},
	{"shell shuf and stat", "shell", `seq 1 20 | shuf | head -3; echo made > /workspace/new.txt; stat /workspace/seed.txt /workspace/new.txt; ls -lt /workspace`},
	{"shell failing tool", "shell", `tool lookup --k missing; echo "exit=$?"; tool add --a 1 --b 1`},
	{"three levels", "javascript", `
const r = await shell("node -e 'const o = await shell(\"echo inner $RANDOM; tool add --a 1 --b 2\"); console.log(o.stdout, Math.random())'");
console.log(r.stdout, await add({a: 2, b: 2}));`},
}

func TestReplayRealGuests(t *testing.T) {
	for _, sc := range durableScripts {
		t.Run(sc.name, func(t *testing.T) {
			sb := newRealSandbox(t, nil)
			writeFiles(t, sb, map[string]string{"workspace/seed.txt": "seed"})
			tools := &toolAnswers{}
			r := startDurable(t, sb, host.RunOptions{Language: sc.lang, Code: sc.code, Record: true})
			want := driveAll(t, r, tools.answer, nil)
			if want.ErrorKind != "" && sc.name != "js error exit" {
				t.Fatalf("recorded run failed: %+v", want)
			}
			jb := journalOf(t, r)
			j := decode(t, jb)
			sb2 := newRealSandbox(t, nil)
			if err := sb2.Restore(j.Snapshot); err != nil {
				t.Fatal(err)
			}
			r2 := startDurable(t, sb2, host.RunOptions{Replay: j})
			got := driveAll(t, r2, nil, nil)
			if d := r2.Divergence(); d != nil {
				t.Fatalf("divergence: %v\nrecorded stdout %q", d, want.Stdout)
			}
			if got.Stdout != want.Stdout || got.Stderr != want.Stderr || got.ExitCode != want.ExitCode {
				t.Fatalf("replay differs:\n got %q %q %d\nwant %q %q %d", got.Stdout, got.Stderr, got.ExitCode, want.Stdout, want.Stderr, want.ExitCode)
			}
			d1, err := sb.FilesDigest()
			if err != nil {
				t.Fatal(err)
			}
			// The file times of files the run wrote are the replaying
			// host's; their contents, names and modes are the run's.
			if a, b := contentsOf(t, sb.Root()), contentsOf(t, sb2.Root()); a != b {
				t.Fatalf("files differ after replay:\n%s\n%s", a, b)
			}
			_ = d1
			t.Logf("%s: %d tool calls, journal %d bytes (%d of events)\n%s%s", sc.name, len(tools.calls), len(jb), len(j.Events), want.Stdout, want.Stderr)
		})
	}
}

// contentsOf lists a sandbox's files with their contents and modes (not
// their times).
func contentsOf(t *testing.T, root string) string {
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %o %v", rel, info.Mode(), d.IsDir())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// resumeToken continues a paused run in a fresh sandbox from its token
// alone, deciding the pending call.
func resumeToken(t *testing.T, token []byte, approve bool, auth host.Authorizer, tools *toolAnswers) (*host.Run, wire.Result) {
	t.Helper()
	j := decode(t, token)
	sb := newRealSandbox(t, auth)
	if err := sb.Restore(j.Snapshot); err != nil {
		t.Fatal(err)
	}
	r := startDurable(t, sb, host.RunOptions{Replay: j, Approve: &approve, Then: host.ThenLive, Record: true, Approvals: host.ApprovalPause})
	res := driveAll(t, r, tools.answer, nil)
	if d := r.Divergence(); d != nil {
		t.Fatal(d)
	}
	return r, res
}

func TestApprovalRealGuests(t *testing.T) {
	auth := approvalAuth{"mcp:pay": true}
	tests := []struct {
		name, lang, code string
		before           []string // calls the handler sees before the pause
		after            []string // after resuming with approval
		refusedOut       string   // in stdout when refused
	}{
		{"js pay after others", "javascript", `
const [a, l] = await Promise.all([add({a: 1, b: 2}), lookup({k: "x"})]);
const r = await pay({amount: 5});
console.log(a, l.value, r.receipt, Date.now(), await add({a: 9, b: 9}));`,
			[]string{`mcp:add {"a":1,"b":2}`, `mcp:lookup {"k":"x"}`},
			[]string{`mcp:pay {"amount":5}`, `mcp:add {"a":9,"b":9}`}, ""},
		{"js pay together with another call", "javascript", `
try {
  const [a, r] = await Promise.all([add({a: 1, b: 2}), pay({amount: 6})]);
  console.log(a, r.receipt, Math.random());
} catch (e) { console.log("refused:", e.message, await add({a: 3, b: 3})); }`,
			[]string{`mcp:add {"a":1,"b":2}`},
			[]string{`mcp:pay {"amount":6}`}, "was not approved"},
		{"shell child pays", "javascript", `
const before = await add({a: 4, b: 4});
const o = await shell("echo $RANDOM; tool pay --amount 7; tool add --a 1 --b 0");
console.log(before, o.stdout, o.stderr, o.exitCode);`,
			[]string{`mcp:add {"a":4,"b":4}`},
			[]string{`mcp:pay {"amount":7}`, `mcp:add {"a":1,"b":0}`}, "was not approved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newRealSandbox(t, auth)
			tools := &toolAnswers{}
			r := startDurable(t, sb, host.RunOptions{Language: tt.lang, Code: tt.code, Record: true, Approvals: host.ApprovalPause})
			res := driveAll(t, r, tools.answer, nil)
			if res.ErrorKind != host.ErrKindApproval {
				t.Fatalf("no pause: %+v", res)
			}
			if strings.Join(sortedCopy(tools.calls), "|") != strings.Join(sortedCopy(tt.before), "|") {
				t.Fatalf("before the pause: %v, want %v", tools.calls, tt.before)
			}
			token := journalOf(t, r)
			for _, approve := range []bool{true, false} {
				tools2 := &toolAnswers{}
				r2, res2 := resumeToken(t, token, approve, auth, tools2)
				if res2.ErrorKind != "" {
					t.Fatalf("approve=%v: %+v", approve, res2)
				}
				if approve {
					if strings.Join(tools2.calls, "|") != strings.Join(tt.after, "|") {
						t.Fatalf("after approving: %v, want %v (earlier calls must not repeat)", tools2.calls, tt.after)
					}
				} else {
					for _, c := range tools2.calls {
						if strings.HasPrefix(c, "mcp:pay") {
							t.Fatalf("a refused call reached its handler: %v", tools2.calls)
						}
						for _, b := range tt.before {
							if c == b {
								t.Fatalf("an earlier call repeated: %v", tools2.calls)
							}
						}
					}
					if tt.refusedOut != "" && !strings.Contains(res2.Stdout+res2.Stderr, tt.refusedOut) {
						t.Fatalf("refused: %q %q", res2.Stdout, res2.Stderr)
					}
				}
				// The resumed run's journal replays the whole run.
				j := decode(t, journalOf(t, r2))
				sb3 := newRealSandbox(t, auth)
				if err := sb3.Restore(j.Snapshot); err != nil {
					t.Fatal(err)
				}
				r3 := startDurable(t, sb3, host.RunOptions{Replay: j})
				if res3 := driveAll(t, r3, nil, nil); res3.Stdout != res2.Stdout || r3.Divergence() != nil {
					t.Fatalf("replaying the resumed run: %q vs %q, %v", res3.Stdout, res2.Stdout, r3.Divergence())
				}
			}
		})
	}
}

func TestApprovalTwiceRealGuest(t *testing.T) {
	auth := approvalAuth{"mcp:pay": true}
	sb := newRealSandbox(t, auth)
	tools := &toolAnswers{}
	code := `const a = await pay({amount: 1}); const n = await add({a: 1, b: 1}); const b = await pay({amount: 2}); console.log(a.ok, n, b.ok, Date.now());`
	r := startDurable(t, sb, host.RunOptions{Language: "javascript", Code: code, Record: true, Approvals: host.ApprovalPause})
	if res := driveAll(t, r, tools.answer, nil); res.ErrorKind != host.ErrKindApproval || len(tools.calls) != 0 {
		t.Fatalf("first pause: %+v %v", res, tools.calls)
	}
	tools2 := &toolAnswers{}
	r2, res2 := resumeToken(t, journalOf(t, r), true, auth, tools2)
	if res2.ErrorKind != host.ErrKindApproval || r2.Paused() == nil || r2.Paused().Method != "mcp:pay" {
		t.Fatalf("second pause: %+v", res2)
	}
	if strings.Join(tools2.calls, "|") != `mcp:pay {"amount":1}|mcp:add {"a":1,"b":1}` {
		t.Fatalf("between the pauses: %v", tools2.calls)
	}
	tools3 := &toolAnswers{}
	_, res3 := resumeToken(t, journalOf(t, r2), true, auth, tools3)
	if res3.ErrorKind != "" || strings.Join(tools3.calls, "|") != `mcp:pay {"amount":2}` || !strings.HasPrefix(res3.Stdout, "true 2 true ") {
		t.Fatalf("after the second approval: %+v %v", res3, tools3.calls)
	}
}

func TestReplayStoppedRuns(t *testing.T) {
	tests := []struct {
		name, lang, code string
		kind             string
	}{
		{"timeout in a sleep", "javascript", `console.log(Date.now()); await new Promise(r => setTimeout(r, 5000)); console.log("never")`, wire.ErrKindTimeout},
		{"timeout computing", "javascript", `console.log(Math.random()); while (true) {}`, wire.ErrKindTimeout},
		{"shell timeout", "shell", `echo $RANDOM; sleep 10; echo never`, wire.ErrKindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mk := func() *host.Sandbox { return newDurableSandbox(t, nil, host.Limits{Timeout: 300 * time.Millisecond}) }
			r := startDurable(t, mk(), host.RunOptions{Language: tt.lang, Code: tt.code, Record: true})
			want := driveAll(t, r, nil, nil)
			if want.ErrorKind != tt.kind {
				t.Fatalf("recorded: %+v", want)
			}
			j := decode(t, journalOf(t, r))
			if j.End != host.EndStopped || j.ErrorKind != wire.ErrKindTimeout {
				t.Fatalf("journal end %q, %s", j.End, j.ErrorKind)
			}
			sb2 := mk()
			if err := sb2.Restore(j.Snapshot); err != nil {
				t.Fatal(err)
			}
			r2 := startDurable(t, sb2, host.RunOptions{Replay: j})
			got := driveAll(t, r2, nil, nil)
			if got.ErrorKind != want.ErrorKind || got.Stdout != want.Stdout || r2.Divergence() != nil {
				t.Fatalf("replay: %+v (recorded %+v) %v", got, want, r2.Divergence())
			}
		})
	}
}

// Recorded runs one after another on one sandbox (its instance reset
// between them) each replay on their own start state.
func TestRecordedRunsInARow(t *testing.T) {
	sb := newRealSandbox(t, nil)
	tools := &toolAnswers{}
	var journals [][]byte
	var outs []string
	for i, code := range []string{
		`await fs.writeFile("/workspace/n", String(Math.random())); console.log(await add({a: 1, b: 2}), Date.now())`,
		`console.log(await fs.readFile("/workspace/n", "utf8"), Math.random())`,
		`cat /workspace/n; echo $RANDOM; tool add --a 3 --b 4`,
		`console.log((await fs.stat("/workspace/n")).mtimeMs, await add({a: 5, b: 6}))`,
	} {
		lang := "javascript"
		if i == 2 {
			lang = "shell"
		}
		r := startDurable(t, sb, host.RunOptions{Language: lang, Code: code, Record: true})
		res := driveAll(t, r, tools.answer, nil)
		if res.ErrorKind != "" {
			t.Fatalf("run %d: %+v", i, res)
		}
		journals = append(journals, journalOf(t, r))
		outs = append(outs, res.Stdout)
	}
	for i, jb := range journals {
		j := decode(t, jb)
		sb2 := newRealSandbox(t, nil)
		if err := sb2.Restore(j.Snapshot); err != nil {
			t.Fatal(err)
		}
		r := startDurable(t, sb2, host.RunOptions{Replay: j})
		if res := driveAll(t, r, nil, nil); res.Stdout != outs[i] || r.Divergence() != nil {
			t.Fatalf("run %d replays as %q (recorded %q): %v", i, res.Stdout, outs[i], r.Divergence())
		}
	}
}

// A replay that goes live after the journal of a run stopped in a sleep:
// the guest's clocks go on from the journal's (shifted forward, never
// back), so its timers come due and it makes the next calls live.
func TestThenLiveAfterAStoppedRun(t *testing.T) {
	mk := func() *host.Sandbox { return newDurableSandbox(t, nil, host.Limits{Timeout: 300 * time.Millisecond}) }
	for _, tt := range []struct{ lang, code string }{
		{"javascript", "let i = 0; for (;;) { await add({a: i++, b: 0}); await new Promise(r => setTimeout(r, 20)); }"},
		{"shell", "i=0; while true; do tool add --a $i --b 0; i=$((i+1)); sleep 0.02; done"},
	} {
		tools := &toolAnswers{}
		r := startDurable(t, mk(), host.RunOptions{Language: tt.lang, Code: tt.code, Record: true})
		if res := driveAll(t, r, tools.answer, nil); res.ErrorKind != wire.ErrKindTimeout {
			t.Fatalf("recorded: %+v", res)
		}
		j := decode(t, journalOf(t, r))
		sb2 := mk()
		if err := sb2.Restore(j.Snapshot); err != nil {
			t.Fatal(err)
		}
		live := &toolAnswers{}
		r2 := startDurable(t, sb2, host.RunOptions{Replay: j, Then: host.ThenLive})
		driveAll(t, r2, live.answer, nil)
		if r2.Divergence() != nil || len(live.calls) == 0 {
			t.Fatalf("%s: %d live calls, %v", tt.lang, len(live.calls), r2.Divergence())
		}
		if want := fmt.Sprintf(`mcp:add {"a":%d,"b":0}`, len(tools.calls)); live.calls[0] != want {
			t.Fatalf("%s: the first live call is %s, want %s", tt.lang, live.calls[0], want)
		}
	}
}
