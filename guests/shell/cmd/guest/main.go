// Command guest is the shell guest that runs inside the WASM sandbox
// (GOOS=wasip1 GOARCH=wasm): the shell and its applets. It reads its run's
// input from the host, then runs the shell script it was given.
//
// JavaScript runs on its own guest (QuickJS-NG, guests/js/). The two meet
// only through the host: JavaScript's shell() and the shell's `node`
// applet ask it to start the other language as a child process on the
// same files.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/applets"
	"amlasandbox/guests/shell/hostcall"
	"amlasandbox/guests/shell/shell"
)

// main is the entry of the command build (tests, tools): one run, then
// exit with its status.
func main() { hostcall.Exit(run()) }

// amlaInit is the reactor's one-time set-up: runtime and package init have
// run by now (in _initialize); the host may snapshot the instance after it,
// so whatever every run would build the same way is built here. Nothing
// here may touch files: the snapshot is taken where none are open.
//
// The host calls amla_init before every run; in a snapshot it finds the
// work done and returns.
//
//go:wasmexport amla_init
func amlaInit() {
	if baseRegistry != nil {
		return
	}
	hostcall.Warm()
	reg := applets.Default()
	// Each run registers its own `node`; having the name in the map
	// already makes that a replace, not a growth of the map.
	reg.Register("node", func(p *applets.Proc, args []string) int { return 127 })
	baseRegistry = reg
	primeAllocator()
}

// primeSink keeps primeAllocator's objects reachable until the snapshot.
var primeSink [][]byte
var primePtrSink [][]*byte

// primeAllocator allocates one object of each small size class, with and
// without pointers, so that the snapshot's allocator caches a span with
// free room for each: a run's first allocation of a size then takes that
// room instead of carving a new span out of the heap.
func primeAllocator() {
	for size := 8; size <= 32<<10; size += size / 8 {
		size = (size + 7) &^ 7
		primeSink = append(primeSink, make([]byte, size))
		primePtrSink = append(primePtrSink, make([]*byte, size/8))
	}
}

// baseRegistry is the applet registry built by amla_init; each run adds
// its own `node` to it (a reactor run starts from a fresh copy of the
// snapshot, so nothing a run adds reaches the next). A command build
// leaves it nil and builds its registry in newGuest.
var baseRegistry *applets.Registry

// amlaRun is one run of the reactor build. It returns the exit status
// rather than exiting: ending a reactor through proc_exit costs a trap.
//
//go:wasmexport amla_run
func amlaRun() int32 {
	code := run()
	hostcall.SetExitStatus(code)
	return 0
}

// run runs the input's script and returns its exit status.
func run() int {
	in, err := hostcall.ReadInput()
	if err != nil {
		fmt.Fprintln(hostcall.Writer{FD: wire.Stderr}, "amla guest:", err)
		return 70
	}
	if in.MemoryLimit > 0 {
		applyGCPolicy(in.MemoryLimit)
	}
	g := newGuest(in)
	if in.Language != wire.LangShell {
		// JavaScript runs on its own guest (guests/js/); the host never
		// sends it here.
		fmt.Fprintf(g.stderr, "amla shell guest: cannot run language %q\n", in.Language)
		return 2
	}
	if in.KeepState {
		return g.runSession(in.Code, strings.NewReader(in.Stdin))
	}
	return g.runShell(in.Code, strings.NewReader(in.Stdin), g.stdout, g.stderr, "/workspace")
}

// session is the shell of a sandbox that keeps state (wire.Input
// KeepState, docs/sessions.md): made by the instance's first such run and
// used by every later one, so a script's variables, functions, aliases
// and working directory are there for the next. A reactor instance not
// kept is reset to the snapshot, where this is nil.
var session *shell.Session

// runSession runs script in the instance's session shell.
func (g *guest) runSession(script string, stdin io.Reader) int {
	opts := g.shellOptions(stdin, g.stdout, g.stderr, "/workspace")
	if session == nil {
		session = shell.NewSession(opts)
	}
	return session.Run(script, opts)
}

// guest holds what one run of the shell needs.
type guest struct {
	in       wire.Input
	stdout   io.Writer
	stderr   io.Writer
	tools    *hostcall.Tools
	registry *applets.Registry
}

func newGuest(in wire.Input) *guest {
	g := &guest{
		in:     in,
		stdout: hostcall.Writer{FD: wire.Stdout},
		stderr: hostcall.Writer{FD: wire.Stderr},
		tools:  hostcall.NewTools(in.Tools),
	}
	g.registry = baseRegistry
	if g.registry == nil {
		g.registry = applets.Default()
	}
	g.registry.Register("node", g.nodeApplet)
	return g
}

