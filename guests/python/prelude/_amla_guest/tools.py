"""The tools a script sees: one callable per registered tool.

A tool named "get_weather" is get_weather(city="SF"); a dotted name is a
path of namespaces ("stripe.charges.create" is stripe.charges.create(...));
each "-", ":" and "/" in a name becomes "_". The host decides that path
(gocore/toolcat) and hands it over as each index entry's "py", absent for
a tool whose name makes no Python path. A tool takes keyword arguments,
or one dict (the JavaScript habit), or both (merged; a key given twice is
an error), and returns the decoded JSON of its result.

With no event loop running, a tool waits for its answer and returns the
value itself. While one runs (asyncio.run, a script using top-level
await), it returns a ToolCall at once, already submitted, to be awaited,
gathered or used directly, wherever in the code the call is written
(calls.py says why).

A tool whose first name part would hide a builtin, a keyword or one of the
sandbox's own helpers gets no global; call_tool(name, ...) and
get_tool_info(name) reach every tool by its registered name.

The global `tools` finds tools as JavaScript's does (docs/mcp.md):
tools.search("issue label"), tools.describe(name), tools.list() and
tools.call(name, ...). A tool of your own named `tools` takes the name.
"""

from __future__ import annotations

import builtins
import json
import sys

from . import calls

# json's functions as they were when the guest started: a script that replaces
# json.dumps or json.loads (in a kept session it stays replaced) does not change
# how the guest encodes tool calls, requests and results.
_json_dumps, _json_loads = json.dumps, json.loads

# Conveniences that a tool of the same name replaces (site's builtins).
_YIELDING = frozenset({"help", "exit", "quit", "copyright", "credits", "license"})
# The sandbox's own globals, which no tool hides.
HELPERS = frozenset({"shell", "list_tools", "get_tool_info", "call_tool", "ToolError", "ToolDenied", "ShellError"})


def _py(t: dict) -> str | None:
    """The Python path of index entry t, as the host decided it; None when
    it has none (such a tool has no global: Registry.add)."""
    py = t.get("py")
    return py if isinstance(py, str) and py else None


