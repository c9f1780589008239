"""SandboxTool: a sandbox packaged as a tool for an LLM agent (LangChain /
LangGraph), plus the prompts that teach the model to use it.

Usage::

    from amla_sandbox import create_sandbox_tool

    sandbox = create_sandbox_tool(tools=[get_weather])
    sandbox.run("const w = await get_weather({city: 'SF'}); console.log(w.temp);", language="javascript")
    sandbox.run("echo hello | tr a-z A-Z", language="shell")

    from langchain.agents import create_agent  # LangChain/LangGraph 1.x
    agent = create_agent(model, tools=[sandbox.as_langchain_tool()])

LangChain and pydantic are imported only when a LangChain tool is built.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._language import normalize_language
from .capabilities import ToolCallCap
from .network import NetworkArg, prompt_lines
from .runtime.runtime import DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT
from .sandbox import Sandbox
from .tools.conversion import capability_from_function, tool_doc, tool_from_function, tool_name, tool_parameters, tool_summary
from .tools.definition import ToolDefinition
from .tools.handlers import FunctionHandler

from .durable import ApprovalRequired

if TYPE_CHECKING:
    from .check import CheckResult

__all__ = ["ExecutionResult", "SandboxTool"]

_SHELL_UTILITIES = "grep, jq, tr, head, tail, sort, uniq, wc, cut, cat, echo"
_SHELL_EXAMPLE = "cat /workspace/data.json | jq '.items[]' | head -5"
# Budgets at or above this many calls are not worth a line in a prompt.
_LIMIT_WORTH_MENTIONING = 100
# A prompt shows every tool's declaration up to this many tools (the number
# MCPTools.prompt_lines shows with parameters); beyond it, a line per
# function tool and the MCP tools' names, the rest on demand.
_FULL_DECLARATIONS_MAX = 15
# The code fence of each language's declarations.
_FENCE = {"javascript": "typescript", "typescript": "typescript", "python": "python", "shell": "bash"}
# How a script of each language asks for more (declarations on demand).
_ON_DEMAND = {
    "javascript": "a tool's declaration: `await tools.describe('name')`; find tools: `await tools.search('words')`",
    "python": "a tool's declaration: `tools.describe('name')`; find tools: `tools.search('words')`",
    "shell": "a tool's usage: `tool --describe NAME`; find tools: `tool --search WORDS`",
}
_ON_DEMAND["typescript"] = _ON_DEMAND["javascript"]


@dataclass
class ExecutionResult:
    """What one run produced. `success` is False only when the run could not
    complete (an engine error, a timeout, a closed sandbox); errors thrown by
    the script itself are in `stderr`."""

    stdout: str = ""
    stderr: str = ""
    # The run's value as Python data: what a JavaScript script returned,
    # the value of a Python script's final expression (JSON-decoded; None
    # when there is none or it is not JSON). docs/files.md.
    return_value: Any = None
    error: str | None = None
    success: bool = True
    # The run's exit status (1 when the run could not complete).
    exit_code: int = 0
    # keep_state: the run's interpreter state was discarded (a timeout,
    # the memory limit, a cancellation, a crash); the next run starts
    # fresh (docs/sessions.md).
    state_reset: bool = False

    def __str__(self) -> str:
        if self.error:
            return f"Error: {self.error}\n{self.stderr}"
        return self.stdout

    def to_tool_message(self) -> str:
        """The text an agent sees: stdout, then `[stderr]: …`, then `[error]: …`."""
        parts = []
        if self.stdout:
            parts.append(self.stdout)
        if self.stderr:
            parts.append(f"[stderr]: {self.stderr}")
        if self.error:
            parts.append(f"[error]: {self.error}")
        return "\n".join(parts) if parts else "(no output)"


_DEFAULT_DESCRIPTION = """Execute code in a secure sandbox.

JavaScript mode (language="javascript"): call the available functions with
await, one object argument each, e.g. `const r = await get_data({id: 1});`,
and print results with console.log(). Files under /workspace and /tmp persist
between calls (await fs.writeFile / await fs.readFile).

