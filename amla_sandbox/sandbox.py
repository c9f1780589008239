"""Sandbox: run agent-written JavaScript and shell scripts that may call only
the Python tools they were given."""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .audit import AuditCollector, AuditConfig, AuditEntry
from .capabilities import MethodCapability, ToolCallCap
from .capabilities import CallCounts
from .errors import ApprovalRequired, ReplayDivergenceError
from .errors import RuntimeError as SandboxRuntimeError
from .runtime.config import (
    DEFAULT_DISK_QUOTA,
    DEFAULT_MAX_OUTPUT_SIZE,
    DEFAULT_MAX_TOOL_RESULT_SIZE,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    RuntimeConfig,
    ToolHandler,
)
from .runtime.driver import AnswerBatch, Runtime
from .runtime.pipeline import Answer, ToolPipeline, ToolRequest
from .runtime.result import RunResult
from . import durable as _durable
from .durable import ApprovalHandler
from .network import NetworkArg, policy_json
from ._language import normalize_language
from .tools import ToolDefinition

if TYPE_CHECKING:
    from .check import CheckResult
    from .files import SandboxFiles

__all__ = ["Sandbox", "ShellResult"]

@dataclass(frozen=True)
class ShellResult:
    """A shell command's outcome (`Sandbox.run_shell`): its output streams,
    kept apart, and its exit status."""

    stdout: str
    stderr: str
    exit_code: int

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _shell_prelude(command: str, cwd: str | None, env: Mapping[str, str] | None, sb: Sandbox) -> str:
    """`command` made to start in `cwd` with `env` exported: a `cd` and
    `export`s on the command's first line, and the command in a `{ }`
    group, so its own lines keep their numbers in error messages. A `cwd`
    in /workspace or /tmp that is missing or not a directory is an error
    here, naming it (FileNotFoundError, NotADirectoryError). In a sandbox
    that keeps state the whole runs in a subshell, so `cwd` and `env` are
    the command's alone and do not stay in the session (nor does what the
    command itself defines)."""
    if not isinstance(command, str):
        raise TypeError(f"command must be a str, got {type(command).__name__}")
    if cwd is None and not env:
        return command
    head: list[str] = []
    if cwd is not None:
        if not isinstance(cwd, str) or not cwd or "\0" in cwd:
            raise ValueError(f"cwd must be a non-empty str without NUL, got {cwd!r}")
        if not cwd.startswith("/"):
            cwd = "/workspace/" + cwd
        top = cwd.strip("/").split("/", 1)[0]
        if top in ("workspace", "tmp"):
            sb.files.list(cwd)  # raises FileNotFoundError / NotADirectoryError / PermissionError naming it
        head.append(f"cd -- {_sh_quote(cwd)} || exit 1")
    for name, value in (env or {}).items():
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            raise ValueError(f"env: {name!r} is not a valid variable name (letters, digits, _; not first a digit)")
        if not isinstance(value, str) or "\0" in value:
            raise ValueError(f"env: the value of {name} must be a str without NUL, got {value!r}")
        head.append(f"export {name}={_sh_quote(value)}")
    if sb.keep_state:
        return "( " + " && ".join(head) + " && { " + command + "\n} )"
    return " && ".join(head) + " && { " + command + "\n}"


class _hybridmethod:
    """A method that is a class method when called on the class and an
    instance method when called on an instance (Sandbox.replay)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Any, cls: type | None = None) -> Callable[..., Any]:
        target = cls if obj is None else obj

        def bound(*args: Any, **kwargs: Any) -> Any:
            return self.func(target, *args, **kwargs)

        bound.__doc__ = self.func.__doc__
        bound.__name__ = self.func.__name__
        return bound


def _init_args(sb: Sandbox) -> dict[str, Any]:
    """The arguments a Sandbox was made with, as given (before set-up adds
    to them), so a fork or a restore can make another the same way."""
    out: dict[str, Any] = {}
    for f in fields(sb):
        if f.init and not f.name.startswith("_"):
            v = getattr(sb, f.name)
            out[f.name] = list(v) if isinstance(v, list) else v
    return out


def _bytecode_sandbox() -> Sandbox:
    """The sandbox python_packages' bytecode is compiled in (_python_packages)."""
    return Sandbox(timeout=600, memory_limit=512 * 1024 * 1024)


