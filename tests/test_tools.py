"""Tools from Python functions and from other frameworks (amla_sandbox.tools);
capability tests run under both reference APIs (tests/_apis.py)."""

import dataclasses
from typing import Optional

import pytest
from _apis import Api, api  # noqa: F401  (api is a fixture)
from amla_sandbox.capabilities import (
    CapabilityError,
    Constraint,
    ConstraintSet,
    ToolCallCap,
)

from amla_sandbox.tools import (
    ToolDefinition,
    capability_from_function,
    create_tool_handler,
    format_tool_descriptions_js,
    from_anthropic_tools,
    from_claude,
    from_langchain,
    from_openai,
    from_openai_tools,
    tool_from_function,
)


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: The first number
        b: The second number
    """
    return a + b


def greet(name: str, excited: bool = False) -> str:
    """Greet someone.

    Args:
        name: The person's name
        excited: Whether to shout
    """
    return f"Hello, {name}{'!!!' if excited else ''}"


def transfer_money(amount: float, to: str) -> dict:
    """Transfer money."""
    return {"ok": True}


def get_weather(city: str) -> dict:
    """Get the weather."""
    return {"city": city}


# -- ToolDefinition -------------------------------------------------------------


def test_tool_definition_round_trip() -> None:
    d = ToolDefinition(name="t", description="d", parameters={"type": "object", "properties": {"x": {"type": "string"}}})
    assert d.to_dict() == {"name": "t", "description": "d", "inputSchema": d.parameters}
    back = ToolDefinition.from_dict(d.to_dict())
    assert (back.name, back.description, back.parameters) == (d.name, d.description, d.parameters)
    assert back == d


def test_tool_definition_from_dict_fallbacks() -> None:
    assert ToolDefinition.from_dict({"name": "a", "description": "b", "parameters": {"p": 1}}).parameters == {"p": 1}
    assert ToolDefinition.from_dict({"name": "a", "description": "b", "inputSchema": {}, "parameters": {"p": 1}}).parameters == {"p": 1}
    assert ToolDefinition.from_dict({"name": "a", "description": "b"}).parameters == {}
    with pytest.raises(KeyError):
        ToolDefinition.from_dict({"name": "a"})
    with pytest.raises(KeyError):
        ToolDefinition.from_dict({"description": "a"})


def test_tool_definition_default_parameters_are_fresh() -> None:
    a, b = ToolDefinition("a", "a"), ToolDefinition("b", "b")
    a.parameters["x"] = 1
    assert b.parameters == {}


# -- tool_from_function -------------------------------------------------------


def test_tool_from_function_add() -> None:
    t = tool_from_function(add)
    assert t.name == "add"
    assert "Add two numbers" in t.description
    assert t.description == "Add two numbers."  # first docstring line only
    assert t.parameters["type"] == "object"
    assert t.parameters["properties"]["a"]["type"] == "number"
    assert t.parameters["properties"]["b"]["type"] == "number"
    assert set(t.parameters["required"]) == {"a", "b"}
    assert t.parameters["properties"]["a"]["description"] == "The first number"


def test_tool_from_function_greet() -> None:
    t = tool_from_function(greet)
    props = t.parameters["properties"]
    assert props["name"]["type"] == "string"
    assert props["excited"]["type"] == "boolean"
    assert t.parameters["required"] == ["name"]
    assert "person's name" in props["name"]["description"]


def test_tool_from_function_without_docstring_or_hints() -> None:
    def mystery(x, y=1):
        return x

    t = tool_from_function(mystery)
    assert t.description == "Call mystery"
    assert t.parameters == {
        "type": "object",
        "properties": {"x": {"type": "string"}, "y": {"type": "string"}},
        "required": ["x"],
    }


def test_tool_from_function_no_required_key_when_all_defaulted() -> None:
    def ping(host: str = "localhost") -> bool:
        """Ping."""
        return True

    assert "required" not in tool_from_function(ping).parameters


def test_tool_from_function_complex_return_type() -> None:
    def lookup(key: str) -> dict[str, list[tuple[int, Optional[str]]]]:
        """Look up."""
        return {}

    assert tool_from_function(lookup).parameters["properties"] == {"key": {"type": "string"}}


def test_tool_from_function_dataclass_param() -> None:
    @dataclasses.dataclass
    class OrderLine:
        sku: str
        quantity: int

    def place_order(line: OrderLine) -> str:
        """Place an order."""
        return "ok"

    schema = tool_from_function(place_order).parameters["properties"]["line"]
    assert schema["type"] == "object"
    assert schema["properties"]["sku"]["type"] == "string"
    assert schema["properties"]["quantity"]["type"] == "integer"


def test_tool_from_function_optional_and_lists() -> None:
    def search(query: str, limit: Optional[int] = None, tags: list[str] = []) -> list:  # noqa: B006
        """Search."""
        return []

    p = tool_from_function(search).parameters
    assert p["properties"]["limit"] == {"type": "integer", "nullable": True}
    assert p["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert p["required"] == ["query"]


def test_tool_from_function_pep604_optional_is_nullable() -> None:
    # docs/compatibility.md D6: 0.2.8 types `T | None` like Optional[T].
    def f(a: int | None = None, b: list[str] | None = None, c: int | str = 0) -> None:
        """F."""

    props = tool_from_function(f).parameters["properties"]
    assert props == {
        "a": {"type": "integer", "nullable": True},
        "b": {"type": "array", "items": {"type": "string"}, "nullable": True},
        "c": {"type": "string"},
    }
    assert format_tool_descriptions_js([f]) == "## Available Functions\n\n### `f({a?: integer, b?: array, c?: string})`\nF.\n"


def test_tool_from_function_pydantic_param() -> None:
    pydantic = pytest.importorskip("pydantic")

    class User(pydantic.BaseModel):
        name: str
        age: int

    def create_user(user: User) -> str:
        """Create a user."""
        return "ok"

    schema = tool_from_function(create_user).parameters["properties"]["user"]
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"name", "age"}


def test_tool_from_function_skips_self_and_cls_and_emits_varargs() -> None:
    class Api:
        def call(self, path: str, *args, **kwargs) -> None:
            """Call the API."""

    p = tool_from_function(Api.call).parameters
    assert list(p["properties"]) == ["path", "args", "kwargs"]
    assert p["properties"]["args"] == {"type": "string"}
    assert p["required"] == ["path", "args", "kwargs"]


def test_tool_from_function_unresolvable_hint_is_untyped() -> None:
    def f(x: "NoSuchType", y: int) -> None:  # noqa: F821
        """F."""

    p = tool_from_function(f).parameters
    assert p["properties"] == {"x": {"type": "string"}, "y": {"type": "integer"}}


# -- capability_from_function -------------------------------------------------


def test_capability_from_function_defaults(api: Api) -> None:
    cap = capability_from_function(add)
    # The library builds ToolCallCap (0.2.8); it is a MethodCapability for 0.1.7 code too.
    assert type(cap) is ToolCallCap and isinstance(cap, api.cls)
    assert cap.key() == "cap:tool-call:mcp:add"
    assert cap == api.cls("mcp:add")
    assert cap.method_pattern == "mcp:add"
    assert cap.constraints.is_empty()
    assert cap.max_calls is None


def test_capability_from_function_with_constraints() -> None:
    cs = ConstraintSet([Constraint.le("amount", 1000)])
    cap = capability_from_function(transfer_money, constraints=cs, max_calls=10)
    assert cap.method_pattern == "mcp:transfer_money"
    assert cap.constraints == cs
    assert len(cap.constraints) == 1
    assert cap.max_calls == 10
    cap.validate_call("mcp:transfer_money", {"amount": 500, "to": "bob"})
    with pytest.raises(CapabilityError):
        cap.validate_call("mcp:transfer_money", {"amount": 5000, "to": "bob"})
    with pytest.raises(CapabilityError):
        cap.validate_call("mcp:get_weather", {"amount": 1})


def test_capability_from_function_validates_its_own_tool() -> None:
    cap = capability_from_function(get_weather)
    cap.validate_call("mcp:get_weather", {"city": "SF"})
    with pytest.raises(CapabilityError):
        cap.validate_call("mcp:transfer_money", {})


# -- create_tool_handler ------------------------------------------------------


def test_create_tool_handler() -> None:
    handler = create_tool_handler([add, greet])
    assert handler("add", {"a": 1, "b": 2}) == 3
    assert handler("mcp:add", {"a": 1, "b": 2}) == 3
    assert handler("greet", {"name": "Alice"}) == "Hello, Alice"
    assert handler("greet", {"name": "Bob", "excited": True}) == "Hello, Bob!!!"


def test_create_tool_handler_unknown() -> None:
    handler = create_tool_handler([add])
    with pytest.raises(ValueError, match="Unknown tool: mcp:nope"):
        handler("mcp:nope", {})
    with pytest.raises(ValueError, match="Unknown tool"):
        handler("nope", {})


def test_create_tool_handler_returns_coroutine_unawaited() -> None:
    async def fetch(url: str) -> str:
        return url

    result = create_tool_handler([fetch])("fetch", {"url": "u"})
    import asyncio

    assert asyncio.iscoroutine(result)
    assert asyncio.run(result) == "u"


def test_function_handler_is_the_one_name_to_function_handler() -> None:
    from amla_sandbox.sandbox_tool import SandboxTool
    from amla_sandbox.tools.handlers import FunctionHandler

    functions = {"add": add}
    handler = FunctionHandler(functions)
    assert handler("mcp:add", {"a": 1, "b": 2}) == 3
    assert handler.lookup("add") is add
    functions["greet"] = greet  # the map is used as given, not copied
    assert handler("greet", {"name": "Al"}) == "Hello, Al"
    with pytest.raises(ValueError, match=r"^Unknown tool: 'nope'$"):
        handler("mcp:nope", {})
    # create_tool_handler keeps the reference's text: the method as received.
    with pytest.raises(ValueError, match=r"^Unknown tool: mcp:nope$"):
        create_tool_handler([add])("mcp:nope", {})
    assert isinstance(create_tool_handler([add]), FunctionHandler)
    tool = SandboxTool.from_functions([add])
    try:
        assert isinstance(tool.sandbox.tool_handler, FunctionHandler)
        assert tool.sandbox.tool_handler.functions is tool._tool_map
    finally:
        tool.close()


# -- format_tool_descriptions_js ----------------------------------------------


def test_format_tool_descriptions_js_example() -> None:
    def g(x: str):
        pass

    assert format_tool_descriptions_js([g]) == "## Available Functions\n\n### `g({x: string})`\nNo description\n"


def test_format_tool_descriptions_js_types_and_optional() -> None:
    @dataclasses.dataclass
    class Box:
        w: int

    def ship(box: Box, express: bool = False, tags: list[str] | None = None, note: Optional[str] = None):
        """Ship a box.

        More text.
        """

    text = format_tool_descriptions_js([add, ship])
    assert text.split("\n") == [
        "## Available Functions",
        "",
        "### `add({a: number, b: number})`",
        "Add two numbers.",
        "",
        "### `ship({box: object, express?: boolean, tags?: array, note?: string})`",
        "Ship a box.",
        "",
    ]


def test_format_tool_descriptions_js_empty() -> None:
    assert format_tool_descriptions_js([]) == "## Available Functions\n"


# -- OpenAI ingestion -------------------------------------------------------------

OPENAI_WRAPPED = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]

OPENAI_FLAT = [
    {
        "name": "search",
        "description": "Search documents",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    }
]


def test_from_openai_wrapped_form() -> None:
    funcs, defs = from_openai_tools(OPENAI_WRAPPED)
    assert len(funcs) == len(defs) == 1
    d = defs[0]
    assert d.name == "get_weather"
    assert d.description == "Get the weather for a city"
    assert d.parameters == OPENAI_WRAPPED[0]["function"]["parameters"]
    assert d.parameters["required"] == ["city"]
    assert funcs[0].__name__ == "get_weather"


def test_from_openai_flat_form() -> None:
    funcs, defs = from_openai_tools(OPENAI_FLAT)
    assert defs[0].name == "search"
    assert defs[0].description == "Search documents"
    assert defs[0].parameters["required"] == ["q"]


def test_from_openai_handler_is_returned_as_is() -> None:
    def my_weather(city: str) -> dict:
        return {"city": city, "temp": 20}

    funcs, _ = from_openai_tools(OPENAI_WRAPPED, handlers={"get_weather": my_weather})
    # A function named after its tool, calling the handler; the handler itself
    # is not renamed (one function may serve several tools).
    assert funcs[0].__name__ == "get_weather" and funcs[0].__wrapped__ is my_weather
    assert my_weather.__name__ == "my_weather"
    assert funcs[0](city="Paris") == {"city": "Paris", "temp": 20}
    same_name, _ = from_openai_tools(OPENAI_WRAPPED, handlers={"get_weather": funcs[0]})
    assert same_name[0] is funcs[0]  # already named right: passed through


def test_from_openai_placeholder_raises() -> None:
    funcs, _ = from_openai_tools(OPENAI_FLAT)
    assert funcs[0].__name__ == "search"
    assert funcs[0].__doc__ == "Search documents"
    with pytest.raises(NotImplementedError, match="No handler provided") as info:
        funcs[0](q="x")
    assert str(info.value) == (
        "No handler provided for tool 'search'. Pass handlers={'search': your_function} to from_openai_tools()."
    )


def test_from_openai_placeholder_schema_when_regenerated() -> None:
    funcs, _ = from_openai_tools(OPENAI_FLAT)
    assert tool_from_function(funcs[0]).parameters == {
        "type": "object",
        "properties": {"_kwargs": {"type": "string"}},
        "required": ["_kwargs"],
    }


def test_from_openai_defaults_and_errors() -> None:
    _, defs = from_openai_tools([{"type": "function", "function": {"name": "bare"}}])
    assert defs[0].description == "Call bare"
    assert defs[0].parameters == {"type": "object", "properties": {}}
    with pytest.raises(KeyError):
        from_openai_tools([{"description": "no name"}])


def test_from_openai_alias() -> None:
    assert from_openai is from_openai_tools


def test_from_openai_bound_method_handler_is_wrapped_and_named() -> None:
    class Service:
        def weather(self, city: str) -> str:
            return city.upper()

    svc = Service()
    funcs, _ = from_openai_tools(OPENAI_WRAPPED, handlers={"get_weather": svc.weather})
    assert funcs[0].__name__ == "get_weather"
    assert funcs[0](city="sf") == "SF"
    assert tool_from_function(funcs[0]).parameters["properties"] == {"city": {"type": "string"}}


# -- Anthropic ingestion ----------------------------------------------------------

CLAUDE_TOOLS = [
    {
        "name": "lookup_order",
        "description": "Look up an order",
        "input_schema": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    },
    {"name": "no_schema"},
]


def test_from_anthropic_tools() -> None:
    def lookup(id: int) -> dict:
        return {"id": id}

    funcs, defs = from_anthropic_tools(CLAUDE_TOOLS, handlers={"lookup_order": lookup})
    assert [d.name for d in defs] == ["lookup_order", "no_schema"]
    assert defs[0].description == "Look up an order"
    assert defs[0].parameters == CLAUDE_TOOLS[0]["input_schema"]
    assert defs[1].description == "Call no_schema"
    assert defs[1].parameters == {"type": "object", "properties": {}}
    assert funcs[0].__name__ == "lookup_order" and funcs[0].__wrapped__ is lookup
    assert funcs[0](id=3) == {"id": 3}
    with pytest.raises(NotImplementedError, match="No handler provided") as info:
        funcs[1]()
    assert "from_anthropic_tools()" in str(info.value)
    assert "handlers={'no_schema': your_function}" in str(info.value)


def test_from_claude_alias() -> None:
    assert from_claude is from_anthropic_tools


# -- LangChain ingestion ----------------------------------------------------------


def test_from_langchain_plain_function() -> None:
    funcs, defs = from_langchain([add])
    assert funcs[0] is add
    assert defs[0].name == "add"
    assert defs[0].description == "Add two numbers."
    assert defs[0].parameters == tool_from_function(add).parameters


def test_from_langchain_object_with_func() -> None:
    def impl(query: str) -> str:
        return query

    class FakeTool:
        name = "search_docs"
        description = "Search the docs\nsecond line"
        func = staticmethod(impl)
        args_schema = None

    funcs, defs = from_langchain([FakeTool()])
    # The tool's own function, called by the tool's name wherever it is passed.
    assert funcs[0] is impl and impl.__name__ == "impl"
    assert tool_from_function(funcs[0]).name == "search_docs"
    assert create_tool_handler(funcs)("mcp:search_docs", {"query": "q"}) == "q"
    assert defs[0].name == "search_docs"
    assert defs[0].description == "Search the docs"
    assert defs[0].parameters == tool_from_function(impl).parameters


def test_from_langchain_object_with_run() -> None:
    class FakeBaseTool:
        name = "calc"
        description = "Calculate"
        args_schema = None

        def _run(self, expression: str, run_manager: object = None) -> str:
            return expression

    tool = FakeBaseTool()
    funcs, defs = from_langchain([tool])
    # The tool's own `_run`, registered under the tool's name, not `_run`; the
    # parameter LangChain passes itself is not one sandbox code passes.
    assert funcs[0] == tool._run and funcs[0].__func__ is FakeBaseTool._run
    assert funcs[0](expression="1+1") == "1+1"
    described = tool_from_function(funcs[0])
    assert described.name == "calc" and described.description == "Calculate"
    assert described.parameters["properties"] == {"expression": {"type": "string"}}
    assert defs[0].name == "calc"
    assert defs[0].description == "Calculate"
    assert defs[0].parameters == {"type": "object", "properties": {}}


def test_from_langchain_returns_the_tools_own_functions_as_the_reference_does() -> None:
    # The reference's tests: a StructuredTool-like and a BaseTool-like mock.
    from unittest.mock import MagicMock

    def underlying_func(x: int) -> int:
        """Double a number."""
        return x * 2

    structured = MagicMock()
    structured.func = underlying_func
    structured.name = "doubler"
    structured.description = "Doubles a number"
    structured.args_schema = None

    def run_impl(query: str) -> str:
        return f"Result: {query}"

    base = MagicMock()
    del base.func
    base._run = run_impl
    base.name = "my_base_tool"
    base.description = "A base tool implementation"
    base.args_schema = None

    funcs, defs = from_langchain([structured, base])
    assert funcs[0] is underlying_func and funcs[1] is run_impl
    assert [d.name for d in defs] == ["doubler", "my_base_tool"]
    assert defs[0].description == "Doubles a number"
    handler = create_tool_handler(funcs)
    assert handler("mcp:doubler", {"x": 4}) == 8
    assert handler("my_base_tool", {"query": "q"}) == "Result: q"
    with pytest.raises(ValueError, match="Unknown tool: underlying_func"):
        handler("underlying_func", {"x": 1})


def test_from_langchain_tools_are_called_by_their_names_in_the_sandbox() -> None:
    from unittest.mock import MagicMock

    from amla_sandbox import create_sandbox_tool

    def underlying_func(x: int) -> int:
        """Double a number."""
        return x * 2

    structured = MagicMock()
    structured.func = underlying_func
    structured.name = "doubler"
    structured.description = "Doubles a number"
    structured.args_schema = None
    funcs, _ = from_langchain([structured])
    with create_sandbox_tool(tools=funcs) as sandbox_tool:
        assert sandbox_tool.run("console.log(await doubler({x: 21}))", "javascript").strip() == "42"
        assert sandbox_tool.run("tool doubler --x 4", "shell").strip() == "8"


def test_one_function_serving_two_langchain_tools_keeps_both_names() -> None:
    def shared(q: str) -> str:
        return q

    class First:
        name = "first"
        description = "one"
        func = staticmethod(shared)
        args_schema = None

    class Second(First):
        name = "second"

    funcs, _ = from_langchain([First(), Second()])
    # The first tool gets the function itself; the second, which cannot carry
    # another name on the same function, gets a wrapper around it.
    assert funcs[0] is shared
    assert funcs[1] is not shared and funcs[1].__wrapped__ is shared
    handler = create_tool_handler(funcs)
    assert handler("first", {"q": "a"}) == "a" and handler("second", {"q": "b"}) == "b"


def test_from_langchain_args_schema_pydantic() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Args(pydantic.BaseModel):
        query: str
        limit: int = 5

    class FakeTool:
        name = "search"
        description = ""
        func = staticmethod(lambda query, limit=5: query)
        args_schema = Args

    _, defs = from_langchain([FakeTool()])
    params = defs[0].parameters
    assert "title" not in params
    assert params["properties"]["query"]["type"] == "string"
    assert params["required"] == ["query"]


def test_from_langchain_description_starting_with_newline_is_empty() -> None:
    def f() -> None:
        """
        Body on the second line.
        """

    _, defs = from_langchain([f])
    assert defs[0].description == ""


def test_from_langchain_rejects_other_objects() -> None:
    with pytest.raises(TypeError, match="Cannot convert tool") as info:
        from_langchain([42])
    assert str(info.value) == (
        "Cannot convert tool of type int. Expected @tool decorated function or BaseTool subclass."
    )


def test_from_langchain_real_tool() -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")

    @lc_tools.tool
    def multiply(x: int, y: int) -> int:
        """Multiply two integers.

        More detail here.
        """
        return x * y

    funcs, defs = from_langchain([multiply])
    assert funcs[0](x=6, y=7) == 42
    assert defs[0].name == "multiply"
    assert defs[0].description.startswith("Multiply two integers")
    assert "\n" not in defs[0].description
    assert defs[0].parameters["properties"]["x"]["type"] == "integer"
    assert set(defs[0].parameters["required"]) == {"x", "y"}
    assert "title" not in defs[0].parameters


def test_ingested_tools_can_be_used_as_callables() -> None:
    funcs, _ = from_openai_tools(OPENAI_FLAT, handlers={"search": lambda q: [q]})
    handler = create_tool_handler(funcs)
    assert handler("mcp:search", {"q": "x"}) == ["x"]


# -- the package layout of both reference versions (docs/compatibility.md) --------------------------------


def test_tools_is_a_package_with_the_reference_submodules() -> None:
    import importlib

    import amla_sandbox.tools as tools

    layout = {
        "conversion": {"tool_from_function", "capability_from_function", "format_tool_descriptions_js"},
        "definition": {"ToolDefinition"},
        "handlers": {"create_tool_handler"},
        "ingest": {"from_langchain", "from_openai_tools", "from_openai", "from_anthropic_tools", "from_claude"},
    }
    assert hasattr(tools, "__path__")
    for sub, names in layout.items():
        module = importlib.import_module(f"amla_sandbox.tools.{sub}")
        for name in names:
            assert getattr(module, name) is getattr(tools, name), (sub, name)
    assert sorted(tools.__all__) == sorted(set().union(*layout.values()))


# -- tools whose name is not their function's name -------------------------------------------------


def test_lambda_needs_a_name() -> None:
    square = lambda x: x * x  # noqa: E731
    for make in (tool_from_function, capability_from_function, format_tool_descriptions_js, create_tool_handler):
        arg = [square] if make in (format_tool_descriptions_js, create_tool_handler) else square
        with pytest.raises(ValueError, match="is a lambda, and a lambda has no name sandbox code can call it by"):
            make(arg)  # type: ignore[operator]
    assert tool_from_function(square, name="square").name == "square"
    assert capability_from_function(square, name="square").method_pattern == "mcp:square"
    with pytest.raises(ValueError, match="non-empty str"):
        tool_from_function(square, name="")


def test_one_function_serves_two_tools() -> None:
    def lookup(**kw: object) -> dict:
        return dict(kw)

    funcs, defs = from_openai_tools(
        [{"name": "find_user", "parameters": {}}, {"name": "find_order", "parameters": {}}],
        handlers={"find_user": lookup, "find_order": lookup},
    )
    assert [f.__name__ for f in funcs] == ["find_user", "find_order"]  # both kept
    assert lookup.__name__ == "lookup"
    assert [d.name for d in defs] == ["find_user", "find_order"]
    handler = create_tool_handler(funcs)
    assert handler("mcp:find_user", {"id": 1}) == {"id": 1} == handler("find_order", {"id": 1})


def test_bound_method_and_async_handlers_keep_their_kind() -> None:
    import asyncio
    import inspect

    class Service:
        def get(self, key: str) -> str:
            return key.upper()

        async def aget(self, key: str) -> str:
            return key.lower()

    svc = Service()
    funcs, _ = from_anthropic_tools([{"name": "get_it"}, {"name": "aget_it"}], handlers={"get_it": svc.get, "aget_it": svc.aget})
    assert funcs[0](key="a") == "A"
    assert inspect.iscoroutinefunction(funcs[1]) and asyncio.run(funcs[1](key="B")) == "b"
    assert tool_from_function(funcs[0]).parameters == {
        "type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"],
    }  # fmt: skip
