"""Scale-out on Ray: `SandboxPool`, the sandboxes of many sessions held by a
pool of Ray actors, sticky per session, surviving dead actors.

    import ray
    from amla_sandbox.ray import SandboxPool

    ray.init()                      # or ray.init(address="auto") on a cluster
    with SandboxPool(size=4, tools=[get_weather], max_calls=20) as pool:
        print(pool.run("user-1", "console.log(await get_weather({city: 'SF'}))"))

Needs Ray: `pip install "amla-sandbox[ray]"`. See docs/scale-out.md.
"""

from __future__ import annotations

try:
    import ray as _ray  # noqa: F401  (the Ray package, not this module)
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "amla_sandbox.ray needs Ray; install it with: pip install \"amla-sandbox[ray]\""
    ) from e

from amla_sandbox.ray._pool import (
    PoolClosedError,
    PoolStats,
    RunDivergedError,
    RunLostError,
    SandboxPool,
    SessionLostError,
)

__all__ = [
    "PoolClosedError",
    "PoolStats",
    "RunDivergedError",
    "RunLostError",
    "SandboxPool",
    "SessionLostError",
]
