package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"amlasandbox/gocore/netpolicy"
	"amlasandbox/gocore/wire"
	"amlasandbox/gocore/workerpool"
)

// Defaults for Limits fields left zero.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMemoryLimit   = 256 << 20
	DefaultMaxOutput     = 32 << 20
	DefaultMaxToolResult = 64 << 20
	DefaultMaxToolCalls  = 10000
	DefaultDiskQuota     = 1 << 30
)

// Limits bound one run. Zero fields take the defaults above.
type Limits struct {
	Timeout       time.Duration // wall time, not counting time blocked on Python
	MemoryLimit   int64         // bytes of guest linear memory
	MaxOutput     int64         // bytes per stream (stdout, stderr)
	MaxToolResult int64         // bytes of one serialized tool result
	MaxCallStack  int           // JavaScript call depth; 0 = guest default
	MaxToolCalls  int           // tool calls one run may make (max_steps)
	DiskQuota     int64         // bytes the sandbox's files may take on the host
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MemoryLimit <= 0 {
		l.MemoryLimit = DefaultMemoryLimit
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.MaxToolResult <= 0 {
		l.MaxToolResult = DefaultMaxToolResult
	}
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = DefaultMaxToolCalls
	}
	if l.DiskQuota <= 0 {
		l.DiskQuota = DefaultDiskQuota
	}
	return l
}

// Config configures a Sandbox.
type Config struct {
	Tools      []wire.ToolInfo
	Authorizer Authorizer // nil = AllowAll
	Limits     Limits
	// Guests maps a language to the module that runs it; Sources maps a
	// language to a module loaded (compiled, or read from its cache) when
	// a run first needs it, so a sandbox that only runs JavaScript never
	// compiles the shell guest. A language in neither runs on the
	// Sandbox's default guest.
	Guests  map[string]*GuestModule
	Sources map[string]GuestSource
	// Mounts are host directories every guest process of the sandbox sees
	// read-only at a path of its own, besides its three directories (the
	// Python packages of Sandbox(python_packages=...)). The host never
	// writes into them.
	Mounts []Mount
	// DurableKey authenticates the sandbox's snapshots, journals and
	// approval tokens (HMAC-SHA-256; durable_key.go). Empty: a random key
	// of this process, so its artifacts can be read back only here.
	DurableKey []byte
	// Network is the policy under which the sandbox's scripts may make
	// HTTP requests (network.go); nil: none, every request is refused.
	Network *netpolicy.Policy
	// KeepState keeps each language's instance between the runs of the
	// sandbox, so scripts' globals, imports and definitions persist
	// (keep.go, docs/sessions.md).
	KeepState bool
}

// Mount shows the host directory Host to the guests, read-only, at Guest
// (an absolute path outside /workspace and /tmp).
type Mount struct {
	Host, Guest string
}

// GuestSource names a guest module file and its compiled-artifact cache.
type GuestSource struct {
	WasmPath, CachePath string
}

// Sandbox owns a private directory (guest `/`, `/workspace`, `/tmp`) that
// persists across its runs and is removed by Close, its Authorizer (and with
// it the call budgets) and its limits. It runs one script at a time.
type Sandbox struct {
	guest *GuestModule
	cfg   Config
	base  string // host-only directory holding root/ and run scratch files
	disk  *diskQuota
	// methods are the methods a script may call; guestTools the tool list
	// a run's Input carries (toolnames.go).
	methods    map[string]bool
	guestTools []wire.ToolInfo
	// net is the sandbox's network (network.go); nil without a policy.
	net *network

	mu     sync.Mutex
	active *Run
	// closed is set under mu, and read without it where mu may be held by
	// a caller waiting for the reader (spare.go).
	closed atomic.Bool

	// spare is the instance for the next run of the same language, made
	// or reset after a run ended (spare.go). spareMu guards it and is held
	// from just before a run publishes its result until the spare is
	// ready, so the next run waits for it.
	spareMu sync.Mutex
	spare   *instance
	// spareSlot is s's place in the process's line of spares
	// (gocore/workerpool's bound on idle spares).
	spareSlot workerpool.SpareSlot
	// kept holds, with KeepState, the instance each language's last run
	// left for the next (keep.go); keptGen counts ResetState calls, so a
	// run that was going on during one keeps nothing. Both guarded by
	// spareMu.
	kept    map[string]*instance
	keptGen uint64

	// key is the durable key in use (durable_key.go).
	key atomic.Pointer[[]byte]
}

