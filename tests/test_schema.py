"""JSON Schema for type hints (amla_sandbox.schema), quirks included."""

import dataclasses
import typing
from typing import Any, List, Optional, Union

import pytest

from amla_sandbox.schema import dataclass_to_schema, extract_param_description, python_type_to_json_schema


@pytest.mark.parametrize(
    "hint,schema",
    [
        (type(None), {"type": "null"}),
        (str, "string"),
        (int, "integer"),
        (float, "number"),
        (bool, "boolean"),
        (list, "array"),
        (dict, "object"),
        (Optional[str], {"type": "string", "nullable": True}),
        (Union[int, None], {"type": "integer", "nullable": True}),
        (Optional[list[int]], {"type": "array", "items": {"type": "integer"}, "nullable": True}),
        (Union[int, str], "string"),
        (Union[int, str, None], "string"),
        (str | None, {"type": "string", "nullable": True}),  # PEP 604 as Optional (0.2.8, docs/compatibility.md D6)
        (int | None, {"type": "integer", "nullable": True}),
        (None | int, {"type": "integer", "nullable": True}),
        (list[str] | None, {"type": "array", "items": {"type": "string"}, "nullable": True}),
        (dict[str, int] | None, {"type": "object", "nullable": True}),
        (int | str | None, "string"),
        (int | str, "string"),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (List[int], {"type": "array", "items": {"type": "integer"}}),
        (List, "array"),
        (list[Optional[str]], {"type": "array", "items": {"type": "string", "nullable": True}}),
        (list[list[int]], {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}),
        (dict[str, int], "object"),
        (typing.Dict[str, Any], "object"),
        (Any, "string"),
        (tuple, "string"),
        (tuple[int, int], "string"),
        (object, "string"),
    ],
)
def test_python_type_to_json_schema(hint: Any, schema: Any) -> None:
    assert python_type_to_json_schema(hint) == schema


def test_custom_class_is_string() -> None:
    class Thing:
        pass

    assert python_type_to_json_schema(Thing) == "string"


@dataclasses.dataclass
class LineItem:
    sku: str
    quantity: int
    note: Optional[str] = None
    tags: list[str] = dataclasses.field(default_factory=list)


def test_dataclass_schema() -> None:
    assert python_type_to_json_schema(LineItem) == dataclass_to_schema(LineItem)
    assert dataclass_to_schema(LineItem) == {
        "type": "object",
        "properties": {
            "sku": {"type": "string"},
            "quantity": {"type": "integer"},
            "note": {"type": "string", "nullable": True},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["sku", "quantity"],
    }


def test_dataclass_all_defaults_has_no_required() -> None:
    @dataclasses.dataclass
    class Opts:
        verbose: bool = False

    assert dataclass_to_schema(Opts) == {"type": "object", "properties": {"verbose": {"type": "boolean"}}}


def test_dataclass_string_annotations_are_strings() -> None:
    @dataclasses.dataclass
    class Point:
        x: "int"
        y: "float" = 0.0

    assert dataclass_to_schema(Point) == {
        "type": "object",
        "properties": {"x": {"type": "string"}, "y": {"type": "string"}},
        "required": ["x"],
    }


def test_nested_dataclass() -> None:
    @dataclasses.dataclass
    class Order:
        item: LineItem

    schema = dataclass_to_schema(Order)
    assert schema["properties"]["item"]["properties"]["sku"] == {"type": "string"}


def test_pydantic_model_schema_is_model_json_schema() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Person(pydantic.BaseModel):
        name: str
        age: int

    schema = python_type_to_json_schema(Person)
    assert schema == Person.model_json_schema()
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"name", "age"}
    assert schema["title"] == "Person"  # kept unchanged


DOC = """Transfer money.

Longer text: with a colon.

Args:
    amount: How much to send
    currency: ISO code, e.g. USD
    memo (str): typed style is not recognised
    note:
Returns:
    receipt: the receipt
"""


@pytest.mark.parametrize(
    "name,description",
    [
        ("amount", "How much to send"),
        ("currency", "ISO code, e.g. USD"),
        ("memo", None),
        ("note", ""),
        ("receipt", None),  # in Returns:, after the section ended
        ("missing", None),
    ],
)
def test_extract_param_description(name: str, description: str | None) -> None:
    assert extract_param_description(DOC, name) == description


def test_extract_param_description_edge_cases() -> None:
    assert extract_param_description(None, "x") is None
    assert extract_param_description("", "x") is None
    assert extract_param_description("x: before any Args section", "x") is None
    assert extract_param_description("ARGS:\n  x: upper-case header", "x") == "upper-case header"
