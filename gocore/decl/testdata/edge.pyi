from typing import Any, Literal, Never, NotRequired, TypedDict, overload

PropertyNamesInputNested = TypedDict("PropertyNamesInputNested", {
    "if": str,
    "ok": NotRequired[str],
})

PropertyNamesInput = TypedDict("PropertyNamesInput", {
    "my-key": str,
    "class": NotRequired[int],
    "__proto__": NotRequired[bool],
    "__private": NotRequired[str],
    "123": str,
    # a member named "" is left out: a TypedDict cannot name it
    "with space": NotRequired[str],
    "quote\"d": NotRequired[str],
    "nested": NotRequired[PropertyNamesInputNested],
})

class TypesInputArrayOfUnionsItemOption3(TypedDict):
    k: NotRequired[str]

class TypesInputPropsAndMap(TypedDict):
    a: NotRequired[str]

class TypesInputPropsAndOpen(TypedDict):
    a: NotRequired[str]

class TypesInputAllOf(TypedDict):
    a: str
    b: NotRequired[int]

class TypesInputBaseAndOneOfOption1(TypedDict):
    kind: NotRequired[str]
    a: str

class TypesInputBaseAndOneOfOption2(TypedDict):
    kind: NotRequired[str]
    b: str

class TypesInputOnlyRequiredAlts(TypedDict):
    a: NotRequired[str]
    b: NotRequired[str]

class RefsNode(TypedDict):
    value: NotRequired[int]
    next: NotRequired[RefsNode]

class RefsEvenOdd(TypedDict):
    even: NotRequired[RefsEven]

class RefsEven(TypedDict):
    odd: NotRequired[RefsEvenOdd]

type RefsList = list[str | RefsList]

class RefsInput(TypedDict):
    old: NotRequired[str]
    """From definitions."""
    escaped: NotRequired[int]
    node: NotRequired[RefsNode]
    even: NotRequired[RefsEven]
    nested_list: NotRequired[RefsList]
    by_pointer: NotRequired[str]
    remote: NotRequired[Any]
    missing: NotRequired[Any]
    self: NotRequired[RefsInput]

class RootUnionInputById(TypedDict):
    id: int

class RootUnionInputByName(TypedDict):
    name: str

class WithOutputOutput(TypedDict):
    ok: bool

class WeirdToolInput(TypedDict):
    x: NotRequired[str]

class ClassInput(TypedDict):
    x: NotRequired[str]

class PrintInput(TypedDict):
    x: NotRequired[str]

class ToolsSearchInput(TypedDict):
    x: NotRequired[str]

class AnyThingInput(TypedDict):
    x: NotRequired[str]

class XInitInput(TypedDict):
    x: NotRequired[str]

class EmojiCafInput(TypedDict):
    x: NotRequired[str]

class StripeInput(TypedDict):
    x: NotRequired[str]

async def Math(*, x: str = ...) -> Any:
    """A JavaScript builtin's name."""

async def help(*, x: str = ...) -> Any:
    """A Python builtin that yields to a tool."""

async def fetch(*, x: str = ...) -> Any:
    """A JavaScript convenience that yields to a tool."""

async def a_b(*, x: str = ...) -> Any:
    """Hyphen becomes underscore."""

class ns:
    @staticmethod
    async def get_thing(*, x: str = ...) -> Any:
        """A hyphenated member."""

    class deep:
        @staticmethod
        async def er(*, x: str = ...) -> Any:
            """Two dots: JavaScript member deep_er, Python ns.deep.er."""

class c:
    @staticmethod
    async def d(*, x: str = ...) -> Any:
        """Takes the JavaScript global c_d first."""

async def c_d(*, x: str = ...) -> Any:
    """So this one is callTool in JavaScript."""

class stripe:
    @staticmethod
    async def charges(*, x: str = ...) -> Any:
        """Under a tool's name."""

async def no_schema() -> Any:
    """No input schema at all."""

async def null_schema() -> Any:
    """A null input schema."""

async def empty_object() -> Any:
    """No parameters."""

async def hostile_docs(*, q: str = ...) -> Any:
    """Ends a comment */ and a docstring ""\" and has \\N{BULLET} \\x00, a NUL \\u0000, a line
    separator,
    a CRLF and ends with a quote"

    Args:
        q: */ closes; ""\""" five quotes; ends with a backslash \\
    """

async def property_names(params: PropertyNamesInput, /) -> Any:
    """Keys that are no identifiers."""

