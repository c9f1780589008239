"""Awaiting from synchronous code: the one helper that async tool handlers
and async approval handlers are driven with when the run is synchronous
(`execute()`, `run()`)."""

from __future__ import annotations

import builtins
import inspect
import threading
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["SyncAwaiter"]


class SyncAwaiter:
    """Awaits awaitables from synchronous code, on an event loop it keeps
    for successive calls (so what an async tool binds to its loop, such as
    a client session, keeps working from one call to the next).

    Thread-safe: a call made while the kept loop is busy on another thread
    runs on a loop of its own. Inside a running event loop it refuses
    (blocking that loop would deadlock whatever the awaitable waits for):
    the awaitable is closed and `refusal` raised. `close()` may be called
    from any thread; a loop running then is closed by its thread when its
    call returns."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, awaitable: Awaitable[Any], refusal: BaseException) -> Any:
        import asyncio  # only async handlers need it: importing it costs more than the rest of the package

        try:
            asyncio.get_running_loop()
        except builtins.RuntimeError:
            pass
        else:
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            raise refusal

        async def wrap() -> Any:
            return await awaitable

        if not self._lock.acquire(blocking=False):
            # The kept loop is running another thread's call.
            own = asyncio.new_event_loop()
            try:
                return own.run_until_complete(wrap())
            finally:
                own.close()
        try:
            loop = self._loop
            if loop is None or loop.is_closed():
                loop = self._loop = asyncio.new_event_loop()
            try:
                return loop.run_until_complete(wrap())
            finally:
                if self._loop is not loop:  # close() came while it ran
                    loop.close()
        finally:
            self._lock.release()

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_running() and not loop.is_closed():
            try:
                loop.close()
            except builtins.RuntimeError:
                pass  # it started running meanwhile: its thread closes it
