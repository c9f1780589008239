"""An asyncio event loop whose waiting is done by the host.

asyncio's own loops wait in a selector over a socket pair, which WASI does
not have. HostEventLoop is asyncio's BaseEventLoop with a selector that
waits for what a script in the sandbox can wait for: the answer to a tool
call (tool_wait, which wakes as soon as one is in) or the next timer
(sleep). Both wait in the host, where the run's deadline applies. Tool
calls are submitted when they are made, so calls gathered together reach
the host together and a host that answers concurrently can run them at
once.

Descriptor readiness (add_reader and friends) does not exist here: the
sandbox has no sockets or pipes. Connections, servers, name lookups and
subprocesses fail with the message refuse.py gives for the same thing
outside asyncio (run_in_executor and asyncio.to_thread meet its refusal
of threads).

create_task (asyncio.create_task, TaskGroup.create_task) also takes a
tool call made while the loop runs (calls.ToolCall, a Future), as it takes
a coroutine: scripts write create_task(get_weather(city="SF")) as they
would for an async function.
"""

from __future__ import annotations

import asyncio
import asyncio.constants
import asyncio.events
import asyncio.runners
import math

import errno

import _amla

from . import calls, refuse

# Waits longer than this are cut into pieces (the host's sleep takes whole
# milliseconds in an i64; this only bounds one call).
_MAX_WAIT_MS = 24 * 3600 * 1000


class NeverFinishes(RuntimeError):
    """The script awaits something nothing can complete."""


class HostSelector:
    """The one method of a selector BaseEventLoop uses: select(timeout)."""

    def select(self, timeout: float | None) -> list:
        if calls.pending_count():
            ms = -1 if timeout is None else min(_MAX_WAIT_MS, math.ceil(timeout * 1000))
            calls.deliver_next(ms)
            return []
        if timeout is None:
            raise NeverFinishes(
                "the script is awaiting something that can never finish "
                "(nothing is pending: no tool call, no timer)"
            )
        if timeout > 0:
            _amla.sleep(min(_MAX_WAIT_MS, math.ceil(timeout * 1000)))
        return []

    def close(self) -> None:
        pass


class HostEventLoop(asyncio.BaseEventLoop):
    """asyncio's event loop for the sandbox (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._selector = HostSelector()

    def _process_events(self, event_list) -> None:
        pass

    def _write_to_self(self) -> None:
        # Only other threads need to wake the loop; there are none.
        pass

    def close(self) -> None:
        if self.is_running():
            raise RuntimeError("Cannot close a running event loop")
        super().close()

    def create_task(self, coro, **kwargs):
        if type(coro) is calls.ToolCall:
            coro = _awaiting(coro)
        return super().create_task(coro, **kwargs)

    async def getaddrinfo(self, *args, **kwargs):
        refuse.no_lookup()

    async def getnameinfo(self, *args, **kwargs):
        refuse.no_lookup()

    async def create_connection(self, *args, **kwargs):
        raise OSError(errno.ENETUNREACH, refuse.NO_NETWORK)

    create_server = create_datagram_endpoint = create_unix_connection = create_unix_server = create_connection
    connect_accepted_socket = sock_connect = sock_accept = create_connection

    async def subprocess_exec(self, *args, **kwargs):
        raise OSError(errno.ENOTSUP, refuse.NO_PROCESSES)

    subprocess_shell = subprocess_exec


async def _awaiting(call: calls.ToolCall):
    return await call


class HostEventLoopPolicy(asyncio.events.BaseDefaultEventLoopPolicy):
    _loop_factory = HostEventLoop


def install() -> None:
    asyncio.set_event_loop_policy(HostEventLoopPolicy())


# The event loop of a kept session (docs/sessions.md); None elsewhere.
_session_loop: HostEventLoop | None = None


def session_loop() -> HostEventLoop:
    """The one event loop of a kept session's runs, made current: a task
    one run starts (asyncio.create_task, ensure_future) is the next run's
    to await, as in a notebook."""
    global _session_loop
    if _session_loop is None or _session_loop.is_closed():
        _session_loop = HostEventLoop()
    asyncio.set_event_loop(_session_loop)
    return _session_loop


def run_main(coro, keep: bool = False):
    """Runs the script's top-level coroutine (a script with top-level
    await) as asyncio.run would, and returns its value; with keep, on the
    session's loop, which stays open with what is left on it.

    What asyncio.Runner does, without the steps that cannot apply here: a
    SIGINT handler (no signal reaches the guest), and the loop runs that
    would close asynchronous generators or the default executor when there
    are none (each is a round of the loop: a task, its wake-ups, the
    loop's set-up). Tasks still pending are cancelled and awaited, as
    asyncio.run does."""
    if keep:
        return session_loop().run_until_complete(coro)
    loop = HostEventLoop()
    try:
        return loop.run_until_complete(coro)
    finally:
        try:
            asyncio.runners._cancel_all_tasks(loop)
            if loop._asyncgens:
                loop.run_until_complete(loop.shutdown_asyncgens())
            if loop._default_executor is not None:
                loop.run_until_complete(loop.shutdown_default_executor(asyncio.constants.THREAD_JOIN_TIMEOUT))
        finally:
            loop.close()