class Tool:
    """A tool, a namespace of tools (stripe, stripe.charges), or both."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._info: dict | None = None
        self._children: dict[str, Tool] = {}

    def __call__(self, *args, **kwargs):
        if self._info is None:
            names = ", ".join(sorted(self._children))
            raise TypeError(f"{self._path} is a namespace of tools, not a tool (it holds: {names})")
        return invoke(self._info, self._path, args, kwargs)

    def __getattr__(self, name: str):
        try:
            return self.__dict__["_children"][name]
        except KeyError:
            pass
        names = ", ".join(sorted(self.__dict__.get("_children", {}))) or "nothing"
        raise AttributeError(f"{self.__dict__.get('_path', 'tool')} has no tool {name!r} (it holds: {names})")

    def __dir__(self):
        return sorted(self._children)

    def __repr__(self) -> str:
        if self._info is not None:
            return f"<tool {self._info['name']}: {self._info['description'][:60]!r}>"
        return f"<tools {self._path}: {', '.join(sorted(self._children))}>"


class _LazyTool(Tool):
    """A Tool of a run whose tools are deferred (Registry.root), made from
    the index entries under its path, each with a Python path: its own
    tool is the first of them whose path is the path itself, and a member
    is made when first read, from the entries whose next path part it is;
    all members when a script lists them. _rest holds (entry, offset of
    the next part) in order."""

    def __init__(self, path: str, entries: list) -> None:
        super().__init__(path)
        rest = []
        for t, start in entries:
            if start > len(t["py"]):
                if self._info is None:
                    self._info = Registry.info(t)
            else:
                rest.append((t, start))
        self._rest = rest

    def _grow(self, key: str) -> Tool | None:
        children = self.__dict__["_children"]
        node = children.get(key)
        if node is not None or not self._rest:
            return node
        n = len(key)
        mine = []
        for t, start in self._rest:
            py = t["py"]
            end = start + n
            if (len(py) == end or py[end:end + 1] == ".") and py.startswith(key, start):
                mine.append((t, end + 1))
        if not mine:
            return None
        node = children[key] = _LazyTool(self._path + "." + key, mine)
        return node

    def _grow_all(self) -> None:
        children = self.__dict__["_children"]
        groups: dict[str, list] = {}
        for t, start in self._rest:
            py = t["py"]
            end = py.find(".", start)
            if end < 0:
                end = len(py)
            groups.setdefault(py[start:end], []).append((t, end + 1))
        self._rest = []
        for key, mine in groups.items():
            if key not in children:
                children[key] = _LazyTool(self._path + "." + key, mine)

    def __call__(self, *args, **kwargs):
        if self._info is None:
            self._grow_all()
        return super().__call__(*args, **kwargs)

    def __getattr__(self, name: str):
        if "_rest" in self.__dict__:
            node = self._grow(name)
            if node is not None:
                return node
            if not name.startswith("__"):  # not a protocol probe (copy, pickle)
                self._grow_all()
        return super().__getattr__(name)

    def __dir__(self):
        self._grow_all()
        return super().__dir__()

    def __repr__(self) -> str:
        self._grow_all()
        return super().__repr__()


def _params_json(info: dict, path: str, args: tuple, kwargs: dict) -> str:
    if len(args) > 1:
        raise TypeError(f"{path}() takes keyword arguments or one dict of them, not {len(args)} positional arguments")
    params: dict
    if args:
        first = calls.resolve(args[0])
        if first is None:
            params = {}
        elif isinstance(first, dict):
            params = dict(first)
        else:
            raise TypeError(f"{path}() takes keyword arguments or one dict of them, not a {type(calls.resolve(first)).__name__}")
        for k in kwargs:
            if k in params:
                raise TypeError(f"{path}() got {k!r} both in the dict and as a keyword argument")
        params.update(kwargs)
    else:
        params = kwargs
    try:
        return _json_dumps(params, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_encode_default)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{path}(): {_bad_param(params)}: {e}") from None


def _encode_default(o):
    if type(o) is calls.ToolCall:
        return o.result()
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _bad_param(params: dict) -> str:
    for k, v in params.items():
        try:
            _json_dumps(v, allow_nan=False, default=_encode_default)
        except (TypeError, ValueError):
            return f"parameter {k!r} cannot be sent as JSON"
    return "the parameters cannot be sent as JSON"


def invoke(info: dict, path: str, args: tuple, kwargs: dict):
    """Makes the call: its result, or its ToolCall while an event loop
    runs (calls.call)."""
    return calls.call(info["id"], _params_json(info, path, args, kwargs))


class _LazyInfo(dict):
    """A tool's info whose description and parameters are read from its
    info file (the host's ToolInfo JSON) when first asked for, so a run
    pays only for the tools a script looks into."""

    def __init__(self, id: str, name: str, path: str) -> None:
        super().__init__(id=id, name=name)
        self._path = path

    def __missing__(self, key: str):
        if key not in ("description", "parameters"):
            raise KeyError(key)
        try:
            with open(self._path, encoding="utf-8") as f:
                full = _json_loads(f.read())
        except (OSError, ValueError):
            full = {}
        if not isinstance(full, dict):
            full = {}
        schema = full.get("inputSchema")
        self["description"] = full.get("description") or ""
        self["parameters"] = schema if schema is not None else {"type": "object", "properties": {}}
        return self[key]


class Registry:
    """The run's tools, by registered name and by global.

    A run handed its tool list as a file (defer) reads it the first time
    anything here is asked for: a global name the script's namespace and
    the builtins lack (LazyBuiltins), or a helper such as list_tools."""

    def __init__(self) -> None:
        self._by_name: dict[str, dict] = {}
        self._paths: dict[str, str] = {}  # registered name -> Python path, for those with a global
        self._roots: dict[str, Tool] = {}
        self._pending: str | None = None
        self._entries: list[dict] | None = None
        self._absent: set[str] = set()  # names root found no tool for

    @property
    def by_name(self) -> dict[str, dict]:
        self.load()
        return self._by_name

    @property
    def paths(self) -> dict[str, str]:
        self.load()
        return self._paths

    @property
    def roots(self) -> dict[str, Tool]:
        self.load()
        return self._roots

    def defer(self, path: str) -> None:
        self._pending = path

    def load(self) -> None:
        """Reads the deferred tool list, once; a file that cannot be read
        means no tools."""
        path = self._pending
        if path is None:
            return
        tools = self.entries()
        self._pending = None
        self._entries = None
        for t in tools:
            self.add(t)
        for root, node in self._roots.items():
            setattr(builtins, root, node)

    def entries(self) -> list[dict]:
        """The deferred tool list, read once: the index file's entries that
        are objects; a file that cannot be read means no tools."""
        if self._entries is None:
            try:
                with open(self._pending or "", encoding="utf-8") as f:
                    tools = _json_loads(f.read())
            except (OSError, ValueError):
                tools = []
            self._entries = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
        return self._entries

    def root(self, name: str) -> Tool | None:
        """The global `name` of the deferred tools, without installing
        them all: the tree of the tools whose first name part is name, its
        members made as they are read (_LazyTool); None if there is none.
        The same tree add makes for them, which depends on those tools
        alone."""
        if (name in HELPERS or (hasattr(builtins, name) and name not in _YIELDING)
                or name == "tools" or name in self._absent):
            return None
        n = len(name)
        mine = []
        for t in self.entries():
            py = _py(t)
            if py is not None and (len(py) == n or py[n:n + 1] == ".") and py.startswith(name) and isinstance(t.get("name"), str):
                mine.append((t, n + 1))
        node = _LazyTool(name, mine)
        if node._info is None and not node._rest:
            self._absent.add(name)
            return None
        return node

    @staticmethod
    def info(t: dict) -> dict | None:
        """The info of index entry t, as add records it; None without a name."""
        name = t.get("name")
        if not isinstance(name, str) or not name:
            return None
        schema = t.get("inputSchema")
        method = t.get("method")
        info = {
            # The method a call is checked and sent as: "mcp:<name>", or what
            # the host says (tools of mounted MCP servers).
            "id": method if isinstance(method, str) and method else "mcp:" + name,
            "name": name,
            "description": t.get("description") or "",
            "parameters": schema if schema is not None else {"type": "object", "properties": {}},
        }
        if isinstance(t.get("info"), str):
            info = _LazyInfo(info["id"], name, t["info"])
        return info

    def add(self, t: dict) -> None:
        name = t.get("name")
        if not isinstance(name, str) or not name or name in self._by_name:
            return
        info = self.info(t)
        assert info is not None
        self._by_name[name] = info
        py = _py(t)
        if py is None:
            return
        parts = py.split(".")
        root = parts[0]
        if root == "tools" and len(parts) > 1:
            return  # the tools global keeps its name (a tool named just "tools" takes it)
        if root not in self._roots and (root in HELPERS or (hasattr(builtins, root) and root not in _YIELDING)):
            return
        node = self._roots.get(root)
        if node is None:
            node = self._roots[root] = Tool(root)
        for i, part in enumerate(parts[1:], 1):
            child = node._children.get(part)
            if child is None:
                child = node._children[part] = Tool(".".join(parts[: i + 1]))
            node = child
        if node._info is not None:
            return  # a.b and a_b style clash: the first registered keeps it
        node._info = info
        self._paths[name] = ".".join(parts)

    def find(self, name: str) -> dict | None:
        name = str(name)
        if name in self.by_name:
            return self.by_name[name]
        for info in self.by_name.values():
            if info["id"] == name:
                return info
        for reg, path in self.paths.items():
            if path == name:
                return self.by_name[reg]
        return None


registry = Registry()


def list_tools() -> list[str]:
    """The tools callable by name in this script, as Python paths."""
    return list(registry.paths.values())


def get_tool_info(name: str) -> dict | None:
    """A tool's id, name, description and JSON Schema of its parameters, by
    Python path or registered name; None for an unknown name."""
    info = registry.find(name)
    return None if info is None else dict(info, description=info["description"], parameters=info["parameters"])


def call_tool(name: str, params: dict | None = None, /, **kwargs):
    """Calls a tool by its registered name (or Python path)."""
    info = registry.find(name)
    if info is None:
        raise NameError(f"Unknown tool: {name} (list_tools() shows the tools available)")
    args = () if params is None else (params,)
    return invoke(info, str(name), args, kwargs)


def _call_of(info: dict) -> str:
    """How a script calls the tool: its Python path, or call_tool(name)."""
    path = registry.paths.get(info["name"])
    return path if path is not None else f"call_tool({info['name']!r})"


def _declaration_of(info: dict) -> str:
    """A tool's Python declaration, as the host rendered it into the file
    beside its info file (<n>.decl: TypeScript, a NUL, Python); else, for a
    tool it has none of, its call, description and input schema as
    comments."""
    path = getattr(info, "_path", None)
    if isinstance(path, str) and path.endswith(".json"):
        try:
            with open(path[:-5] + ".decl", encoding="utf-8") as f:
                _typescript, nul, python = f.read().partition("\x00")
        except (OSError, ValueError):
            nul = python = ""
        if nul and python:
            return python
    description = info["description"]
    lines = [f"# {_call_of(info)}(...)"]
    lines += ["# " + line for line in str(description or "").splitlines()]
    lines.append("# parameters (JSON Schema): " + _json_dumps(info["parameters"]))
    return "\n".join(lines) + "\n"


def _found(query: str, limit: int | None) -> list[dict]:
    """[{name, description, call}] of the tools the host finds for query
    (tools_search: ranked by gocore/toolcat, best first; "" finds every
    tool, in their order), at most limit, the description its first line."""
    hits = calls.ask("tools_search", _json_dumps({"query": query}))
    found = []
    for hit in hits[:limit] if isinstance(hits, list) else []:
        info = registry.by_name.get(hit.get("name")) if isinstance(hit, dict) else None
        if info is not None:
            found.append({"name": info["name"], "description": hit.get("description") or "", "call": _call_of(info)})
    return found


class ToolFinder:
    """The `tools` global: finding and calling tools by name."""

    def search(self, query: str = "", limit: int = 20) -> list[dict]:
        """[{name, description, call}] of the tools whose name or
        description has every word of query, best first, at most limit."""
        if not isinstance(query, str):
            raise TypeError("tools.search takes words as a string")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise ValueError(f"tools.search: limit must be a positive int, not {limit!r}")
        return _found(query, limit)

    def describe(self, name: str) -> str:
        """The tool's Python declaration: its signature, the TypedDicts it
        uses and its docstring, as the host rendered it (get_tool_info
        gives its JSON Schema)."""
        return _declaration_of(self._lookup(name))

    def list(self) -> list[dict]:
        """[{name, description, call}] of every tool."""
        return _found("", None)

    def call(self, name: str, params: dict | None = None, /, **kwargs):
        """Calls a tool by name: the same as its function."""
        info = self._lookup(name)
        args = () if params is None else (params,)
        return invoke(info, str(name), args, kwargs)

    @staticmethod
    def _lookup(name) -> dict:
        info = registry.find(name) if isinstance(name, str) else None
        if info is None:
            shown = name if isinstance(name, str) else f"a {type(name).__name__} (tool names are strings)"
            raise NameError(f"Unknown tool: {shown} (tools.search() finds tools)")
        return info

    def __repr__(self) -> str:
        return f"<tools: {len(registry.by_name)} (tools.search(words), tools.describe(name), tools.list(), tools.call(name, ...))>"


finder = ToolFinder()


def install(tools: list, namespace: dict) -> None:
    for t in tools:
        if isinstance(t, dict):
            registry.add(t)
    for root, node in registry.roots.items():
        namespace[root] = node
        setattr(builtins, root, node)
    # A tool of the script's own named "tools" keeps the name.
    if "tools" not in registry.roots:
        namespace["tools"] = finder


class LazyBuiltins(dict):
    """The builtins of a script whose tools are deferred: a name found
    nowhere else is looked up in the tool list (Registry.root, which makes
    that one global) and is a tool, or stays unknown (NameError, as ever). CPython looks names up in a
    builtins mapping that is not exactly a dict through __getitem__, so
    __missing__ sees every miss. The builtins a tool may replace
    (_YIELDING) and the `tools` global wait here until then too."""

    def __missing__(self, name: str):
        if name == "tools" or registry._pending is None:
            registry.load()
            node = registry._roots.get(name)
        else:
            node = registry.root(name)
        if node is not None:
            self[name] = node
            return node
        if name == "tools":
            self[name] = finder
            return finder
        if name in _YIELDING and hasattr(builtins, name):
            value = getattr(builtins, name)
            self[name] = value
            return value
        raise KeyError(name)

    def __getattr__(self, name: str):
        # __builtins__.len and the like, as with the builtins module.
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"module 'builtins' has no attribute {name!r}") from None


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    """The script's __import__ while its tools are deferred: a module not
    yet loaded may be one of the script's own, whose code finds the tools
    among the real builtins (it does not see LazyBuiltins), so they are
    put there first."""
    if registry._pending is not None and (level or name.partition(".")[0] not in sys.modules):
        registry.load()
    return builtins.__import__(name, globals, locals, fromlist, level)


def install_deferred(path: str, namespace: dict) -> None:
    """Leaves the run's tools in the file at path (wire.Input.ToolIndex)
    until the script first looks up a name nobody defined or imports a
    module: namespace gets a LazyBuiltins of the builtins, without those a
    tool could replace."""
    registry.defer(path)
    lazy = LazyBuiltins(builtins.__dict__)
    for name in _YIELDING:
        lazy.pop(name, None)
    lazy["__import__"] = _import
    namespace["__builtins__"] = lazy