Python mode (language="python"): call the functions with keyword arguments,
e.g. `r = get_data(id=1)`, and print results with print(); the value of a
final expression is printed too. asyncio.gather over calls runs them together.

Shell mode (language="shell"): run shell pipelines with grep, jq, tr, head,
tail, sort, uniq, wc, cut, cat, echo, e.g.
`cat /workspace/data.json | jq '.items[]' | head -5`.

TypeScript mode (language="typescript"): as JavaScript mode; the types are
stripped first (nothing is type-checked).

The language argument is "javascript" (the default; also "js", "node"),
"typescript" (also "ts"), "python" (also "py", "python3") or "shell" (also
"bash", "sh")."""


def function_list(tools: Sequence[Callable[..., Any]] | None) -> list[Callable[..., Any]]:
    """`tools` as a list, refusing what cannot become a tool by name."""
    funcs = list(tools or [])
    for f in funcs:
        if not callable(f) or not isinstance(getattr(f, "__name__", None), str):
            raise TypeError(
                f"tools must be functions, got {type(f).__name__}: {f!r:.80}. "
                "Convert framework tools first with from_langchain(), from_openai_tools() "
                "or from_anthropic_tools()."
            )
        tool_name(f)  # a lambda cannot be called by name: say so now
    return funcs


def build_sandbox(
    funcs: list[Callable[..., Any]],
    capabilities: list[ToolCallCap],
    tool_map: dict[str, Callable[..., Any]],
    *,
    timeout: float,
    memory_limit: int,
    mcp_servers: Any = None,
    python_packages: list[Any] | None = None,
    network: NetworkArg = None,
    **durable: Any,
) -> Sandbox:
    """The Sandbox of a SandboxTool: `funcs` as its tools, called through a
    FunctionHandler over `tool_map`, async ones awaited under run() too."""
    sandbox = Sandbox(
        tools=[tool_from_function(f) for f in funcs],
        capabilities=capabilities,
        tool_handler=FunctionHandler(tool_map) if funcs else None,
        timeout=timeout,
        memory_limit=memory_limit,
        mcp_servers=mcp_servers,
        python_packages=python_packages,
        network=network,
        **durable,
    )
    # async def tools work under run()/execute() too: the sandbox drives an
    # event loop for them when none is running (docs/compatibility.md, difference #12).
    sandbox.await_async_tools = True
    return sandbox


def _first_doc_line(func: Callable[..., Any]) -> str:
    return tool_summary(func) or "No description"


def _annotation_name(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return "any"
    return getattr(annotation, "__name__", None) or str(annotation)


def _python_signature(func: Callable[..., Any]) -> str:
    parts = []
    for param in tool_parameters(func):
        pname = param.name
        text = f"{pname}: {_annotation_name(param.annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        parts.append(text)
    return ", ".join(parts)


@dataclass
class SandboxTool:
    """A sandbox as one agent tool: `run(code, language)` runs JavaScript or a
    shell command line and returns the text the model should see.

    Build one with `create_sandbox_tool(...)` (every tool budgeted, constraint
    DSL) or `SandboxTool.from_functions(...)` (explicit capabilities).
    """

    sandbox: Sandbox
    tools: list[Callable[..., Any]] = field(default_factory=list)
    _tool_map: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    name: str = "sandbox"
    description: str = _DEFAULT_DESCRIPTION
    # Type-check TypeScript, JavaScript and Python before running them:
    # code with type errors is not run, and run() returns the diagnostics.
    check_types: bool = False

    def __post_init__(self) -> None:
        if not self._tool_map and self.tools:
            self._tool_map = {tool_name(f): f for f in self.tools}

    @classmethod
    def from_functions(
        cls,
        tools: Sequence[Callable[..., Any]],
        *,
        capabilities: Sequence[ToolCallCap] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        network: NetworkArg = None,
        keep_state: bool = False,
    ) -> SandboxTool:
        """A SandboxTool whose sandbox can call `tools`.

        Without `capabilities` each function gets an unlimited, unconstrained
        capability `mcp:<name>`; with them, exactly those are used (an empty
        list means the development default `**`). `network` lets scripts
        make HTTP requests (docs/network.md). `keep_state` keeps each
        language's state between runs (docs/sessions.md).
        """
        funcs = function_list(tools)
        tool_map = {tool_name(f): f for f in funcs}
        caps = list(capabilities) if capabilities is not None else [capability_from_function(f) for f in funcs]
        sandbox = build_sandbox(
            funcs, caps, tool_map, timeout=timeout, memory_limit=memory_limit, network=network, keep_state=keep_state
        )
        return cls(sandbox=sandbox, tools=funcs, _tool_map=tool_map)

    # -- running --------------------------------------------------------------

    def _capture(self, run: Callable[[], str]) -> ExecutionResult:
        before = _last_result(self.sandbox)
        try:
            out = run()
        except ApprovalRequired:
            raise  # the caller decides and resumes (resume_approval)
        except Exception as e:
            return self._result(before, error=str(e))
        return self._result(before, stdout=out)

    async def _capture_async(self, run: Callable[[], Awaitable[str]]) -> ExecutionResult:
        before = _last_result(self.sandbox)
        try:
            out = await run()
        except ApprovalRequired:
            raise
        except Exception as e:
            return self._result(before, error=str(e))
        return self._result(before, stdout=out)

    def _result(self, before: Any, *, stdout: str = "", error: str | None = None) -> ExecutionResult:
        """The ExecutionResult of the run just made (the sandbox's
        last_result, unless the run never started: then `before` is still
        there, and the exit code is 1)."""
        last = _last_result(self.sandbox)
        ran = last is not None and last is not before
        return ExecutionResult(
            stdout=stdout,
            stderr=self.sandbox.last_stderr,
            return_value=getattr(last, "return_value", None) if ran and error is None else None,
            error=error,
            success=error is None,
            exit_code=(last.exit_code if ran else 0) if error is None else (last.exit_code if ran and last.exit_code else 1),
            state_reset=bool(getattr(last, "state_reset", False)) if ran else False,
        )

    def execute(
        self, code: str, *, stdin: str | bytes | None = None, language: str = "javascript"
    ) -> ExecutionResult:
        """Run JavaScript (or TypeScript, with `language="typescript"`).
        Never raises: failures are in the result."""
        lang = normalize_language(language)
        if lang == "javascript":
            return self._capture(lambda: self.sandbox.execute(code, stdin=stdin))
        return self._capture(lambda: self.sandbox.execute(code, stdin=stdin, language=lang))

    def shell(self, command: str, *, stdin: str | bytes | None = None) -> ExecutionResult:
        """Run a shell command line. Never raises: failures are in the result."""
        return self._capture(lambda: self.sandbox.shell(command, stdin=stdin))

    def resume_approval(self, token: bytes, *, approve: bool) -> str:
        """Continue a run that raised ApprovalRequired, from its token (in
        this process or another): the pending call runs if `approve`, else
        the script gets a permission error. The tool's sandbox becomes the
        resumed one (the files as the run left them). Returns the text
        `run()` would have; raises ApprovalRequired again at the next call
        that needs approval."""
        resumed = Sandbox.resume_approval(token, approve=approve, **self.sandbox.arguments)
        resumed.await_async_tools = self.sandbox.await_async_tools
        old, self.sandbox = self.sandbox, resumed
        old.close()
        last = resumed.last_result
        assert last is not None
        return ExecutionResult(
            stdout=last.stdout, stderr=last.stderr, error=last.error, success=last.error_kind is None
        ).to_tool_message()

    def python(self, code: str, *, stdin: str | bytes | None = None) -> ExecutionResult:
        """Run Python. Never raises: failures are in the result."""
        return self._capture(lambda: self.sandbox.python(code, stdin=stdin))

    # -- lifetime -------------------------------------------------------------

    def close(self) -> None:
        """Release the sandbox (its engine, files and budgets). Idempotent;
        later runs return an error result instead of running."""
        self.sandbox.close()

    def __enter__(self) -> SandboxTool:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- dispatch -------------------------------------------------------------

    def run(self, code: str, language: str, *, stdin: str | bytes | None = None) -> str:
        """Run `code` as JavaScript (`language` "javascript", "js" or "node"),
        TypeScript ("typescript" or "ts": types stripped, then run as
        JavaScript), Python ("python", "py" or "python3") or a shell script ("shell",
        "bash" or "sh"), in any case; return the text for the model
        (`to_tool_message()`). Any other `language` is a ValueError listing
        the accepted values."""
        lang = normalize_language(language)
        if self.check_types and lang != "shell":
            refusal = self._type_check_refusal(code, lang)
            if refusal is not None:
                return refusal
        if lang == "shell":
            return self.shell(code, stdin=stdin).to_tool_message()
        if lang == "python":
            return self.python(code, stdin=stdin).to_tool_message()
        return self.execute(code, stdin=stdin, language=lang).to_tool_message()

    async def run_async(self, code: str, language: str, *, stdin: str | bytes | None = None) -> str:
        """`run()` for callers inside an event loop: async tools are awaited on
        the caller's loop."""
        lang = normalize_language(language)
        if self.check_types and lang != "shell":
            import asyncio

            refusal = await asyncio.to_thread(self._type_check_refusal, code, lang)
            if refusal is not None:
                return refusal
        if lang == "python":
            return (await self._capture_async(lambda: self.sandbox.python_async(code, stdin=stdin))).to_tool_message()
        if lang == "shell":
            shell_async = getattr(self.sandbox, "shell_async", None)
            if shell_async is not None:
                result = await self._capture_async(lambda: shell_async(code, stdin=stdin))
            else:
                # No async shell on this Sandbox: run it off the loop so that
                # async tools called by the `tool` applet can be driven there.
                import asyncio

                result = await self._capture_async(
                    lambda: asyncio.to_thread(self.sandbox.shell, code, stdin=stdin)
                )
        elif lang == "javascript":
            result = await self._capture_async(lambda: self.sandbox.execute_async(code, stdin=stdin))
        else:
            result = await self._capture_async(
                lambda: self.sandbox.execute_async(code, stdin=stdin, language=lang)
            )
        return result.to_tool_message()

    # -- LangChain ------------------------------------------------------------

    def as_langchain_tool(self) -> Any:
        """One LangChain `StructuredTool` taking `code` and `language`."""
        StructuredTool, BaseModel, Field = _langchain("as_langchain_tool()")

        class SandboxInput(BaseModel):  # type: ignore[misc, valid-type]
            code: str = Field(description="JavaScript, TypeScript or Python code, or a shell script")
            language: str = Field(
                default="javascript",
                description='"javascript" (default), "typescript", "python" or "shell"; "js", "node", "ts", '
                '"py", "python3", "bash" and "sh" also work',
            )

        def run(code: str, language: str = "javascript") -> str:
            try:
                lang = normalize_language(language)
            except ValueError as e:
                return f"[error]: {e}"
            return self.run(code, lang)

        async def arun(code: str, language: str = "javascript") -> str:
            try:
                lang = normalize_language(language)
            except ValueError as e:
                return f"[error]: {e}"
            return await self.run_async(code, lang)

        return StructuredTool(
            name=self.name,
            description=self._langchain_description(),
            args_schema=SandboxInput,
            func=run,
            coroutine=arun,
        )

    def as_langchain_tools(self) -> list[Any]:
        """Two LangChain tools: `sandbox_js` (argument `code`) and
        `sandbox_shell` (argument `command`)."""
        StructuredTool, BaseModel, Field = _langchain("as_langchain_tools()")

        class JSInput(BaseModel):  # type: ignore[misc, valid-type]
            code: str = Field(description="JavaScript code to run (top-level await works)")

        class ShellInput(BaseModel):  # type: ignore[misc, valid-type]
            command: str = Field(description="Shell command line to run")

        def run_js(code: str) -> str:
            return self.run(code, "javascript")

        async def arun_js(code: str) -> str:
            return await self.run_async(code, "javascript")

        def run_shell(command: str) -> str:
            return self.run(command, "shell")

        async def arun_shell(command: str) -> str:
            return await self.run_async(command, "shell")

        return [
            StructuredTool(
                name="sandbox_js",
                description=self._js_description(),
                args_schema=JSInput,
                func=run_js,
                coroutine=arun_js,
            ),
            StructuredTool(
                name="sandbox_shell",
                description=self._shell_description(),
                args_schema=ShellInput,
                func=run_shell,
                coroutine=arun_shell,
            ),
        ]

    # -- generated text -------------------------------------------------------

    def _definitions(self) -> list[ToolDefinition]:
        """The tools scripts can call, as the sandbox registered them (its
        functions, then its MCP servers' tools)."""
        tools = getattr(self.sandbox, "tools", None)
        if isinstance(tools, list) and all(isinstance(t, ToolDefinition) for t in tools):
            return tools
        # A sandbox-like object without definitions: this tool's functions.
        return [tool_from_function(f) for f in self.tools]

    def check(self, code: str, language: str = "typescript", *, timeout: float | None = None) -> CheckResult:
        """Type-check `code` against the tools' declarations without running
        it: `Sandbox.check` (docs/declarations.md, "Type-checking")."""
        from . import _core
        from .check import CHECK_TIMEOUT, check_script

        lang = normalize_language(language)
        if lang not in ("typescript", "javascript", "python"):
            raise ValueError(f"check() type-checks TypeScript, JavaScript and Python, not {lang}")
        defs = self._definitions()
        decl = _core.render_declarations(json.dumps([t.to_dict() for t in defs]), lang, None) if defs else ""
        return check_script(code, lang, decl, timeout=CHECK_TIMEOUT if timeout is None else timeout)

    def _type_check_refusal(self, code: str, lang: str) -> str | None:
        """For check_types: the text that answers instead of a run, or None
        when the code may run. A check that does not finish in time refuses
        the run too (the script may be built to make the checker slow); a
        missing checker raises CheckerUnavailable, a setup error."""
        try:
            checked = self.check(code, lang)
        except TimeoutError as e:
            return f"[type check did not finish: {e}; the script was not run]"
        return None if checked.ok else checked.to_tool_message()

    def get_tool_declarations(self, language: str = "typescript", *, names: Sequence[str] | None = None) -> str:
        """The declarations of the tools scripts can call, as a script in
        `language` calls them: TypeScript (`declare function get_weather(input:
        GetWeatherInput): Promise<unknown>`, types from each tool's JSON
        Schema, doc comments from its descriptions) for "javascript" and
        "typescript"; Python stubs (`async def get_weather(*, city: str) ->
        Any`, with docstrings) for "python"; the `tool` command's usage for
        "shell". A tool's result is typed when its output schema is known
        (MCP tools' `outputSchema`, Python functions returning a TypedDict,
        dataclass or pydantic model), else `unknown` / `Any`. Every tool,
        or those `names` gives (a name that is not a tool is a ValueError).
        The same text as `tools.describe(name)` in a script (docs/declarations.md)."""
        from . import _core

        lang = normalize_language(language)
        if names is not None:
            if isinstance(names, str):
                names = [names]
            names = list(names)
            if not all(isinstance(n, str) for n in names):
                raise TypeError("names must be tool names (str)")
        tools_json = json.dumps([t.to_dict() for t in self._definitions()])
        return _core.render_declarations(tools_json, lang, names)

    def _declaration_lines(self, language: str, *, mcp_names: bool = True) -> list[str]:
        """The tools as a script in `language` sees them, for a prompt: every
        tool's declaration in a code block for a few tools; for more, a line
        per function tool, the MCP servers' tool names (unless `mcp_names`
        is False: another part of the prompt has them) and how to get the
        rest."""
        from . import _core

        defs = self._definitions()
        if not defs:
            return []
        tools_json = json.dumps([t.to_dict() for t in defs])
        if len(defs) <= _FULL_DECLARATIONS_MAX:
            text = _core.render_declarations(tools_json, language, None).rstrip("\n")
            return [f"```{_FENCE[language]}", *text.split("\n"), "```"]
        mcp = self._mcp_tools()
        mcp_tools = {d.name for d in mcp.definitions} if mcp is not None else set()
        summary = _core.render_tool_summary(tools_json, language).split("\n")
        lines = [line for d, line in zip(defs, summary) if d.name not in mcp_tools]
        if mcp_tools and mcp_names:
            lines += [self._MCP_TITLE, *self._mcp_name_lines()]
        lines.append(f"{len(defs)} tools; {_ON_DEMAND[language]}.")
        return lines

    _MCP_TITLE = "MCP tools, by server:"

    def _mcp_tools(self) -> Any:
        mcp = getattr(self.sandbox, "_mcp", None)
        return mcp if mcp is not None and mcp.definitions else None

    def _mcp_name_lines(self) -> list[str]:
        """The MCP servers and their tools' names, one line per server."""
        mcp = self._mcp_tools()
        return mcp.prompt_lines(schemas=False) if mcp is not None else []

    def _names_only(self) -> bool:
        """Whether a prompt names the tools rather than declaring them."""
        return len(self._definitions()) > _FULL_DECLARATIONS_MAX

    def _js_example(self) -> str:
        mcp = getattr(self.sandbox, "_mcp", None)
        if not self.tools and mcp is not None and mcp.definitions:
            return f"const r = await {mcp.definitions[0].name}({{...}}); console.log(JSON.stringify(r));"
        if not self.tools:
            return "console.log('hello');"
        first = tool_name(self.tools[0])
        return f"const r = await {first}({{...}}); console.log(JSON.stringify(r));"

    def _py_example(self) -> str:
        mcp = getattr(self.sandbox, "_mcp", None)
        if not self.tools and mcp is not None and mcp.definitions:
            return f"r = {mcp.definitions[0].name}(...); print(r)"
        if not self.tools:
            return "print('hello')"
        return f"r = {tool_name(self.tools[0])}(...); print(r)"

    def _py_section(self) -> list[str]:
        return [
            "Call the same functions with keyword arguments (no await needed); print with print(); the value",
            "of a final expression is printed. In async code, `await asyncio.gather(*[f(x=i) for i in ids])`",
            "runs calls together.",
            f"Example: {self._py_example()}",
        ]

    def _limit_lines(self) -> list[str]:
        lines = []
        for cap in self.sandbox.capabilities:
            name = cap.method_pattern.removeprefix("mcp:")
            if cap.max_calls and cap.max_calls < _LIMIT_WORTH_MENTIONING:
                lines.append(f"- {name}: max {cap.max_calls} calls")
            if cap.constraints:
                lines.append(f"- {name}: has parameter constraints")
        return lines

    def _network_lines(self) -> list[str]:
        """The sandbox's network (reachable requests, secrets' variable
        names, how to make a request), or nothing without a policy."""
        return prompt_lines(getattr(self.sandbox, "_network_config", None), getattr(self.sandbox, "capabilities", ()))

    def _js_section(self) -> list[str]:
        lines = ["Call functions with await (one object argument each); print results with console.log()."]
        declarations = self._declaration_lines("javascript")
        if declarations:
            lines.append("Available functions (TypeScript declarations):")
            lines.extend(declarations)
        lines.append(f"Example: {self._js_example()}")
        return lines

    def _langchain_description(self) -> str:
        lines = [
            "Execute code in a secure sandbox. Four modes, chosen by the `language` argument:",
            "",
            "JAVASCRIPT (language='javascript', the default):",
            *self._js_section(),
            "",
            "TYPESCRIPT (language='typescript'): as JavaScript; the types are stripped first (not checked).",
            "",
            "PYTHON (language='python'):",
            *self._py_section(),
            *self._titled("The functions in Python:", self._declaration_lines("python", mcp_names=False)),
            "",
            "SHELL (language='shell'):",
            f"Utilities: {_SHELL_UTILITIES}. Pipes and redirection to /workspace or /tmp work.",
            f"Example: {_SHELL_EXAMPLE}",
            *self._titled(
                "The functions as commands (each prints its JSON result):", self._declaration_lines("shell", mcp_names=False)
            ),
        ]
        network = self._network_lines()
        if network:
            lines += ["", "NETWORK:", *network]
        limits = self._limit_lines()
        if limits:
            lines += ["", "LIMITS:", *limits]
        return "\n".join(lines)

    def _js_description(self) -> str:
        lines = ["Run JavaScript (ES2020+, top-level await) in a secure sandbox.", *self._js_section()]
        network = self._network_lines()
        if network:
            lines += ["", "NETWORK:", *network]
        limits = self._limit_lines()
        if limits:
            lines += ["", "LIMITS:", *limits]
        return "\n".join(lines)

    def _shell_description(self) -> str:
        return "\n".join(
            [
                "Run a shell command line in a secure sandbox (the same files as sandbox_js).",
                f"Utilities: {_SHELL_UTILITIES}, ls. Pipes and redirection to /workspace or /tmp work.",
                f"Example: {_SHELL_EXAMPLE}",
                *self._titled("The functions as commands (each prints its JSON result):", self._declaration_lines("shell")),
            ]
        )

    @staticmethod
    def _titled(title: str, lines: list[str]) -> list[str]:
        return [title, *lines] if lines else []

    def get_tool_descriptions(self) -> str:
        """Markdown listing the functions sandbox code can call, with full docstrings."""
        if not self.tools:
            return "No custom tools available. Use shell commands or plain JavaScript."
        lines = ["Available functions (call from JavaScript as `await name({...})`):", ""]
        for func in self.tools:
            lines.append(f"### {tool_name(func)}({_python_signature(func)})")
            lines.append(tool_doc(func) or "No description")
            lines.append("")
        return "\n".join(lines)

    def _functions_and_limits(self, include_tools: bool, where: str, languages: Sequence[str]) -> list[str]:
        lines: list[str] = []
        if include_tools and self._definitions():
            lines += ["", f"### Available Functions{where}", ""]
            titles = {
                "javascript": "JavaScript and TypeScript (`await name(input)`), as TypeScript declarations:",
                "typescript": "TypeScript (`await name(input)`):",
                "python": "Python (keyword arguments; `await` optional), as Python stubs:",
                "shell": "Shell (`tool NAME --PARAM VALUE`, prints the JSON result):",
            }
            for i, lang in enumerate(languages):
                if len(languages) > 1:
                    lines += ([""] if i else []) + [titles[lang], ""]
                lines += self._declaration_lines(lang, mcp_names=False)
            if self._names_only() and self._mcp_name_lines():
                lines += ["", f"### MCP Tools{where}", "", self._MCP_TITLE, *self._mcp_name_lines()]
        network = self._network_lines()
        if network:
            lines += ["", "### Network", "", *network]
        limits = self._limit_lines()
        if limits:
            lines += ["", "### Limits", "", *limits]
        return lines

    def get_system_prompt(self, *, include_tools: bool = True, language: str | None = None) -> str:
        """A markdown fragment to append to an agent's system prompt.

        Without `language` it teaches every mode (JavaScript, TypeScript,
        Python, shell) and shows the tools in each: TypeScript declarations,
        Python stubs and the `tool` command's usage. With `language`, only
        that mode and its declarations (a smaller prompt). Up to 15 tools
        every declaration is shown; beyond, a line per function tool and the
        MCP servers' tool names, scripts asking for the rest
        (`tools.describe`, `tool --describe`)."""
        lang = normalize_language(language) if language is not None else None
        modes = ["javascript", "python", "shell"] if lang is None else [lang]
        lines = [
            "## Sandbox Tool Usage",
            "",
            f"The `{self.name}` tool runs code in a secure sandbox. It takes two parameters:",
            "- `code`: the JavaScript, TypeScript or Python code, or the shell script, to run",
            '- `language`: `"javascript"` (the default), `"typescript"`, `"python"` or `"shell"`'
            if lang is None
            else f'- `language`: `"{lang}"`',
        ]
        if "javascript" in modes or "typescript" in modes:
            which = lang or "javascript"
            lines += [
                "",
                f'### {"TypeScript" if which == "typescript" else "JavaScript"} mode (language="{which}")',
                "",
                "Call functions with await and one object argument; print what you need with console.log().",
                "Do many calls in one run with a loop instead of one tool call each:",
                "",
                "```javascript",
                "const results = [];",
                "for (const id of [1, 2, 3]) {",
                "  results.push(await some_function({id}));",
                "}",
                'await fs.writeFile("/workspace/data.json", JSON.stringify(results));',
                "console.log(results.length);",
                "```",
                "",
                "Files under /workspace and /tmp persist between runs (`await fs.readFile`, `await fs.writeFile`).",
                'TypeScript (language="typescript") runs the same way once its types are stripped (they are not checked).',
            ]
        if "python" in modes:
            lines += [
                "",
                '### Python mode (language="python")',
                "",
                "The same functions, called with keyword arguments; the value of a final expression is printed:",
                "",
                "```python",
                "import json",
                "results = [some_function(id=i) for i in [1, 2, 3]]",
                'json.dump(results, open("/workspace/data.json", "w"))',
                "len(results)",
                "```",
                "",
                "In async code, `await asyncio.gather(*[some_function(id=i) for i in ids])` runs the calls together.",
            ]
        if "shell" in modes:
            lines += [
                "",
                '### Shell mode (language="shell")',
                "",
                f"Utilities: {_SHELL_UTILITIES}. Example:",
                "",
                "```bash",
                _SHELL_EXAMPLE,
                "```",
            ]
        lines += self._functions_and_limits(include_tools, "", modes)
        return "\n".join(lines)

    def get_system_prompt_for_separate_tools(self, *, include_tools: bool = True) -> str:
        """Like `get_system_prompt()`, for the two tools of `as_langchain_tools()`."""
        lines = [
            "## Sandbox Tools",
            "",
            "Two tools share one secure sandbox and its files (/workspace, /tmp):",
            "- `sandbox_js(code)`: runs JavaScript. Use it to call functions (with await, one object",
            "  argument each), loop over many calls, and transform data. Print with console.log().",
            f"- `sandbox_shell(command)`: runs a shell command line with {_SHELL_UTILITIES}, ls.",
            "  Use it to inspect and filter files, e.g.:",
            f"  `{_SHELL_EXAMPLE}`",
            "",
            "Use sandbox_js to fetch and save data (`await fs.writeFile(\"/workspace/data.json\", ...)`),",
            "then sandbox_shell to explore it.",
        ]
        lines += self._functions_and_limits(include_tools, " (in sandbox_js)", ["javascript"])
        return "\n".join(lines)


def _langchain(method: str) -> tuple[Any, Any, Any]:
    try:
        from langchain_core.tools import StructuredTool
        from pydantic import BaseModel, Field
    except ImportError as e:
        raise ImportError(
            f"langchain_core is required for {method}. Install it with: pip install langchain-core"
        ) from e
    return StructuredTool, BaseModel, Field


def _last_result(sandbox: Any) -> Any:
    """The sandbox's last run, or None for a sandbox-like object without
    one (SandboxTool takes any object with execute/shell, as its tests'
    stand-ins are)."""
    return getattr(sandbox, "last_result", None)

