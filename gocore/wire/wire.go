package wire

import "encoding/json"

// Module is the import module name of every host function.
const Module = "amla"

// Host function names. Signatures (wasm32, all integers i32 unless noted):
//
//	input_len() -> len            byte length of the run's Input JSON
//	input_read(ptr)               copies the Input JSON to ptr
//	output(fd, ptr, len)          writes stdout (fd 1) or stderr (fd 2)
//	tool_submit(ptr, len) -> i64  queues a ToolRequest JSON, returns its id (> 0)
//	tool_wait(timeout_ms i64) -> len
//	                              blocks until an answer to one of this
//	                              process's requests is ready and returns its
//	                              length; returns 0 when timeout_ms (>= 0)
//	                              passed first, and -1 at once when the
//	                              process has no request pending and
//	                              timeout_ms < 0 (it would wait forever)
//	tool_take(ptr)                copies the answer tool_wait announced, framed
//	                              as AnswerHeader JSON, "\n", then the raw
//	                              result JSON (so big results are not re-scanned)
//	exit_status(code)             records the script's exit status; the guest
//	                              then exits with WASI status 0 (WASI allows
//	                              only 0..125, shells use up to 255)
//
// A guest is a WASI command (export _start) or a reactor: exports
// amla_init() (one-time set-up, which the host may run once and snapshot)
// and amla_run() -> i32 (one run: reads the input, returns the exit status
// unless exit_status was called), besides _initialize if its toolchain
// needs one.
//
//	sleep(ms i64)                 sleeps in the host, where the run's
//	                              deadline and cancellation apply (a sleep
//	                              past the deadline ends the run)
//	spawn(ptr, len) -> len        runs a SpawnRequest JSON as a child process
//	                              (the other guest, on the same directory,
//	                              inside this run's budgets) and blocks until
//	                              it ends; returns the length of its
//	                              SpawnResult JSON (or frame, SpawnFrame)
//	spawn_take(ptr)               copies the SpawnResult spawn announced
//	disk_reserve(bytes i64) -> i32
//	                              asks for room for bytes more of files under
//	                              the sandbox's disk quota before writing
//	                              them (creating a file or directory costs
//	                              DiskEntryCost); 0 = granted, 1 = refused
//	                              (the guest fails the write with ENOSPC)
//	return_value(ptr, len)        records the script's value (a JavaScript
//	                              script's returned value, a Python script's
//	                              final expression) as JSON text; the last
//	                              call of the run's own process counts, and
//	                              text that is not valid UTF-8 JSON, or is
//	                              over the output cap, is dropped
const (
	FnInputLen    = "input_len"
	FnInputRead   = "input_read"
	FnOutput      = "output"
	FnToolSubmit  = "tool_submit"
	FnToolWait    = "tool_wait"
	FnToolTake    = "tool_take"
	FnExitStatus  = "exit_status"
	FnSleep       = "sleep"
	FnSpawn       = "spawn"
	FnSpawnTake   = "spawn_take"
	FnDiskReserve = "disk_reserve"
	FnReturnValue = "return_value"
)

// Exports of a reactor guest.
const (
	ExportInitialize = "_initialize"
	ExportInit       = "amla_init"
	ExportRun        = "amla_run"
	ExportStart      = "_start"
)

// DiskEntryCost is what the disk quota charges for each file or directory
// besides its bytes (about one filesystem block).
const DiskEntryCost = 4096

// File descriptors understood by FnOutput.
const (
	Stdout = 1
	Stderr = 2
)

// Languages a run can be in.
const (
	LangJavaScript = "javascript"
	LangShell      = "shell"
	LangPython     = "python"
	// LangTypeScript runs on the JavaScript guest once the host has
	// stripped its types (gocore/typescript).
	LangTypeScript = "typescript"
)

// Input is everything a run needs to know, handed to the guest at start.
type Input struct {
	Language string `json:"language"`
	// Code is the user script. When HasStdin is true and the language is
	// JavaScript, Code is ignored and Stdin is the script (docs/javascript.md, "The run").
	Code     string `json:"code"`
	Stdin    string `json:"stdin,omitempty"`
	HasStdin bool   `json:"has_stdin,omitempty"`
	// Tools are the tools registered on the sandbox, in order.
	Tools []ToolInfo `json:"tools"`
	// ToolIndex, when set, is the guest path of a file holding Tools (as
	// JSON) in place of the Tools field: a guest that reads it only when a
	// script first uses a tool pays nothing for tools a run never uses.
	ToolIndex string `json:"tool_index,omitempty"`
	// MaxCallStack bounds JavaScript call depth (0 = guest default).
	MaxCallStack int `json:"max_call_stack,omitempty"`
	// MemoryLimit is the process's memory limit in bytes; a guest with a
	// garbage collector keeps its heap goal below it.
	MemoryLimit int64 `json:"memory_limit,omitempty"`
	// Argv is a Python process's command line after "python" (sys.argv):
	// ["-c", args...] for code given as text (the default), ["-", ...] for
	// a script read from stdin, [path, ...] for a script file.
	Argv []string `json:"argv,omitempty"`
	// Dir is a child process's working directory ("" = /workspace).
	Dir string `json:"dir,omitempty"`
	// Env holds variables the guest adds to its scripts' environment
	// (process.env, os.environ, the shell's exported variables): the
	// placeholders of the network policy's exposed secrets.
	Env map[string]string `json:"env,omitempty"`
	// KeepState tells the guest that its instance is kept after the run
	// for the sandbox's next run of the same language (Sandbox(keep_state=
	// True), docs/sessions.md): the script's globals, imports and
	// definitions are to outlive it. Never set for a child process.
	KeepState bool `json:"keep_state,omitempty"`
	// Mounts are the guest paths of the directories the sandbox mounts
	// (Sandbox(python_packages=...)), set by the host for Python
	// processes: the guest learns of them without asking the file system,
	// each question of which costs a hand-off to another thread.
	Mounts []string `json:"mounts,omitempty"`
}

