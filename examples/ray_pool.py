"""Sandboxes for many sessions on a pool of Ray actors (docs/scale-out.md).

Run: pip install "amla-sandbox[ray]" && python examples/ray_pool.py
"""

import asyncio

import ray

from amla_sandbox.ray import SandboxPool


def get_price(item: str) -> float:
    """The price of an item (runs inside the pool's actors)."""
    return {"apple": 0.5, "pear": 0.75}.get(item, 1.0)


approvals: list[str] = []


def approve(order: str) -> bool:
    """Ask for approval (runs in this process: it uses this process's state)."""
    approvals.append(order)
    return True


def main() -> None:
    # One machine; on a cluster: ray.init(address="auto"), the rest unchanged.
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    with SandboxPool(size=2, tools=[get_price], local_tools=[approve], max_calls={"get_price": 3}) as pool:
        # Each session has its own files and budgets, and sticks to one actor.
        for user in ("alice", "bob", "carol"):
            pool.run(user, f"await fs.writeFile('/workspace/user.txt', '{user}')")
        print("alice's file:", pool.run("alice", "cat /workspace/user.txt", language="shell"))
        print("actors:", {user: pool.where(user) for user in ("alice", "bob", "carol")})

        # Three get_price calls per session: bob's fourth is denied, alice still has hers.
        shop = """
            for (const item of ["apple", "pear", "apple", "pear"]) {
                try { console.log(item, await get_price({item})); }
                catch (e) { console.log(item, e.message.split(": ").slice(1).join(": ")); }
            }"""
        print(pool.run("bob", shop), end="")
        print("alice:", pool.run("alice", "console.log(await get_price({item: 'pear'}))"), end="")

        # A caller-side tool: the script waits while this process answers.
        print(pool.run("carol", "console.log(await approve({order: 'pears'}) ? 'approved' : 'refused')"), end="")
        print("approvals seen here:", approvals)

        # The async form, for callers on an event loop.
        async def many() -> list[str]:
            return await asyncio.gather(*(pool.run_async(f"guest-{i}", f"console.log({i} * {i})") for i in range(4)))

        print("async:", [out.strip() for out in asyncio.run(many())])
    ray.shutdown()


if __name__ == "__main__":
    main()