func (g *guest) runShell(script string, stdin io.Reader, stdout, stderr io.Writer, dir string) int {
	return shell.Run(script, g.shellOptions(stdin, stdout, stderr, dir))
}

func (g *guest) shellOptions(stdin io.Reader, stdout, stderr io.Writer, dir string) shell.Options {
	return shell.Options{
		Stdin:    stdin,
		Stdout:   stdout,
		Stderr:   stderr,
		Env:      shellEnv(g.in.Env, dir),
		Dir:      dir,
		Tools:    g.tools,
		HTTP:     g.tools,
		Registry: g.registry,
		Ctx:      context.Background(),
	}
}

// shellEnv is a run's exported variables at its start: the input's Env
// (the placeholders of the network policy's exposed secrets, so that
// `curl -H "Authorization: Bearer $GITHUB_TOKEN"` sends the placeholder
// the host replaces), then HOME, PWD and PATH, which the shell's own
// workings depend on and an Env entry does not replace.
func shellEnv(extra map[string]string, dir string) map[string]string {
	env := make(map[string]string, len(extra)+3)
	for k, v := range extra {
		env[k] = v
	}
	env["HOME"], env["PWD"], env["PATH"] = "/workspace", dir, "/bin"
	return env
}

// nodeApplet runs JavaScript from the shell: `node -e CODE`, `node -`
// (script on stdin) or `node FILE`. A FILE named *.ts, *.mts or *.cts, or
// one whose #! line names ts-node, is TypeScript: the host strips its
// types before it runs.
func (g *guest) nodeApplet(p *applets.Proc, args []string) int {
	usage := func() int {
		fmt.Fprintln(p.Stderr, "usage: node -e CODE | node - | node FILE")
		return 2
	}
	if len(args) < 2 {
		return usage()
	}
	var code string
	language := wire.LangJavaScript
	switch args[1] {
	case "-e", "--eval":
		if len(args) < 3 {
			return usage()
		}
		code = args[2]
	case "-":
		b, err := io.ReadAll(p.Stdin)
		if err != nil {
			fmt.Fprintln(p.Stderr, "node: reading stdin:", err)
			return 1
		}
		code = string(b)
	default:
		if strings.HasPrefix(args[1], "-") {
			fmt.Fprintf(p.Stderr, "node: unsupported option %s\n", args[1])
			return usage()
		}
		b, err := os.ReadFile(p.Path(args[1]))
		if err != nil {
			fmt.Fprintf(p.Stderr, "node: cannot read %s: %v\n", args[1], err)
			return 1
		}
		code = string(b)
		if isTypeScript(args[1], code) {
			language = wire.LangTypeScript
		}
	}
	// JavaScript runs as a child process the host starts, with this
	// shell's exported variables as its environment.
	res := hostcall.Spawn(wire.SpawnRequest{Language: language, Code: code, Env: p.Env})
	io.WriteString(p.Stdout, res.Stdout)
	io.WriteString(p.Stderr, res.Stderr)
	if res.Error != "" && res.ExitCode != 0 {
		fmt.Fprintln(p.Stderr, "node:", res.Error)
	}
	return res.ExitCode
}

// isTypeScript tells a TypeScript file by its name or its #! line.
func isTypeScript(name, code string) bool {
	for _, ext := range []string{".ts", ".mts", ".cts"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	first, _, _ := strings.Cut(code, "\n")
	return strings.HasPrefix(first, "#!") && strings.Contains(first, "ts-node")
}

// applyGCPolicy sets the Go collector for a run whose guest may hold
// limit bytes of linear memory: off (GOGC=-1) until the heap nears a soft
// limit of three quarters of limit, where it collects.
//
// Off, because a run is short and its instance is reset or replaced
// afterwards: collecting as the heap grows (and the write barriers that
// come with it) cost the 10 MB text pipeline and the 5 MB jq run a third
// to half of their time, and GOGC=100..400 still cost sort 10-25%
// (docs/performance.md). Three quarters, because a soft limit is where
// the collector runs again and again once the live data nears it: at half
// the limit, a sort of 3M lines takes three times as long
// (docs/performance.md, "Big inputs"). Wasm memory never shrinks, so the quarter above the
// soft limit is what a large block (a slice doubling, sort's arrays) has
// when the heap is full of garbage; the applets that hold their whole
// input keep it lean and collect after themselves (applets.collectAfter)
// so that a loop of big sorts does not pile up garbage. A guest that runs
// out all the same ends with MemoryLimitError (gocore/host, classify).
func applyGCPolicy(limit int64) {
	debug.SetMemoryLimit(limit * 3 / 4)
	debug.SetGCPercent(-1)
}