async def types(
    *,
    s: str,
    n: float = ...,
    i: int = ...,
    b: bool = ...,
    z: None = ...,
    multi: int | str | None = ...,
    openapi_nullable: str | None = ...,
    enum_mixed: Literal["a", 1, True] | float | None = ...,
    enum_floats: float = ...,
    const_true: Literal[True] = ...,
    const_obj: Any = ...,
    enum_objs: dict[str, Any] = ...,
    anything: Any = ...,
    nothing: Never = ...,
    everything: Any = ...,
    bad_type: Any = ...,
    tuple: list[str | int] = ...,
    tuple_rest: list[str | bool] = ...,
    draft4_tuple: list[Any] = ...,
    array_any: list[Any] = ...,
    array_of_unions: list[str | list[int] | TypesInputArrayOfUnionsItemOption3] = ...,
    map: dict[str, int] = ...,
    open_map: dict[str, Any] = ...,
    closed_empty: dict[str, Never] = ...,
    props_and_map: TypesInputPropsAndMap = ...,
    props_and_open: TypesInputPropsAndOpen = ...,
    pattern: dict[str, str | float] = ...,
    all_of: TypesInputAllOf = ...,
    all_of_mixed: str = ...,
    base_and_one_of: TypesInputBaseAndOneOfOption1 | TypesInputBaseAndOneOfOption2 = ...,
    only_required_alts: TypesInputOnlyRequiredAlts = ...,
    fmt: str = ...,
    deprecated: str = ...,
    big: Literal[1, 100000000000000000000] = ...,
    neg: Literal[-1] = ...,
    huge_number: Any = ...,
) -> Any:
    """Every kind of type.

    Note (input): type "objekt" is no JSON Schema type, so it is typed as unknown.

    Args:
        fmt: When. Format: date-time.
        deprecated: Deprecated.
    """

async def defaults(
    *,
    req: str,
    s: str = "a\"b\\c\n",
    i: int = 3,
    i_float: int = ...,
    n: float = 1000.0,
    b: bool = True,
    z: str | None = None,
    wrong: str = ...,
    obj: dict[str, Any] = ...,
    enum: Literal["x", "y"] = ...,
    enum_ok: Literal["x", "y"] = "y",
) -> Any:
    """Defaults: literals that fit the type are shown.

    Args:
        s: Default: "a\\"b\\\\c\\n".
        i: Default: 3.
        i_float: Default: 3.5.
        n: Default: 1000.0.
        b: Default: true.
        z: Default: null.
        wrong: Default: 5.
        enum: Default: "z".
        enum_ok: Default: "y".
    """

async def refs(
    *,
    old: str = ...,
    escaped: int = ...,
    node: RefsNode = ...,
    even: RefsEven = ...,
    nested_list: RefsList = ...,
    by_pointer: str = ...,
    remote: Any = ...,
    missing: Any = ...,
    self: RefsInput = ...,
) -> Any:
    """Local refs of every kind.

    Note (input): $ref "https://example.com/schema.json" could not be followed, so its type is unknown.

    Note (input): $ref "#/$defs/nope" could not be followed, so its type is unknown.

    Args:
        old: From definitions.
    """

async def root_union(params: RootUnionInputById | RootUnionInputByName, /) -> Any:
    """An input that is not one object."""

async def root_string(params: str, /) -> Any:
    """A schema of a string."""

async def kwargs(*, a: str = ..., kwargs: int = ..., **kwargs_: str) -> Any:
    """Parameters plus any others."""

async def not_json(*, a: Any = ...) -> Any:
    """A schema that is not JSON."""

async def with_output() -> WithOutputOutput:
    """MCP output schema."""

@overload
async def call_tool(name: Literal["weird tool"], params: WeirdToolInput = ..., /) -> Any:
    """A name with a space: callTool / call_tool only."""

@overload
async def call_tool(name: Literal["class"], params: ClassInput = ..., /) -> Any:
    """A reserved word in both languages."""

@overload
async def call_tool(name: Literal["print"], params: PrintInput = ..., /) -> Any:
    """A Python builtin's name."""

@overload
async def call_tool(name: Literal["tools.search"], params: ToolsSearchInput = ..., /) -> Any:
    """Under the tools global: reached by name only."""

@overload
async def call_tool(name: Literal["Any.thing"], params: AnyThingInput = ..., /) -> Any:
    """A namespace named like a typing name."""

@overload
async def call_tool(name: Literal["x.__init__"], params: XInitInput = ..., /) -> Any:
    """A member that Python would mangle."""

@overload
async def call_tool(name: Literal["emoji.café"], params: EmojiCafInput = ..., /) -> Any:
    """Not ASCII."""

@overload
async def call_tool(name: Literal["stripe"], params: StripeInput = ..., /) -> Any:
    """A tool that is also a namespace."""

@overload
async def call_tool(name: str, params: dict[str, Any] | None = None, /, **kwargs: Any) -> Any: ...