def _network_asks_approval(config: dict[str, Any] | None) -> bool:
    """Whether an allow rule of the policy JSON requires approval."""
    rules = (config or {}).get("allow")
    return isinstance(rules, list) and any(isinstance(r, dict) and r.get("require_approval") is True for r in rules)


@dataclass
class Sandbox:
    """A sandbox with its own filesystem, capabilities, budgets and limits.

    Scripts run in a WebAssembly guest; every tool call they make is checked
    against `capabilities` (in the Go core) before `tool_handler` sees it.
    """

    pca: bytes = b""
    tools: list[ToolDefinition] = field(default_factory=list)
    capabilities: list[ToolCallCap] = field(default_factory=list)
    trusted_authorities: list[str] = field(default_factory=list)
    tool_handler: ToolHandler | None = None
    wasm_path: Path | None = None
    audit_config: AuditConfig | None = None
    timeout: float = DEFAULT_TIMEOUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    max_tool_result_size: int = DEFAULT_MAX_TOOL_RESULT_SIZE
    max_output_size: int = DEFAULT_MAX_OUTPUT_SIZE
    disk_quota: int = DEFAULT_DISK_QUOTA
    # MCP servers whose tools scripts may call (docs/mcp.md): an mcpServers
    # mapping (started here, stopped by close()) or an MCPTools from
    # from_mcp() (left running: its owner closes it).
    mcp_servers: Any = None
    # Durable sessions (docs/durable.md): keep a journal of every run
    # (True: with a snapshot of the files at its start; "digest": only the
    # snapshot's digest), and decide calls that need approval.
    record: bool | str = False
    approval_handler: ApprovalHandler | None = None
    # Pure-Python packages Python scripts may import (docs/python.md): wheel
    # files, package directories, .py modules or directories of them,
    # mounted read-only; a package with compiled extensions is refused.
    python_packages: list[str | Path] | None = None
    # Run Python in the data guest, which has numpy and pandas built in and
    # imported in its snapshot (docs/python.md, "numpy and pandas"); it is
    # built only on request, so it may be missing (FileNotFoundError says
    # how to get it).
    python_data: bool = False
    # The key snapshots, journals and approval tokens are authenticated
    # with (HMAC-SHA-256): bytes or text of at least 16 bytes; None:
    # $AMLA_SANDBOX_DURABLE_KEY, else this machine's key in the cache
    # directory. An artifact made under another key is refused.
    durable_key: bytes | str | None = field(default=None, repr=False)
    # redeem(token_id) -> bool, for resume_approval: True the first time a
    # token is redeemed (None: this machine's ledger in the cache directory).
    redeem: Callable[[str], bool] | None = None
    # HTTP requests scripts may make through the host (docs/network.md): a
    # NetworkPolicy, a dict of its fields, or a list of allow rules. None:
    # no network, whatever the capabilities allow. Kept out of the repr: a
    # dict's secrets would show their values.
    network: NetworkArg = field(default=None, repr=False)
    # Sessions that remember (docs/sessions.md): each language's globals,
    # imports and definitions persist from one run to the next, until
    # reset() or a run that times out, reaches the memory limit, is
    # cancelled or crashes.
    keep_state: bool = False
    _runtime: Runtime | None = field(default=None, repr=False)
    _prelude: str | None = field(default=None, repr=False)
    _audit_collector: AuditCollector | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        _durable.check_record(self.record)
        if not isinstance(self.keep_state, bool):
            raise TypeError(f"keep_state must be True or False, got {self.keep_state!r}")
        if not isinstance(self.python_data, bool):
            raise TypeError(f"python_data must be True or False, got {self.python_data!r}")
        if self.approval_handler is not None and not callable(self.approval_handler):
            raise TypeError(f"approval_handler must be callable, got {type(self.approval_handler).__name__}")
        self._init_args = _init_args(self)
        self._mcp: Any = None
        self._mcp_owned = False
        if self.mcp_servers is not None:
            from .tools.mcp import mount

            mount(self)  # adds the servers' tools and wraps tool_handler
        try:
            self._setup()
        except BaseException:
            self._close_mcp()
            raise

    def _setup(self) -> None:
        # The one path tool requests take through Python (the handler sees
        # the registered name, without "mcp:").
        self._pipeline = ToolPipeline(
            self.tool_handler, strip_prefix=True, no_handler="No handler for tool call: {method}"
        )
        pca, trusted = self.pca, list(self.trusted_authorities)
        if not pca or not trusted:
            from .auth import EphemeralAuthority

            authority = EphemeralAuthority()
            pca = authority.create_pca(capabilities=["tool_call:**"]).to_cbor()
            trusted = [authority.public_key_hex()]
            if not self.capabilities:
                self.capabilities = [ToolCallCap(method_pattern="**")]
        for t in self.tools:
            if not isinstance(t, ToolDefinition):
                raise TypeError(f"tools must be ToolDefinition objects, got {type(t).__name__}")
        for c in self.capabilities:
            if not isinstance(c, (ToolCallCap, MethodCapability)):
                raise TypeError(
                    f"capabilities must be ToolCallCap or MethodCapability objects, got {type(c).__name__}"
                )
        if self.tool_handler is not None and not callable(self.tool_handler):
            raise TypeError(f"tool_handler must be callable, got {type(self.tool_handler).__name__}")
        self._durable_key = _durable.resolve_key(self.durable_key)
        if self.redeem is not None and not callable(self.redeem):
            raise TypeError(f"redeem must be callable, got {type(self.redeem).__name__}")
        self._packages_dir: str | None = None
        self._package_digests: list[dict[str, str]] = []
        if self.python_packages is not None:
            from ._python_packages import prepare

            self._packages_dir, self._package_digests = prepare(self.python_packages, _bytecode_sandbox)
        self._network_config = policy_json(self.network)
        # What durable runs do (record, replay, approval): the run driver's strategy.
        durability = _durable.Durability(
            record=self.record,
            approval_handler=self.approval_handler,
            approvals=any(getattr(c, "requires_approval", False) for c in self.capabilities)
            or _network_asks_approval(self._network_config),
            packages=self._package_digests,
        )
        if self.audit_config is not None:
            self._audit_collector = AuditCollector(self.audit_config)
        try:
            self._runtime = self._new_runtime(pca, trusted, durability)
        except BaseException:
            if self._audit_collector is not None:
                self._audit_collector.close()  # do not leak the open audit file
                self._audit_collector = None
            raise
        if self._audit_collector is not None:
            self._runtime.set_audit_collector(self._audit_collector)

    def _new_runtime(self, pca: bytes, trusted: list[str], durability: _durable.Durability) -> Runtime:
        return Runtime(
            RuntimeConfig(
                wasm_path=self.wasm_path,
                pca_bytes=pca,
                trusted_authorities=trusted,
                capabilities=list(self.capabilities),
                tool_handler=self.tool_handler,
                tools_json=json.dumps([t.to_dict() for t in self.tools]),
                max_tool_result_size=self.max_tool_result_size,
                max_output_size=self.max_output_size,
                disk_quota=self.disk_quota,
                timeout=self.timeout,
                memory_limit=self.memory_limit,
                python_packages_dir=self._packages_dir,
                network=self._network_config,
                keep_state=self.keep_state,
                durable=durability,
                durable_key=self._durable_key,
                # Traces tell MCP servers' calls from Python tools' by method.
                mcp_methods=frozenset(d.method for d in self._mcp.definitions) if self._mcp is not None else frozenset(),
                python_data=self.python_data,
            )
        )

    # -- handlers -------------------------------------------------------------

    @property
    def await_async_tools(self) -> bool:
        """Whether execute()/python()/shell() await an async tool handler's
        result on an event loop of the sandbox's (create_sandbox_tool and
        the MCP server set it; by default a coroutine from a handler in a
        blocking run is the documented error naming execute_async())."""
        return self._pipeline.await_in_sync

    @await_async_tools.setter
    def await_async_tools(self, value: bool) -> None:
        self._pipeline.await_in_sync = bool(value)

    _await_in_sync = await_async_tools

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments this sandbox was made with, as given (tools and
        capabilities as add_tools/remove_tools left them): a new dict, so
        `Sandbox(**sb.arguments)` makes another sandbox like it."""
        return {k: list(v) if isinstance(v, list) else v for k, v in self._init_args.items()}

    # -- running scripts ------------------------------------------------------

    def _rt(self) -> Runtime:
        if self._runtime is None:
            raise builtins.RuntimeError("Sandbox not initialized")
        return self._runtime

    @property
    def runtime(self) -> Runtime:
        """The run driver of this sandbox (amla_sandbox.runtime), for the
        package's modules that work on the sandbox in the core (its files).
        The builtin RuntimeError "Sandbox not initialized" once closed."""
        return self._rt()

    @property
    def mcp_client(self) -> Any:
        """The MCPTools this sandbox's MCP tools are called through; None
        without `mcp_servers`."""
        return self._mcp

    def attach_mcp(self, client: Any, *, owned: bool) -> None:
        """Call this sandbox's MCP tools through `client` (an MCPTools);
        with `owned`, `close()` closes it too. The MCP integration calls
        this as the sandbox is made."""
        self._mcp, self._mcp_owned = client, owned

    def check(self, code: str, language: str = "typescript", *, timeout: float | None = None) -> CheckResult:
        """Type-check `code` ("typescript"/"ts", "javascript"/"js" or
        "python", any spelling run() takes) against this sandbox's tool
        declarations and the guest's globals, without running it. Returns a
        CheckResult: its diagnostics (line, column, severity, message, code)
        and `ok` (no errors; also its truth value). The checker (tsc or
        pyright, pinned) runs on this machine as a subprocess, not in the
        sandbox; CheckerUnavailable says how to install it when it is
        missing: pip install "amla-sandbox[check]" (docs/declarations.md)."""
        from . import _core
        from .check import CHECK_TIMEOUT, check_script

        lang = normalize_language(language)
        if lang not in ("typescript", "javascript", "python"):
            raise ValueError(f"check() type-checks TypeScript, JavaScript and Python, not {lang}")
        decl = _core.render_declarations(json.dumps([t.to_dict() for t in self.tools]), lang, None) if self.tools else ""
        return check_script(code, lang, decl, timeout=CHECK_TIMEOUT if timeout is None else timeout)

    def execute(
        self,
        code: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
        *,
        language: str = "javascript",
    ) -> str:
        """Run JavaScript (or `language`: "typescript", "python", "shell"
        and their aliases); return its stdout. With `stdin`, a JavaScript or
        TypeScript script is stdin; for Python and the shell, stdin is the
        script's standard input."""
        return self.run_script(code, language, stdin=stdin, on_output=on_output).stdout

    async def execute_async(
        self,
        code: str,
        on_output: Callable[[str], None] | None = None,
        stdin: str | bytes | None = None,
        *,
        language: str = "javascript",
    ) -> str:
        """Run JavaScript (or `language`), awaiting async tool handlers; calls
        a script issues together (Promise.all, asyncio.gather) run
        concurrently. `on_output` is called on the event loop's thread."""
        return (await self.run_script_async(code, language, stdin=stdin, on_output=on_output)).stdout

    def python(
        self,
        code: str,
        stdin: str | bytes | None = None,
        *,
        on_output: Callable[[str], None] | None = None,
    ) -> str:
        """Run Python; return its stdout. `stdin` is the script's sys.stdin
        (docs/python.md)."""
        return self.run_script(code, "python", stdin=stdin, on_output=on_output).stdout

    async def python_async(
        self,
        code: str,
        stdin: str | bytes | None = None,
        *,
        on_output: Callable[[str], None] | None = None,
    ) -> str:
        """`python()` awaiting async tool handlers; calls the script makes
        together (asyncio.gather) run concurrently."""
        return (await self.run_script_async(code, "python", stdin=stdin, on_output=on_output)).stdout

    def shell(
        self,
        command: str,
        stdin: str | bytes | None = None,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> str:
        """Run a shell command line; return its stdout (a non-zero exit does
        not raise). `cwd` is the directory it starts in (default
        /workspace), `env` variables it sees exported; `run_shell()` gives
        the exit code and stderr too (docs/files.md)."""
        return self.run_shell(command, stdin=stdin, cwd=cwd, env=env).stdout

    def run_shell(
        self,
        command: str,
        *,
        stdin: str | bytes | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ShellResult:
        """Run a shell command line and return its stdout, stderr and exit
        code (a non-zero exit does not raise; a timeout, the memory limit
        or a cancel do, as for `shell()`)."""
        code = _shell_prelude(command, cwd, env, self)
        result = self.run_script(code, "shell", stdin=stdin)
        return ShellResult(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code)

    # The public run API: what execute()/python()/shell() and their async
    # forms are built on, and what the Ray pool and the MCP server use.

    def run_script(
        self,
        code: str,
        language: str = "javascript",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
        answer_batch: AnswerBatch | None = None,
    ) -> RunResult:
        """Run `code` in `language` (any spelling execute() takes) to its
        end and return its RunResult (stdout, stderr, exit code, tool
        calls, return value). A failure of the run raises as execute()
        does (TimeoutError, MemoryLimitError, ApprovalRequired, ...); a
        script's own error is its exit code and stderr. Safe from any
        thread: runs of one sandbox take turns; a run started from inside a
        run of this sandbox (its tool handler) is a RuntimeError.

        Tool requests are answered by `tool_handler`; with `answer_batch`,
        the requests a script issued together are handed over as one list,
        in order, and it returns their answers (`answer_request` answers
        one as the handler would)."""
        starter = None if answer_batch is not None else self._starter()
        return self._rt().run(
            code,
            language,
            stdin=stdin,
            on_output=on_output,
            answer=self._pipeline.call_sync,
            answer_batch=answer_batch,
            starter=starter,
        )

    async def run_script_async(
        self,
        code: str,
        language: str = "javascript",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
    ) -> RunResult:
        """`run_script()` in an event loop: async tool handlers are awaited,
        calls a script issues together run concurrently, and `on_output` is
        called on the event loop's thread. Cancelling the task stops the run."""
        return await self._rt().run_async(
            code, language, stdin=stdin, on_output=on_output, answer=self._pipeline.call_async
        )

    def answer_request(self, request: ToolRequest) -> Answer:
        """Answer one tool request with `tool_handler`, as a run does: its
        value as JSON text, or its failure as the error the script sees."""
        return self._pipeline.call_sync(request)

    def _starter(self) -> ToolPipeline | None:
        # A handler that starts calls elsewhere (mounted MCP servers) has
        # each call started as the script makes it (docs/mcp.md).
        return self._pipeline if hasattr(self.tool_handler, "start_call") else None

    async def shell_async(
        self,
        command: str,
        stdin: str | bytes | None = None,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> str:
        """`shell()` for async tool handlers: the `tool` applet awaits them."""
        return (await self.run_shell_async(command, stdin=stdin, cwd=cwd, env=env)).stdout

    async def run_shell_async(
        self,
        command: str,
        *,
        stdin: str | bytes | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ShellResult:
        """`run_shell()` for async tool handlers."""
        code = _shell_prelude(command, cwd, env, self)
        result = await self.run_script_async(code, "shell", stdin=stdin)
        return ShellResult(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code)

    # The public step/resume loop -------------------------------------------

    def start(
        self,
        code: str,
        language: str = "javascript",
        *,
        stdin: str | bytes | None = None,
        on_output: Callable[[str], None] | None = None,
    ) -> None:
        """Begin a run; then `while sb.has_work(): req = sb.step(); sb.resume(...)`."""
        self._rt().start(code, language, stdin=stdin, on_output=on_output)

    def has_work(self) -> bool:
        return self._runtime is not None and self._runtime.has_work()

    def step(self) -> ToolRequest | None:
        if self._runtime is None:
            return None
        return self._runtime.step()

    def resume(self, result: Any, *, id: int | None = None) -> None:
        self._rt().resume(result, id=id)

    def resume_error(self, message: str, *, id: int | None = None) -> None:
        self._rt().resume_error(message, id=id)

    def result(self) -> RunResult | None:
        """The finished run of the loop (also `last_result`)."""
        return self._rt().result()

    def reset(self) -> None:
        """Start fresh: discard the interpreter state a `keep_state=True`
        sandbox kept (variables, imports, definitions of every language).
        Files, budgets and tools stay. Does nothing without keep_state."""
        self._rt().reset()

    def cancel(self) -> None:
        """Stop the run in progress, if any; safe from any thread. The run
        ends at once (its caller gets `amla_sandbox.RuntimeError`, or the
        cancellation it asked for); files, budgets and the sandbox stay."""
        if self._runtime is not None:
            self._runtime.cancel()

    # -- durable sessions (docs/durable.md) -----------------------------------

    def snapshot(self, *, compress: bool = False) -> bytes:
        """The sandbox's files (/workspace, /tmp) and the calls its budgets
        have left, as bytes in the documented snapshot format. With
        `compress`, files that shrink are stored DEFLATE-compressed. An
        error while a run is in progress."""
        return self._rt().snapshot(bool(compress))

    def restore(self, data: bytes) -> None:
        """Replace this sandbox's files with a snapshot's and lower its
        budgets to what the snapshot had left (never raised); with
        `keep_state=True`, its interpreters become the snapshot's (fresh
        ones when it holds none; docs/sessions.md). A damaged or
        hostile snapshot, or one made under another durable key, is a
        ValueError; an error while a run is in progress."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"a snapshot is bytes, got {type(data).__name__}")
        self._rt().restore(data)

    @classmethod
    def from_snapshot(cls, data: bytes, **kwargs: Any) -> Sandbox:
        """A new sandbox, made with `kwargs` (the arguments of `Sandbox`),
        holding a snapshot's files; its budgets are lowered to what the
        snapshot had left (never raised). A damaged or hostile snapshot, or
        one made under another durable key, is a ValueError and leaves
        nothing behind."""
        sb = cls(**kwargs)
        try:
            sb.restore(data)
        except BaseException:
            sb.close()
            raise
        return sb

    def fork(self) -> Sandbox:
        """An independent copy: a new sandbox made with this one's arguments,
        a copy of its files and its budgets as they are now. An MCPTools
        the caller passed is shared with the fork, as with this sandbox; MCP
        servers this sandbox started from a mapping are started anew."""
        rt = self._rt()
        new = Sandbox(**self._init_args)
        try:
            new.await_async_tools = self.await_async_tools
            rt.copy_files_to(new._rt())
        except BaseException:
            new.close()
            raise
        return new

    @classmethod
    def _from_journal(cls, journal: bytes, kwargs: dict[str, Any]) -> Sandbox:
        """A sandbox made with kwargs (limits from the journal) in the
        journal's start state. The journal is checked under the key kwargs
        give (or the default one) before anything in it is used."""
        info = _durable.journal_info(journal, _durable.resolve_key(kwargs.get("durable_key")))
        sb = cls(**_durable.limits_from(info, kwargs))
        try:
            sb._rt().restore_journal_start(bytes(journal))
        except BaseException:
            sb.close()
            raise
        return sb

    def _replay_on(self, journal: bytes, then: str, approve: bool | None = None) -> RunResult:
        """Run a journal on this sandbox (which must be in its start state)
        and return the replayed run's result. It raises for how the replay
        went (a divergence; a pause at a call that needs approval), not for
        the recorded run's own error, which the result reproduces."""
        _durable.check_then(then)
        info = _durable.journal_info(journal, self._durable_key)
        _durable.check_packages(info, self._package_digests)
        rt = self._rt()
        before = rt.last_result
        try:
            rt.run(
                info["code"],
                info["language"],
                answer=self._pipeline.call_sync,
                replay=_durable.Replay(bytes(journal), then, approve),
            )
        except (ReplayDivergenceError, ApprovalRequired):
            raise
        except SandboxRuntimeError:
            # The replayed run's own error (its result reproduces it); an error
            # before it ran (a refused start) has no result of its own.
            if rt.last_result is None or rt.last_result is before:
                raise
        result = rt.last_result
        assert result is not None
        return result

    @_hybridmethod
    def replay(cls_or_self: Any, journal: bytes, *, then: str = "error", **kwargs: Any) -> Any:
        """Re-run a recorded run (`last_result.journal`) without calling any
        tool handler or approval handler: the same stdout, stderr, exit
        status and files. A paused run's token replays to its pending call
        and stops there, as the run did (error_kind "approval_required").

        On the class, `Sandbox.replay(journal, **kwargs)` makes a sandbox
        with `kwargs` (limits default to the journal's) from the journal's
        start snapshot, replays the run, and returns the sandbox (the run is
        its `last_result`). On a sandbox in the journal's start state,
        `sb.replay(journal)` returns the replayed run's result.

        A script that asks for something the journal did not record raises
        ReplayDivergenceError; with `then="live"` the run instead goes on
        with live inputs (the handler answers new calls)."""
        if isinstance(cls_or_self, type) and issubclass(cls_or_self, Sandbox):
            _durable.check_then(then)
            sb = cls_or_self._from_journal(journal, kwargs)
            try:
                sb._replay_on(journal, then)
            except BaseException:
                sb.close()
                raise
            return sb
        if kwargs:
            raise TypeError(f"replay() on a sandbox takes only the journal and then=, got {sorted(kwargs)}")
        return cls_or_self._replay_on(journal, then)  # type: ignore[no-any-return]

    @classmethod
    def resume_approval(cls, token: bytes, *, approve: bool, **kwargs: Any) -> Sandbox:
        """Continue a run that stopped for approval (ApprovalRequired.token),
        in a new sandbox made with `kwargs`, in any process: the run is
        replayed to the pending call without calling any tool handler, then
        goes on live. `approve=True` runs the call; False makes it a
        permission error in the script. The token carries the call's need
        for approval (no require_approval needed here); `kwargs`'
        capabilities must still allow every call. A token made under another
        durable key (`durable_key=`), or edited, is a ValueError; a token is
        redeemed once (`redeem=`, default this machine's ledger), a second
        resume is a ValueError. Returns the sandbox, the finished run in
        `last_result`; raises ApprovalRequired again at the next call that
        needs approval."""
        if not isinstance(approve, bool):
            raise TypeError(f"approve must be True or False, got {approve!r}")
        info = _durable.journal_info(token, _durable.resolve_key(kwargs.get("durable_key")))
        if info["end"] != "paused":
            raise ValueError("resume_approval: this token is a journal of a run that did not stop for approval")
        sb = cls._from_journal(token, kwargs)
        try:
            _durable.redeem(str(info["pending"]["token_id"]), kwargs.get("redeem"))
            sb._replay_on(token, "live", approve)
        except BaseException:
            sb.close()
            raise
        return sb

    # -- tools of a live sandbox (docs/tools.md) ------------------------------

    def add_tools(
        self,
        tools: Iterable[ToolDefinition],
        *,
        capabilities: Iterable[ToolCallCap | MethodCapability] | None = None,
    ) -> None:
        """Add tools, which scripts can call from the next run on (through
        `tool_handler`, like the others). The capabilities that decide
        calls are unchanged unless `capabilities` are given, which are
        added to them. A name already in use is a ValueError, and so is
        a call while a run is in progress (RuntimeError)."""
        new = list(tools)
        for t in new:
            if not isinstance(t, ToolDefinition):
                raise TypeError(f"tools must be ToolDefinition objects, got {type(t).__name__}")
        have = {t.name for t in self.tools}
        for t in new:
            if t.name in have:
                raise ValueError(f"add_tools: a tool named {t.name!r} is already in this sandbox")
            have.add(t.name)
        caps = self._checked_caps(capabilities)
        self._set_tools(self.tools + new, caps)
        self._init_args["tools"] = list(self._init_args.get("tools") or []) + new

    def remove_tools(
        self,
        names: Iterable[str],
        *,
        capabilities: Iterable[ToolCallCap | MethodCapability] | None = None,
    ) -> None:
        """Remove the tools of these names: from the next run on a script's
        call to one fails with `Unknown tool`. The capabilities are
        unchanged unless `capabilities` are given, which replace them. A
        name that is not a tool of this sandbox is a ValueError."""
        if isinstance(names, str):
            names = [names]
        drop = list(names)
        have = {t.name for t in self.tools}
        for n in drop:
            if n not in have:
                raise ValueError(f"remove_tools: {n!r} is not a tool of this sandbox")
        caps = self._checked_caps(capabilities)
        self._set_tools([t for t in self.tools if t.name not in drop], (caps, "replace") if caps is not None else None)
        self._init_args["tools"] = [t for t in self._init_args.get("tools") or [] if t.name not in drop]

    @staticmethod
    def _checked_caps(capabilities: Iterable[Any] | None) -> list[Any] | None:
        if capabilities is None:
            return None
        caps = list(capabilities)
        for c in caps:
            if not isinstance(c, (ToolCallCap, MethodCapability)):
                raise TypeError(
                    f"capabilities must be ToolCallCap or MethodCapability objects, got {type(c).__name__}"
                )
        return caps

    def _set_tools(self, tools: list[ToolDefinition], caps: Any) -> None:
        rt = self._rt()
        if rt.running:
            raise builtins.RuntimeError(
                "a run is in progress on this sandbox: tools change between runs (finish or cancel it first)"
            )
        rt.set_tools(json.dumps([t.to_dict() for t in tools]))
        self.tools = tools
        if caps is not None:
            if isinstance(caps, tuple):
                new_caps = list(caps[0])
            else:
                new_caps = list(self.capabilities) + caps
            # New limited capabilities get their budgets; spent ones stay spent.
            rt.set_capabilities_budgeted(new_caps)
            self.capabilities = new_caps
            self._init_args["capabilities"] = list(new_caps)

    # -- files (docs/files.md) -----------------------------------------------

    @property
    def files(self) -> SandboxFiles:
        """The sandbox's files from the host: read, write, list, remove,
        upload, download (amla_sandbox.files)."""
        from .files import SandboxFiles

        return SandboxFiles(self)

    # -- introspection --------------------------------------------------------

    @property
    def last_stderr(self) -> str:
        return self._runtime.last_stderr if self._runtime is not None else ""

    @property
    def last_result(self) -> RunResult | None:
        return self._runtime.last_result if self._runtime is not None else None

    def can_call(self, method: str, params: dict[str, Any] | None = None) -> bool:
        return self._runtime is not None and self._runtime.can_call(method, params)

    def get_capabilities(self) -> list[ToolCallCap]:
        return list(self.capabilities)

    def get_remaining_calls(self, capability_key: str) -> int | None:
        return self._runtime.get_remaining_calls(capability_key) if self._runtime is not None else None

    def get_call_counts(self) -> dict[str, int]:
        return self._runtime.get_call_counts() if self._runtime is not None else CallCounts({})

    def get_audit_entries(
        self, entry_type: str | None = None, since: datetime | None = None
    ) -> Iterator[AuditEntry]:
        if self._audit_collector is None:
            return iter(())
        return self._audit_collector.get_entries(entry_type=entry_type, since=since)

    @property
    def audit_collector(self) -> AuditCollector | None:
        return self._audit_collector

    # -- lifetime -------------------------------------------------------------

    def close(self) -> None:
        """Remove the sandbox's files, release the engine and stop the MCP
        servers it started (idempotent; safe from any thread, also while a
        run is in progress, which then ends)."""
        try:
            if self._audit_collector is not None:
                self._audit_collector.close()
                self._audit_collector = None
        finally:
            try:
                if self._runtime is not None:
                    self._runtime.close()
                    self._runtime = None
            finally:
                try:
                    self._pipeline.close()
                finally:
                    self._close_mcp()

    def _close_mcp(self) -> None:
        mcp, self._mcp = self._mcp, None
        if mcp is not None and self._mcp_owned:
            mcp.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
