"""CodeAct with a sandbox: the agent answers in JavaScript, which runs in an
amla sandbox where the agent's tools are async functions.

`create_amla_codeact` builds a langgraph-codeact agent (imported only when
called); `create_amla_sandbox` is the evaluation function such an agent uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .capabilities import ToolCallCap
from .network import NetworkArg, policy_json, prompt_lines
from .sandbox_tool import SandboxTool
from .tools import format_tool_descriptions_js

__all__ = [
    "JS_CODEACT_PROMPT",
    "SandboxFn",
    "format_tool_descriptions_js",
    "create_amla_sandbox",
    "create_amla_codeact",
]

SandboxFn = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]

# A str.format template with one field, {tool_descriptions}; literal braces are doubled.
JS_CODEACT_PROMPT = """You can act by writing JavaScript. Your tools are async JavaScript functions, and your code runs in a secure sandbox:
- ES2020+ JavaScript with async/await; top-level await works
- a virtual filesystem: /workspace and /tmp are writable and persist between your code blocks
- shell utilities through `await shell(...)`: grep, jq, tr, head, tail, sort, uniq, wc, cut

Call a tool with await and a single object argument holding its parameters.

{tool_descriptions}

## Examples

Call a tool and print the result:
```javascript
const weather = await get_weather({{ city: "San Francisco" }});
console.log(JSON.stringify(weather));
```

Save data to a file and process it with shell utilities:
```javascript
const items = await list_items({{ limit: 100 }});
await fs.writeFile('/tmp/items.json', JSON.stringify(items));
const {{ stdout: names }} = await shell('cat /tmp/items.json | jq -r ".[].name" | sort | head -5');
console.log(names);
```

Chain several tools, using one result in the next call:
```javascript
const user = await get_user({{ id: 42 }});
const orders = await get_orders({{ user_id: user.id }});
console.log(`${{user.name}} has ${{orders.length}} orders`);
```

Files are read with `await fs.readFile(path)` and written with `await fs.writeFile(path, text)`.
Only what your code prints with console.log() is shown to you, so always console.log() the results you need."""


def create_amla_sandbox(
    tools: Sequence[Callable[..., Any]],
    *,
    capabilities: Sequence[ToolCallCap] | None = None,
    network: NetworkArg = None,
    keep_state: bool = False,
) -> SandboxFn:
    """An evaluation function `(code, locals) -> (output, new_locals)` running
    `code` as JavaScript in one sandbox. Files persist between calls;
    variables do only with `keep_state=True`, inside the sandbox
    (docs/sessions.md): new_locals is always `{}`. `network` lets the code
    make HTTP requests with fetch() (docs/network.md)."""
    sandbox_tool = SandboxTool.from_functions(tools, capabilities=capabilities, network=network, keep_state=keep_state)

    def run(code: str, _locals: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return sandbox_tool.execute(code).to_tool_message(), {}

    return run


def create_amla_codeact(
    model: Any,
    tools: Sequence[Callable[..., Any]],
    *,
    capabilities: Sequence[ToolCallCap] | None = None,
    prompt: str | None = None,
    network: NetworkArg = None,
    keep_state: bool = False,
) -> Any:
    """A langgraph-codeact agent whose code runs in an amla sandbox.

    `model` is a LangChain chat model or a model name for `init_chat_model`.
    `network` lets the agent's code make HTTP requests (docs/network.md);
    the default prompt then lists what it may reach. `keep_state=True`
    keeps the code's variables and functions from one block to the next
    (docs/sessions.md).
    Returns what `langgraph_codeact.create_codeact` returns.
    """
    try:
        from langchain.chat_models import init_chat_model
        from langgraph_codeact import create_codeact
    except ImportError as e:
        raise ImportError(
            "langgraph-codeact is required for create_amla_codeact(). "
            "Install it with: pip install langgraph-codeact langchain-anthropic"
        ) from e
    if isinstance(model, str):
        model = init_chat_model(model)
    if prompt is None:
        prompt = JS_CODEACT_PROMPT.format(tool_descriptions=format_tool_descriptions_js(tools))
        net = prompt_lines(policy_json(network), capabilities or ())
        if net:
            prompt += "\n\n" + "\n".join(net)
    return create_codeact(
        model,
        tools=list(tools),
        eval_fn=create_amla_sandbox(tools, capabilities=capabilities, network=network, keep_state=keep_state),
        prompt=prompt,
    )
