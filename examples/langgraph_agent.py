"""A LangGraph 1.x agent whose one tool is a sandbox.

`langchain.agents.create_agent` is the agent constructor LangGraph 1.x
recommends (`langgraph.prebuilt.create_react_agent` is deprecated). The
model here is scripted, so the example runs offline and without an API key;
swap in a real one, e.g. `create_agent("anthropic:claude-sonnet-4-5", ...)`.

Needs: pip install "langchain>=1" "langgraph>=1"
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from amla_sandbox import create_sandbox_tool

TEMPERATURES = {"SF": 62, "Tokyo": 75, "Paris": 71}


def get_weather(city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "temp": TEMPERATURES[city]}


class ScriptedModel(GenericFakeChatModel):
    """Replays its messages in order, whatever it is asked: a stand-in for a
    real chat model. A real model would see the tool schema that
    bind_tools() passes; this one ignores it."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


# What a model would write: one script doing the work of several tool calls.
SCRIPT = """
const cities = ["SF", "Tokyo", "Paris"];
const all = await Promise.all(cities.map(city => get_weather({city})));
console.log(all.filter(w => w.temp > 70).map(w => w.city).join(", "));
"""


def main() -> None:
    with create_sandbox_tool(tools=[get_weather], max_calls={"get_weather": 10}) as sandbox:
        model = ScriptedModel(
            messages=iter(
                [
                    AIMessage(content="", tool_calls=[{"name": "sandbox", "args": {"code": SCRIPT}, "id": "call_1"}]),
                    AIMessage(content="Tokyo and Paris are above 70°F."),
                ]
            )
        )
        agent = create_agent(model, tools=[sandbox.as_langchain_tool()], system_prompt=sandbox.get_system_prompt())
        result = agent.invoke({"messages": [{"role": "user", "content": "Which cities are above 70°F?"}]})
        for message in result["messages"]:
            print(f"{type(message).__name__}: {message.content!r}")
        print("get_weather calls left:", sandbox.sandbox.get_remaining_calls("cap:tool-call:mcp:get_weather"))


if __name__ == "__main__":
    main()