// ToolInfo describes one registered tool (ToolDefinition.to_dict()).
// Method is the method a call is checked and sent as; empty means
// "mcp:<Name>" (Python tools). Tools of mounted MCP servers set it to
// "mcp:<server>/<tool>" so method patterns can address a server.
//
// In a run's Input a tool may come as its name and method only, with Info
// the guest path of a file holding its whole ToolInfo (JSON): a guest reads
// it when a script asks for the tool's description or parameters, so a run
// does not pay for the descriptions of tools it never looks at.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the JSON Schema of the tool's result, when known
	// (an MCP tool's outputSchema): its declarations type the result.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Method       string          `json:"method,omitempty"`
	Info         string          `json:"info,omitempty"`
	// JS, NS and Py are the names a script calls the tool by, decided by
	// the host (gocore/toolcat) and set in a guest's input and tool index
	// only: JS the JavaScript global, NS the JavaScript namespace it is a
	// member of ("" for none), Py the dotted Python path ("" when it has
	// none). An embedder's values are ignored.
	JS string `json:"js,omitempty"`
	NS string `json:"ns,omitempty"`
	Py string `json:"py,omitempty"`
}

// ToolInfoMount is the read-only directory of the tool files that
// ToolInfo.Info names; ToolInfoFD is its WASI descriptor (the first after
// /, /workspace and /tmp), for guests whose start-up table of directories
// a snapshot froze before it was mounted.
const (
	ToolInfoMount = "/usr/lib/amla/tools"
	ToolInfoFD    = 6
)

// MethodOf is the method a call of t is submitted as.
func (t ToolInfo) MethodOf() string {
	if t.Method != "" {
		return t.Method
	}
	return "mcp:" + t.Name
}

// ToolRequest is what the guest submits for one tool call. Method is
// "mcp:<tool name>"; Params is the JSON the script passed (any JSON value).
type ToolRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// AnswerHeader is the framed form of a ToolAnswer without its Result.
type AnswerHeader struct {
	ID    int64  `json:"id"`
	OK    bool   `json:"ok"`
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}

// Error codes of a failed ToolAnswer, as the reference prefixes them
// ("tool call 'mcp:x' failed: <code>: <message>").
const (
	CodePermissionDenied = "permission_denied" // the capability engine refused the call
	CodeInternal         = "internal"          // the handler failed, or its result could not cross
	CodeInvalidRequest   = "invalid_request"   // the params could not be handed to Python
	CodeCancelled        = "cancelled"         // the run was cancelled before an answer came
)

// ToolAnswer is the host's answer to one request: either OK with Result (a
// JSON value) or not OK with Error (the message the script sees).
type ToolAnswer struct {
	ID     int64           `json:"id"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"`
	Code   string          `json:"code,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// SpawnRequest asks the host to run another guest as a child process:
// JavaScript's and Python's shell() start the shell, the shell's `node`
// and `python` start JavaScript and Python. Language is LangJavaScript,
// LangShell or LangPython; Code is the script; Stdin is its standard input
// (for JavaScript with HasStdin, the script); Argv is a Python process's
// command line (Input.Argv).
type SpawnRequest struct {
	Language string   `json:"language"`
	Code     string   `json:"code"`
	Stdin    string   `json:"stdin,omitempty"`
	HasStdin bool     `json:"has_stdin,omitempty"`
	Dir      string   `json:"dir,omitempty"` // working directory, default /workspace
	Argv     []string `json:"argv,omitempty"`
	// Env is the child's environment beyond the sandbox's own variables
	// (Input.Env), which it overrides: the calling shell's exported
	// variables, so `X=1 python3 ...` and `export X` reach the child.
	Env map[string]string `json:"env,omitempty"`
	// OutputApart asks for the result as a frame (SpawnFrame) that carries
	// the child's output as bytes after the JSON, not inside it (where a
	// NUL or another control byte would take six bytes).
	OutputApart bool `json:"output_apart,omitempty"`
}

// SpawnFrame is the spawn result of a request with OutputApart: the
// stdout and stderr lengths as two little-endian uint32s, the SpawnResult
// JSON with empty stdout and stderr, then stdout's bytes and stderr's.
const SpawnFrameHeader = 8

// SpawnResult is how a child process ended. Error is set when it could not
// run (nesting limit, unknown language) or was stopped by a limit; then
// ExitCode is non-zero too.
type SpawnResult struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
}
