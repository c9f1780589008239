"""CodeAct helpers (amla_sandbox.codeact)."""

from __future__ import annotations

import string
import sys
import types
from typing import Any

import pytest

from _apis import Api, api  # noqa: F401  (api is a fixture)

import amla_sandbox
from amla_sandbox import codeact
from amla_sandbox.codeact import (
    JS_CODEACT_PROMPT,
    SandboxFn,
    create_amla_codeact,
    create_amla_sandbox,
    format_tool_descriptions_js,
)


def get_weather(city: str) -> dict:
    """Get the weather for a city."""
    return {"city": city, "temp": 22}


def test_prompt_contents() -> None:
    assert "await fs.writeFile" in JS_CODEACT_PROMPT
    assert "await shell" in JS_CODEACT_PROMPT
    assert "writeFileSync" not in JS_CODEACT_PROMPT
    assert "readFileSync" not in JS_CODEACT_PROMPT


def test_prompt_is_a_template_with_one_field() -> None:
    fields = [f for _, f, _, _ in string.Formatter().parse(JS_CODEACT_PROMPT) if f is not None]
    assert fields == ["tool_descriptions"]
    text = JS_CODEACT_PROMPT.format(tool_descriptions=format_tool_descriptions_js([get_weather]))
    assert "### `get_weather({city: string})`" in text
    assert "await get_weather({ city:" in text
    assert "const { stdout" in text and "jq" in text
    assert "console.log()" in text
    for utility in ("grep", "jq", "tr", "head", "tail", "sort", "uniq", "wc", "cut"):
        assert utility in text


def test_exports() -> None:
    assert set(codeact.__all__) == {
        "JS_CODEACT_PROMPT",
        "SandboxFn",
        "format_tool_descriptions_js",
        "create_amla_sandbox",
        "create_amla_codeact",
    }
    assert codeact.format_tool_descriptions_js is amla_sandbox.tools.format_tool_descriptions_js
    assert amla_sandbox.JS_CODEACT_PROMPT is JS_CODEACT_PROMPT
    assert SandboxFn is not None


def test_create_amla_codeact_requires_langgraph_codeact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langgraph_codeact", None)
    with pytest.raises(ImportError) as info:
        create_amla_codeact("anthropic:claude", [get_weather])
    msg = str(info.value)
    assert "langgraph-codeact is required" in msg
    assert "pip install langgraph-codeact langchain-anthropic" in msg


def fake_codeact_modules(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def init_chat_model(name: str) -> Any:
        seen["model_name"] = name
        return ("model", name)

    def create_codeact(model: Any, *, tools: list[Any], eval_fn: Any, prompt: str) -> Any:
        seen.update(model=model, tools=tools, eval_fn=eval_fn, prompt=prompt)
        return "graph"

    langchain = types.ModuleType("langchain")
    chat_models = types.ModuleType("langchain.chat_models")
    chat_models.init_chat_model = init_chat_model  # type: ignore[attr-defined]
    langchain.chat_models = chat_models  # type: ignore[attr-defined]
    lgc = types.ModuleType("langgraph_codeact")
    lgc.create_codeact = create_codeact  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain", langchain)
    monkeypatch.setitem(sys.modules, "langchain.chat_models", chat_models)
    monkeypatch.setitem(sys.modules, "langgraph_codeact", lgc)
    return seen


def test_create_amla_codeact_wires_create_codeact(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = fake_codeact_modules(monkeypatch)
    assert create_amla_codeact("anthropic:claude-x", (get_weather,)) == "graph"
    assert seen["model_name"] == "anthropic:claude-x"
    assert seen["model"] == ("model", "anthropic:claude-x")
    assert seen["tools"] == [get_weather]
    assert seen["prompt"] == JS_CODEACT_PROMPT.format(tool_descriptions=format_tool_descriptions_js([get_weather]))
    out, new_vars = seen["eval_fn"]("console.log((await get_weather({city: 'Oslo'})).temp)", {"x": 1})
    assert (out, new_vars) == ("22\n", {})


def test_create_amla_codeact_model_object_and_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = fake_codeact_modules(monkeypatch)
    model = object()
    create_amla_codeact(model, [get_weather], prompt="custom")
    assert seen["model"] is model
    assert "model_name" not in seen
    assert seen["prompt"] == "custom"


def test_create_amla_sandbox() -> None:
    fn = create_amla_sandbox([get_weather])
    out, new_vars = fn("const w = await get_weather({city: 'SF'}); console.log(w.city, w.temp);", {})
    assert out == "SF 22\n"
    assert new_vars == {}
    # files persist between turns, variables do not
    fn("await fs.writeFile('/workspace/n.txt', '7'); var kept = 1;", {})
    out, _ = fn("console.log(await fs.readFile('/workspace/n.txt'), typeof kept)", {})
    assert out == "7 undefined\n"


def test_create_amla_sandbox_errors_are_text() -> None:
    fn = create_amla_sandbox([])
    out, _ = fn("throw new Error('nope')", {})
    assert "[stderr]:" in out and "nope" in out
    assert fn("", {}) == ("(no output)", {})


def test_create_amla_sandbox_capabilities(api: Api) -> None:
    fn = create_amla_sandbox([get_weather], capabilities=[api.cls("mcp:other")])
    out, _ = fn("try { await get_weather({city: 'SF'}) } catch (e) { console.log('denied') }", {})
    assert out == "denied\n"