// NewSandbox creates a sandbox with a fresh private directory.
func NewSandbox(guest *GuestModule, cfg Config) (*Sandbox, error) {
	if guest == nil && len(cfg.Sources) == 0 && len(cfg.Guests) == 0 {
		return nil, errors.New("new sandbox: no guest module")
	}
	if cfg.Authorizer == nil {
		cfg.Authorizer = AllowAll{}
	}
	cfg.Limits = cfg.Limits.withDefaults()
	base, err := os.MkdirTemp("", "amla-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("new sandbox: creating its directory: %w", err)
	}
	for _, d := range []string{"root/workspace", "root/tmp"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o700); err != nil {
			os.RemoveAll(base)
			return nil, fmt.Errorf("new sandbox: creating %s: %w", d, err)
		}
	}
	guestTools, err := guestToolList(filepath.Join(base, "tools"), cfg.Tools)
	if err != nil {
		os.RemoveAll(base)
		return nil, fmt.Errorf("new sandbox: %w", err)
	}
	if len(guestTools) > 0 {
		// The first mount, so its descriptor is ToolInfoFD whatever else
		// is mounted.
		cfg.Mounts = append([]Mount{{Host: filepath.Join(base, "tools"), Guest: ToolInfoMount}}, cfg.Mounts...)
	}
	net, err := newNetwork(cfg.Network)
	if err != nil {
		os.RemoveAll(base)
		return nil, fmt.Errorf("new sandbox: %w", err)
	}
	sb := &Sandbox{guest: guest, cfg: cfg, base: base, methods: toolMethods(cfg.Tools), guestTools: guestTools, net: net}
	sb.disk = &diskQuota{root: sb.Root(), limit: cfg.Limits.DiskQuota}
	sb.SetDurableKey(cfg.DurableKey)
	return sb, nil
}

// Root is the host directory the guest sees as `/`.
func (s *Sandbox) Root() string { return filepath.Join(s.base, "root") }

// Limits returns the sandbox's limits (defaults applied).
func (s *Sandbox) Limits() Limits { return s.cfg.Limits }

// Authorizer returns the sandbox's authorizer.
func (s *Sandbox) Authorizer() Authorizer { return s.cfg.Authorizer }

// guestFor returns the module that runs language.
func (s *Sandbox) guestFor(language string) (*GuestModule, error) {
	if err := checkLanguage(language); err != nil {
		return nil, err
	}
	if g, ok := s.cfg.Guests[language]; ok && g != nil {
		return g, nil
	}
	if src, ok := s.cfg.Sources[language]; ok {
		return LoadGuest(src.WasmPath, src.CachePath)
	}
	if s.guest == nil {
		return nil, fmt.Errorf("no guest module runs %s", language)
	}
	return s.guest, nil
}

// checkLanguage refuses a language no guest runs.
func checkLanguage(language string) error {
	switch language {
	case wire.LangJavaScript, wire.LangShell, wire.LangPython, wire.LangTypeScript:
		return nil
	}
	return fmt.Errorf("unknown language %q (want %q, %q, %q or %q)", language, wire.LangJavaScript, wire.LangTypeScript, wire.LangShell, wire.LangPython)
}

// ErrClosed is returned by a closed Sandbox.
var ErrClosed = errors.New("Sandbox not initialized")

// Start begins running code in language on a guest instance in the
// snapshot's state (the sandbox's spare, reset or new: spare.go). With
// hasStdin, stdin is the script's standard input (for JavaScript: the
// script itself, per the documented `stdin=` form). stream asks for output
// events as the run produces them.
func (s *Sandbox) Start(language, code string, stdin string, hasStdin, stream bool) (*Run, error) {
	return s.start(wire.Input{Language: language, Code: code, Stdin: stdin, HasStdin: hasStdin,
		Tools: s.guestTools, MaxCallStack: s.cfg.Limits.MaxCallStack, KeepState: s.cfg.KeepState}, stream, nil)
}

// start begins a run of in; begin, when given, prepares the run with mu
// held before its guest starts (a durable run: journal_run.go).
func (s *Sandbox) start(in wire.Input, stream bool, begin func(*Run) error) (*Run, error) {
	language := in.Language
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if prev := s.active; prev != nil && !prev.Finished() {
		if !prev.stopped() {
			return nil, errors.New("start: this sandbox is already running a script; runs are one at a time")
		}
		// A cancelled run ends within a few epoch ticks; wait for it so
		// the next run starts on a quiet directory.
		prev.WaitDone()
	}
	if err := checkLanguage(language); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	r := newRun(s, in, stream)
	// Before the journal (if any) takes the run's input: a journal says
	// whether it was recorded in a kept session.
	r.input.KeepState = s.cfg.KeepState
	if begin != nil {
		if err := begin(r); err != nil {
			return nil, err
		}
	}
	s.forgetDigest()
	s.disk.forget()
	if msg := s.disk.takeFound(); msg != "" {
		r.stderr.Write([]byte(msg + "\n"))
	}
	prev := s.active
	s.active = r
	// The deadline runs from now, also while the run waits for a worker.
	r.begun = time.Now()
	r.ctl.setIn(s.cfg.Limits.Timeout)
	// The run's goroutine starts on a thread sized for a guest's stack
	// (gocore/workerpool); runProc counts on it for the top-level process.
	queued, err := workerpool.Go(r.execute)
	if err != nil {
		s.active = prev
		return nil, fmt.Errorf("start: %w", err)
	}
	if queued {
		r.mu.Lock()
		if !r.launched.Load() {
			r.waitTimer = time.AfterFunc(r.ctl.remaining(), r.endWaiting)
		}
		r.mu.Unlock()
	}
	return r, nil
}

// Close cancels a run in progress, waits for it, and removes the sandbox's
// directory. It is safe to call twice.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil
	}
	s.closed.Store(true)
	r := s.active
	s.mu.Unlock()
	if r != nil {
		r.Cancel()
		r.WaitDone()
	}
	s.dropSpare()
	s.forgetDigest()
	s.net.close()
	// RemoveAll removes symlinks themselves and never follows them.
	return os.RemoveAll(s.base)
}
