package hosttest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"amlasandbox/gocore/host"
	"amlasandbox/gocore/wire"
)

// lang is the language the runs below ask for.
const lang = wire.LangPython

type options struct {
	limits host.Limits
	auth   host.Authorizer
	tools  []wire.ToolInfo
	shell  bool // with the shell guest, for shell() and spawns
}

func newSandbox(t *testing.T, o options) *host.Sandbox {
	t.Helper()
	guests := map[string]*host.GuestModule{lang: guest(t)}
	if o.shell {
		guests[wire.LangShell] = shellGuest(t)
	}
	sb, err := host.NewSandbox(nil, host.Config{Tools: o.tools, Limits: o.limits, Authorizer: o.auth, Guests: guests})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// drive answers every request with answer and returns the result.
func drive(t *testing.T, r *host.Run, answer func(wire.Event) (string, error)) wire.Result {
	t.Helper()
	for {
		ev := r.Step(time.Second, true)
		switch ev.Kind {
		case wire.EventDone:
			return *ev.Result
		case wire.EventRequest:
			if answer == nil {
				t.Fatalf("unexpected tool request %s", ev.Method)
			}
			res, err := answer(ev)
			if err != nil {
				if err := r.ResumeError(ev.ID, wire.CodeInternal, err.Error()); err != nil {
					t.Fatal(err)
				}
			} else if err := r.Resume(ev.ID, res); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func run(t *testing.T, sb *host.Sandbox, code string, answer func(wire.Event) (string, error)) wire.Result {
	t.Helper()
	r, err := sb.Start(lang, code, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	return drive(t, r, answer)
}

// echo answers a tool call with its params.
func echo(ev wire.Event) (string, error) { return string(ev.Params), nil }

type denyList map[string]string

func (d denyList) Authorize(method string, _ json.RawMessage) error {
	if msg, ok := d[method]; ok {
		return errors.New(msg)
	}
	return nil
}

// TestOutput pins how output and the final expression print
// (docs/python.md).
func TestOutput(t *testing.T) {
	sb := newSandbox(t, options{})
	tests := []struct {
		name, code, stdout, stderr string
		exit                       int
	}{
		{"print", "print(1)\nprint('héllo', 'x')", "1\nhéllo x\n", "", 0},
		{"stderr", "import sys\nprint('e', file=sys.stderr)", "", "e\n", 0},
		{"final int", "1 + 1", "2\n", "", 0},
		{"final str raw", "'a\"b'", "a\"b\n", "", 0},
		{"final None", "None", "", "", 0},
		{"final print", "print(3)", "3\n", "", 0},
		{"final after prints", "print('x')\n{'a': [1, 2.5, None, True], 'b': 'é'}", "x\n{\"a\":[1,2.5,null,true],\"b\":\"é\"}\n", "", 0},
		{"final tuple", "(1, 'a')", "[1,\"a\"]\n", "", 0},
		{"final repr", "{1, 2}", "{1, 2}\n", "", 0},
		{"final bytes", "b'x'", "b'x'\n", "", 0},
		{"assignment prints nothing", "x = 5", "", "", 0},
		{"os.write to fd 1", "import os\n_ = os.write(1, b'raw\\n')", "raw\n", "", 0},
		{"exit status", "import sys\nsys.exit(3)", "", "", 3},
		{"exit message", "raise SystemExit('bye')", "", "bye\n", 1},
		{"exit builtin", "exit(4)", "", "", 4},
		{"syntax error", "def f(:\n  pass", "", "  File \"<string>\", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n", 1},
		{"uncaught", "def f():\n    raise ValueError('bad')\nf()", "",
			"Traceback (most recent call last):\n  File \"<string>\", line 3, in <module>\n    f()\n    ~^^\n  File \"<string>\", line 2, in f\n    raise ValueError('bad')\nValueError: bad\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, sb, tc.code, nil)
			if res.Stdout != tc.stdout || res.Stderr != tc.stderr || res.ExitCode != tc.exit || res.ErrorKind != "" {
				t.Fatalf("got stdout %q stderr %q exit %d kind %q", res.Stdout, res.Stderr, res.ExitCode, res.ErrorKind)
			}
		})
	}
}

func TestStdinArgvEnv(t *testing.T) {
	sb := newSandbox(t, options{})
	r, err := sb.Start(lang, "import sys, os\nprint(repr(sys.stdin.read()), sys.argv, os.getcwd(), os.environ['HOME'])", "line1\nline2", true, false)
	if err != nil {
		t.Fatal(err)
	}
	res := drive(t, r, nil)
	if res.Stdout != "'line1\\nline2' ['-c'] /workspace /workspace\n" || res.ExitCode != 0 {
		t.Fatalf("got %+v", res)
	}
}

func TestTools(t *testing.T) {
	tools := []wire.ToolInfo{{Name: "get_weather", Description: "Weather"}, {Name: "stripe.charges.create"},
		{Name: "secret"}, {Name: "fail"}, {Name: "my-tool"}, {Name: "open"}}
	auth := denyList{"mcp:secret": "method 'mcp:secret' is not allowed"}
	sb := newSandbox(t, options{tools: tools, auth: auth})
	var seen []string
	answer := func(ev wire.Event) (string, error) {
		seen = append(seen, ev.Method+" "+string(ev.Params))
		if ev.Method == "mcp:fail" {
			return "", errors.New("boom")
		}
		return `{"temp": 20, "got": ` + string(ev.Params) + `}`, nil
	}
	tests := []struct{ name, code, stdout, stderr string }{
		{"keywords", `w = get_weather(city="SF"); print(isinstance(w, dict), type(w).__name__, w["temp"])`, "True dict 20\n", ""},
		{"one dict", `get_weather({"city": "LA"})["got"]`, `{"city":"LA"}` + "\n", ""},
		{"dict and keywords", `get_weather({"a": 1}, b=2)["got"]`, `{"a":1,"b":2}` + "\n", ""},
		{"no arguments", `get_weather()["got"]`, "{}\n", ""},
		{"namespace", `stripe.charges.create(amount=5)["got"]`, `{"amount":5}` + "\n", ""},
		{"dash becomes underscore", `my_tool(x=1)["got"]`, `{"x":1}` + "\n", ""},
		{"builtin not shadowed", `print(open is __builtins__.open if hasattr(__builtins__, "open") else callable(open)); call_tool("open", q=1)["got"]`, "True\n" + `{"q":1}` + "\n", ""},
		{"list_tools", `list_tools()`, `["get_weather","stripe.charges.create","secret","fail","my_tool"]` + "\n", ""},
		{"get_tool_info", `get_tool_info("stripe.charges.create")["id"]`, "mcp:stripe.charges.create\n", ""},
		{"denied", `try:
    secret()
except PermissionError as e:
    print(type(e).__name__, e)`, "ToolDenied tool call 'mcp:secret' failed: permission_denied: method 'mcp:secret' is not allowed\n", ""},
		{"failed", `try:
    fail(x=1)
except ToolError as e:
    print(e, e.code)`, "tool call 'mcp:fail' failed: internal: boom internal\n", ""},
		{"bad params", `try:
    get_weather(1, 2)
except TypeError as e:
    print(e)`, "get_weather() takes keyword arguments or one dict of them, not 2 positional arguments\n", ""},
		{"unserialisable", `import datetime
try:
    get_weather(when=datetime.date(2024, 1, 1))
except TypeError as e:
    print(e)`, "get_weather(): parameter 'when' cannot be sent as JSON: Object of type date is not JSON serializable\n", ""},
		{"namespace not callable", `try:
    stripe()
except TypeError as e:
    print(e)`, "stripe is a namespace of tools, not a tool (it holds: charges)\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, sb, tc.code, answer)
			if res.Stdout != tc.stdout || res.Stderr != tc.stderr || res.ExitCode != 0 {
				t.Fatalf("got stdout %q stderr %q exit %d", res.Stdout, res.Stderr, res.ExitCode)
			}
		})
	}
	// A denied call never reaches the driver.
	for _, s := range seen {
		if strings.HasPrefix(s, "mcp:secret") {
			t.Fatalf("a denied call was handed to the driver: %s", s)
		}
	}
}

// TestAsyncToolsGoTogether checks that gathered calls reach the host
// before the script waits for any answer (so a driver may run them
// concurrently), and that await, gather and asyncio.run work.
func TestAsyncToolsGoTogether(t *testing.T) {
	sb := newSandbox(t, options{tools: []wire.ToolInfo{{Name: "get_weather"}, {Name: "fail"}}})
	codes := map[string]string{
		"top-level await": `rs = await asyncio.gather(*[get_weather(city=c) for c in "abc"])
print([r["city"] for r in rs])`,
		"asyncio.run": `import asyncio
async def main():
    return await asyncio.gather(*[get_weather(city=c) for c in "abc"])
print([r["city"] for r in asyncio.run(main())])`,
		"create_task": `import asyncio
async def main():
    ts = [asyncio.create_task(get_weather(city=c)) for c in "abc"]
    return [await t for t in ts]
print([r["city"] for r in asyncio.run(main())])`,
	}
	for name, code := range codes {
		t.Run(name, func(t *testing.T) {
			r, err := sb.Start(lang, code, "", false, false)
			if err != nil {
				t.Fatal(err)
			}
			var held []wire.Event
			for len(held) < 3 {
				ev := r.Step(5*time.Second, true)
				switch ev.Kind {
				case wire.EventRequest:
					held = append(held, ev)
				case wire.EventDone:
					t.Fatalf("ended before its three calls were submitted: %+v", ev.Result)
				}
			}
			// Answer in reverse order: results still line up.
			for i := len(held) - 1; i >= 0; i-- {
				if err := r.Resume(held[i].ID, string(held[i].Params)); err != nil {
					t.Fatal(err)
				}
			}
			res := drive(t, r, echo)
			if res.Stdout != "['a', 'b', 'c']\n" || res.ExitCode != 0 {
				t.Fatalf("got %+v", res)
			}
		})
	}
	t.Run("return_exceptions", func(t *testing.T) {
		res := run(t, sb, `rs = await asyncio.gather(get_weather(city="a"), fail(), return_exceptions=True)
print(rs[0], type(rs[1]).__name__, rs[1])`, func(ev wire.Event) (string, error) {
			if ev.Method == "mcp:fail" {
				return "", errors.New("down")
			}
			return string(ev.Params), nil
		})
		if res.Stdout != "{'city': 'a'} ToolError tool call 'mcp:fail' failed: internal: down\n" {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("awaiting nothing", func(t *testing.T) {
		res := run(t, sb, "await asyncio.Future()", nil)
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, "awaiting something that can never finish") {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("asyncio.sleep", func(t *testing.T) {
		start := time.Now()
		res := run(t, sb, "await asyncio.sleep(0.2)\nprint('ok')", nil)
		if res.Stdout != "ok\n" || time.Since(start) < 200*time.Millisecond {
			t.Fatalf("got %+v after %v", res, time.Since(start))
		}
	})
}

func TestLimits(t *testing.T) {
	sb := newSandbox(t, options{limits: host.Limits{Timeout: 2 * time.Second, MemoryLimit: 128 << 20}})
	t.Run("busy loop times out", func(t *testing.T) {
		res := run(t, sb, "while True: pass", nil)
		if res.ErrorKind != wire.ErrKindTimeout {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("time.sleep past the deadline", func(t *testing.T) {
		start := time.Now()
		res := run(t, sb, "import time\ntime.sleep(3600)", nil)
		if res.ErrorKind != wire.ErrKindTimeout || time.Since(start) > 5*time.Second {
			t.Fatalf("got %+v after %v", res, time.Since(start))
		}
	})
	t.Run("select past the deadline", func(t *testing.T) {
		res := run(t, sb, "import select\nselect.select([], [], [], 3600)", nil)
		if res.ErrorKind != wire.ErrKindTimeout {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("allocation bomb", func(t *testing.T) {
		res := run(t, sb, "x = []\nwhile True: x.append(' ' * 10**6)", nil)
		if res.ErrorKind != wire.ErrKindMemory || res.ExitCode != 137 {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("a MemoryError not from the limit", func(t *testing.T) {
		res := run(t, sb, "eval('(' * 100000 + ')' * 100000)", nil)
		if res.ErrorKind != "" || res.ExitCode != 1 || !strings.Contains(res.Stderr, "MemoryError") {
			t.Fatalf("got %+v", res)
		}
	})
	recursion := []struct{ name, code string }{
		{"python", "import sys\nsys.setrecursionlimit(10**6)\ndef f(n): return f(n + 1)\nf(0)"},
		{"getattr", "class A:\n    def __getattr__(self, n): return getattr(self, n)\nA().x"},
		{"deep AST", "import ast\ne = ast.Constant(1)\nfor _ in range(100000): e = ast.UnaryOp(ast.USub(), e)\ncompile(ast.fix_missing_locations(ast.Expression(e)), 's', 'eval')"},
		{"deepcopy", "import copy\nl = []\nfor i in range(30000): l = [l]\ncopy.deepcopy(l)"},
		{"pickle", "import pickle\nl = []\nfor i in range(100000): l = [l]\npickle.dumps(l)"},
		{"json", "import json\njson.loads('[' * 200000 + ']' * 200000)"},
		{"repr", "l = []\nfor i in range(200000): l = [l]\nrepr(l)"},
	}
	for _, tc := range recursion {
		t.Run("recursion "+tc.name, func(t *testing.T) {
			code := "try:\n" + indent(tc.code) + "\nexcept RecursionError:\n    print('caught')"
			res := run(t, sb, code, nil)
			if res.Stdout != "caught\n" || res.ExitCode != 0 {
				t.Fatalf("got %+v", res)
			}
		})
	}
	// Nesting the parser refuses: a catchable error either way.
	for _, src := range []string{"'(' * 100000 + ')' * 100000", "'-' * 100000 + '1'", "'[' * 5000 + ']' * 5000"} {
		res := run(t, sb, "try:\n    eval("+src+")\nexcept (MemoryError, SyntaxError, RecursionError) as e:\n    print(type(e).__name__)", nil)
		if res.ExitCode != 0 || res.Stdout == "" {
			t.Fatalf("eval(%s): got %+v", src, res)
		}
	}
	// After all that the sandbox still runs scripts.
	if res := run(t, sb, "print('alive')", nil); res.Stdout != "alive\n" {
		t.Fatalf("got %+v", res)
	}
}

func indent(code string) string {
	return "    " + strings.ReplaceAll(code, "\n", "\n    ")
}

func TestFiles(t *testing.T) {
	sb := newSandbox(t, options{limits: host.Limits{DiskQuota: 1 << 20}})
	res := run(t, sb, `import csv, json, pathlib, sqlite3
pathlib.Path("/workspace/out").mkdir()
with open("/workspace/out/a.csv", "w", newline="") as f:
    csv.writer(f).writerows([["x", "y"], [1, 2]])
db = sqlite3.connect("/workspace/out/db.sqlite")
db.execute("create table t(v)")
db.execute("insert into t values (1), (2)")
db.commit()
print(db.execute("select sum(v) from t").fetchone()[0])`, nil)
	if res.Stdout != "3\n" || res.ExitCode != 0 {
		t.Fatalf("got %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(sb.Root(), "workspace", "out", "a.csv"))
	if err != nil || string(b) != "x,y\r\n1,2\r\n" {
		t.Fatalf("the host sees %q, %v", b, err)
	}
	for _, path := range []string{"/etc/passwd", "/x", "/usr/lib/python3.13/os.py"} {
		res := run(t, sb, "open('"+path+"', 'w')", nil)
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, "PermissionError: [Errno 2] Permission denied: '"+path+"'") {
			t.Fatalf("writing %s: %+v", path, res)
		}
	}
	t.Run("quota", func(t *testing.T) {
		res := run(t, sb, `data = b"x" * 300_000
n = 0
try:
    while True:
        with open(f"/workspace/big{n}", "wb") as f:
            f.write(data)
        n += 1
except OSError as e:
    print(n, e.strerror)`, nil)
		if res.Stdout != "3 No space left on device\n" && res.Stdout != "2 No space left on device\n" {
			t.Fatalf("got %+v", res)
		}
		res = run(t, sb, `import os
n = 0
try:
    while True:
        os.mkdir(f"/workspace/d{n}")
        n += 1
except OSError as e:
    print(n > 10, e.strerror)`, nil)
		if res.Stdout != "True No space left on device\n" {
			t.Fatalf("got %+v", res)
		}
	})
}

func TestShellFromPython(t *testing.T) {
	sb := newSandbox(t, options{shell: true})
	res := run(t, sb, `open("/workspace/f.txt", "w").write("from python\n")
r = shell("cat f.txt; echo err >&2; exit 3")
print(repr(r.stdout), repr(r.stderr), r.exit_code)
print(shell.run("echo hi | tr a-z A-Z"), end="")
try:
    shell.run("false")
except ShellError as e:
    print(e.exit_code)
print(shell("cat", stdin="piped").stdout)`, nil)
	want := "'from python\\n' 'err\\n' 3\nHI\n1\npiped\n"
	if res.Stdout != want || res.ExitCode != 0 {
		t.Fatalf("got %+v", res)
	}
}

// TestRunsAreIsolated checks that nothing a run changes reaches the next
// (the instance is reset to the snapshot or made anew).
func TestRunsAreIsolated(t *testing.T) {
	sb := newSandbox(t, options{})
	first := run(t, sb, `import json, sys, os, random, builtins
x = 5
json.dumps = None
sys.path.append("/elsewhere")
os.sep = "!"
builtins.len = None
print(random.random())`, nil)
	second := run(t, sb, `import json, sys, os, random
print(globals().get("x"), json.dumps([1]), sys.path, os.sep, len([1]))
print(random.random())`, nil)
	lines := strings.Split(second.Stdout, "\n")
	if len(lines) < 2 || lines[0] != "None [1] ['/workspace'] / 1" || lines[1] == strings.TrimSpace(first.Stdout) {
		t.Fatalf("first %+v\nsecond %+v", first, second)
	}
}

// TestPythonFromTheShell runs python as the shell's applet: a child
// process on the same files, with its argv, stdin and directory.
func TestPythonFromTheShell(t *testing.T) {
	sb := newSandbox(t, options{shell: true})
	r, err := sb.Start(wire.LangShell, `python -c 'print(6 * 7)'
mkdir -p sub && cd sub
printf 'import sys, os\nprint(sys.argv, os.getcwd(), __file__)\n' > s.py
python3 s.py a b
echo 'print("from stdin")' | python -
echo abc | python -c 'import sys; print(sys.stdin.read().strip().upper())'
python -c 'import sys; sys.exit(3)'; echo "exit $?"
printf '#!/usr/bin/env python3\nprint("shebang")\n' > run.py && ./run.py`, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	res := drive(t, r, nil)
	want := "42\n['s.py', 'a', 'b'] /workspace/sub /workspace/sub/s.py\nfrom stdin\nABC\nexit 3\nshebang\n"
	if res.Stdout != want || res.ExitCode != 0 {
		t.Fatalf("got stdout %q stderr %q exit %d", res.Stdout, res.Stderr, res.ExitCode)
	}
}

func TestRefusals(t *testing.T) {
	sb := newSandbox(t, options{})
	tests := map[string]string{
		"import subprocess\nsubprocess.run(['ls'])":                    "OSError: [Errno 58] the sandbox runs no other processes",
		"import os\nos.system('ls')":                                   "OSError: [Errno 58] the sandbox runs no other processes",
		"import threading\nthreading.Thread(target=print).start()":     "RuntimeError: can't start a new thread: the sandbox has no threads",
		"import socket\nsocket.create_connection(('example.com', 80))": "the sandbox has no sockets: HTTP and HTTPS requests go through the host",
		"import ctypes": "ModuleNotFoundError: No module named 'ctypes': the sandbox cannot load native code",
	}
	for code, want := range tests {
		res := run(t, sb, code, nil)
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, want) {
			t.Fatalf("%s: got %+v", code, res)
		}
	}
}
