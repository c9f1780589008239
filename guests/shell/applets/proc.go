package applets

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"sync"

	"amlasandbox/guests/shell/hostapi"
)

// Proc is what one running applet sees: its streams, the shell's exported
// variables, its working directory and the sandbox's tools.
type Proc struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Env holds the exported variables of the calling shell. Applets read
	// it; changing it affects nothing outside the applet.
	Env map[string]string
	// Dir is the absolute working directory every relative path is
	// resolved against.
	Dir string
	// Tools calls the sandbox's tools; nil when there are none.
	Tools hostapi.Tools
	// HTTP makes HTTP requests through the host (curl, wget); nil when
	// there is no host to ask.
	HTTP hostapi.HTTP
	// Ctx is cancelled when the run must stop; long loops check it.
	Ctx context.Context
	// Registry is where Exec looks commands up; nil means Default().
	Registry *Registry
	// Shell runs a script as a child shell would (`sh -c`, `sh FILE`, `sh`
	// reading stdin): exported variables and Dir are inherited. The shell
	// sets it; when nil, sh reports that no shell is available.
	Shell func(p *Proc, run ShellRun) int
	// FD gives the shell's open descriptor n for the path /dev/fd/n
	// (exec 3<file, process substitution <(...)): a reader, a writer, or
	// both. Nil outside a shell.
	FD func(n int) (io.Reader, io.Writer, bool)
}

// ShellRun is one script for Proc.Shell.
type ShellRun struct {
	Script string
	// Args are $0 $1 ...; Args[0] names the script in error messages.
	Args []string
	// Options are `set` arguments applied first, e.g. "-e", "-o pipefail".
	Options []string
}

// Applet is one command. args[0] is the name it was called by. It returns
// the exit status: 0 for success, 1 for failure, 2 for bad usage.
type Applet func(p *Proc, args []string) int

// Registry maps command names to applets. It is safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Applet
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{m: map[string]Applet{}}
}

// Register adds or replaces the applet called name.
func (r *Registry) Register(name string, a Applet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[name] = a
}

// Lookup returns the applet called name.
func (r *Registry) Lookup(name string) (Applet, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.m[name]
	return a, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := slices.Collect(maps.Keys(r.m))
	sort.Strings(names)
	return names
}

// Default returns a new registry holding every applet of this package. Each
// call returns a fresh registry, so registering into it (the guest adds
// `node`) changes no other.
func Default() *Registry {
	r := NewRegistry()
	for name, a := range map[string]Applet{
		"[":         testApplet,
		"base64":    base64Applet,
		"basename":  basenameApplet,
		"cat":       catApplet,
		"cp":        cpApplet,
		"curl":      curlApplet,
		"cut":       cutApplet,
		"date":      dateApplet,
		"dirname":   dirnameApplet,
		"echo":      echoApplet,
		"env":       envApplet,
		"false":     falseApplet,
		"find":      findApplet,
		"grep":      grepApplet,
		"head":      headApplet,
		"jq":        jqApplet,
		"ls":        lsApplet,
		"ln":        lnApplet,
		"mkdir":     mkdirApplet,
		"mv":        mvApplet,
		"printf":    printfApplet,
		"rm":        rmApplet,
		"sed":       sedApplet,
		"seq":       seqApplet,
		"sh":        shApplet,
		"python":    pythonApplet,
		"python3":   pythonApplet,
		"bash":      shApplet,
		"md5sum":    hashsumApplet,
		"sha1sum":   hashsumApplet,
		"sha224sum": hashsumApplet,
		"sha256sum": hashsumApplet,
		"sha384sum": hashsumApplet,
		"sha512sum": hashsumApplet,
		"sleep":     sleepApplet,
		"sort":      sortApplet,
		"tail":      tailApplet,
		"tee":       teeApplet,
		"test":      testApplet,
		"tool":      toolApplet,
		"touch":     touchApplet,
		"tr":        trApplet,
		"true":      trueApplet,
		"uniq":      uniqApplet,
		"wc":        wcApplet,
		"wget":      wgetApplet,
		"xargs":     xargsApplet,
		"yes":       yesApplet,
		"awk":       awkApplet,
		"tac":       tacApplet,
		"rev":       revApplet,
		"nl":        nlApplet,
		"paste":     pasteApplet,
		"mktemp":    mktempApplet,
		"realpath":  realpathApplet,
		"readlink":  realpathApplet,
		"timeout":   timeoutApplet,
		"expr":      exprApplet,
		"uname":     unameApplet,
		"whoami":    whoamiApplet,
		"hostname":  hostnameApplet,
		"diff":      diffApplet,
		"bc":        bcApplet,
		"join":      joinApplet,
		"comm":      commApplet,
		"shuf":      shufApplet,
		"column":    columnApplet,
		"numfmt":    numfmtApplet,
		"fold":      foldApplet,
		"expand":    expandApplet,
		"unexpand":  expandApplet,
		"split":     splitApplet,
		"od":        odApplet,
		"stat":      statApplet,
	} {
		r.Register(name, a)
	}
	return r
}

// Exec runs another command with the same environment, directory and hooks
// as p, reading stdin and writing p's output streams. An unknown command
// gives the shell's "command not found" and status 127.
func (p *Proc) Exec(stdin io.Reader, args []string) int {
	reg := p.Registry
	if reg == nil {
		reg = Default()
	}
	a, ok := reg.Lookup(args[0])
	if !ok {
		fmt.Fprintf(p.Stderr, "%s: command not found\n", args[0])
		return 127
	}
	child := *p
	child.Stdin = stdin
	return a(&child, args)
}

// ctx returns p.Ctx or a background context.
func (p *Proc) ctx() context.Context {
	if p.Ctx == nil {
		return context.Background()
	}
	return p.Ctx
}

// cancelled reports whether the run has been asked to stop.
func (p *Proc) cancelled() bool {
	return p.ctx().Err() != nil
}

// errorf writes "name: message" to stderr.
func (p *Proc) errorf(name, format string, args ...any) {
	fmt.Fprintf(p.Stderr, "%s: %s\n", name, fmt.Sprintf(format, args...))
}

// gnuUsage writes a usage error and returns status 1, as the coreutils
// (join, comm, fold, od, ...) do.
func (p *Proc) gnuUsage(name, problem, usage string) int {
	p.usage(name, problem, usage)
	return 1
}

// usage writes a usage error and returns status 2.
func (p *Proc) usage(name, problem, usage string) int {
	if problem != "" {
		fmt.Fprintf(p.Stderr, "%s: %s\n", name, problem)
	}
	fmt.Fprintf(p.Stderr, "usage: %s\n", usage)
	return 2
}
