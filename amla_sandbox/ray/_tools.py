"""Tools on their way to the actors: checked and pickled one by one in the
caller's process, and stand-ins for the tools that stay there."""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable, Sequence
from typing import Any, cast

from amla_sandbox.tools.conversion import tool_name, type_hints

__all__ = ["load_tool", "pickle_args", "pickle_tools", "stub_for"]

# cloudpickle pickles functions defined in __main__ or in notebooks by
# value, which is what sends a script's own tools to a worker. Ray ships it.
from ray import cloudpickle


def _dumps(value: Any) -> bytes:
    return cast(bytes, cloudpickle.dumps(value))  # type: ignore[no-untyped-call]


def pickle_tools(funcs: Sequence[Callable[..., Any]]) -> list[tuple[str, bytes]]:
    """Each tool as (name, pickled function); a tool that cannot be
    pickled is a TypeError naming it and saying what to do instead."""
    out = []
    for f in funcs:
        name = tool_name(f)
        try:
            blob = _dumps(f)
        except Exception as e:
            raise TypeError(
                f"tool {name!r} cannot be sent to the pool's Ray actors: {type(e).__name__}: {e}. "
                "Make it picklable (create open files, locks, sockets and clients inside the function "
                "instead of capturing them), or pass it in local_tools=[...] to run it in this process."
            ) from None
        out.append((name, blob))
    return out


def pickle_args(args: dict[str, Any]) -> bytes:
    """The create_sandbox_tool arguments every actor uses, pickled; one that
    cannot be pickled is a TypeError naming it."""
    for key, value in args.items():
        try:
            _dumps(value)
        except Exception as e:
            raise TypeError(
                f"argument {key}= cannot be sent to the pool's Ray actors: {type(e).__name__}: {e}"
            ) from None
    return _dumps(args)


def load_tool(name: str, blob: bytes) -> Callable[..., Any]:
    """A tool unpickled in an actor; failing, an error naming the tool."""
    try:
        func = pickle.loads(blob)
    except Exception as e:
        raise RuntimeError(
            f"tool {name!r} could not be loaded in a pool actor: {type(e).__name__}: {e}. "
            "Every module a tool uses must be importable on every Ray worker "
            "(install it there, or use ray.init(runtime_env=...))."
        ) from None
    if not callable(func):
        raise TypeError(f"tool {name!r} did not unpickle to a callable but to {type(func).__name__}")
    return cast(Callable[..., Any], func)


def stub_for(func: Callable[..., Any]) -> Callable[..., Any]:
    """A stand-in with `func`'s name, docstring, signature and type hints,
    and nothing else of it, for a tool that runs in the caller's process:
    the actor's sandbox describes the tool from it, and the pool routes its
    calls back to the caller. Type hints that cannot be pickled become
    untyped, as do unpicklable defaults' types (the default stays optional)."""
    name = tool_name(func)

    def stub(**params: Any) -> Any:
        raise RuntimeError(f"tool {name!r} runs in the caller's process; the pool answers its calls")

    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = inspect.getdoc(func)
    hints = type_hints(func)
    params = []
    for p in inspect.signature(func).parameters.values():
        hint = hints.get(p.name, inspect.Parameter.empty)
        if hint is not inspect.Parameter.empty and not _picklable(hint):
            hint = inspect.Parameter.empty
        default = p.default
        if default is not inspect.Parameter.empty and not _picklable(default):
            default = None
        params.append(p.replace(annotation=hint, default=default))
    stub.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    stub.__annotations__ = {
        p.name: p.annotation for p in params if p.annotation is not inspect.Parameter.empty
    }
    return stub


def _picklable(value: Any) -> bool:
    try:
        _dumps(value)
    except Exception:
        return False
    return True
