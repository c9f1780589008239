"""Issue 24, item 14: tool requests waiting for their answers cost the host
what they are charged. They were charged their JSON bytes while the host
holds them three times over (Go's copy, the event's JSON text, the value
Python decodes), and the decoded value can dwarf the JSON (a list of empty
dicts: 3 bytes of JSON, about 72 bytes of Python each). 40 calls with 8 MB
params from JavaScript under memory_limit=64 MiB (an async handler taking
0.5 s, execute_async) grew host RSS by 130-150 MiB; 40 calls each passing
200,000 empty dicts all reached the handler and grew it by 155-245 MiB. A
waiting request is now charged two copies of its JSON plus an estimate of
its decoded Python value from above (gocore/host/payload.go), so host RSS
grows at most memory_limit (the script) + 64 MiB (copies in passing).
"""

from __future__ import annotations

import pytest

from _hostile import ChildRun, check_child, spawn_many

MiB = 1024 * 1024
DEADLINE_S = 120.0
# memory_limit of each scenario, in MiB. The Python guest's memory grows
# to nearly its limit at start, so at 64 MiB it has no room for any 8 MB
# request; it runs under 128 MiB.
LIMITS = {"js_8mb": 64, "python_8mb": 128, "js_dicts": 64}

SETUP = r'''
MiB = 1024 * 1024
handled = []
async def handler(method, params):
    handled.append(1)
    await asyncio.sleep(0.5)
    return 1
sb = Sandbox(tools=[tool("t", s="string")], tool_handler=handler, memory_limit=LIMIT_MIB * MiB, timeout=90)
sb.execute("console.log(1)")
sb.execute("print(1)", language="python")
'''

# Each script makes 40 calls at once; JavaScript awaits none of them (the
# run ends when they are settled), Python gathers them. Refusals are
# ignored: what is asserted is what the host held meanwhile.
SCENARIOS = {
    "js_8mb": SETUP + r'''
code = "const s = 'x'.repeat(8e6); for (let i = 0; i < 40; i++) t({s}).catch(() => {});"
emit(first=measure_rss(lambda: asyncio.run(sb.execute_async(code))), handled=len(handled))
emit(after=attempt(lambda: asyncio.run(sb.execute_async("console.log(await t({s: 'small'}))"))))
''',
    "python_8mb": SETUP + r'''
code = """
import asyncio
s = 'x' * 8_000_000
async def main():
    calls = [t(s=s) for _ in range(40)]
    await asyncio.gather(*calls, return_exceptions=True)
asyncio.run(main())
"""
emit(first=measure_rss(lambda: asyncio.run(sb.execute_async(code, language="python"))), handled=len(handled))
emit(after=attempt(lambda: asyncio.run(sb.execute_async("print(t(s='small'))", language="python"))))
''',
    # 200,000 empty dicts: 600 KB of JSON, ~14 MB once Python decodes it.
    "js_dicts": SETUP + r'''
code = "const s = '[' + Array(200000).fill('{}').join(',') + ']'; const d = JSON.parse(s); for (let i = 0; i < 40; i++) t({s: d}).catch(() => {});"
emit(first=measure_rss(lambda: asyncio.run(sb.execute_async(code))), handled=len(handled))
emit(after=attempt(lambda: asyncio.run(sb.execute_async("console.log(await t({s: 'small'}))"))))
''',
}


@pytest.fixture(scope="module")
def runs() -> dict[str, ChildRun]:
    return spawn_many({k: v.replace("LIMIT_MIB", str(LIMITS[k])) for k, v in SCENARIOS.items()}, DEADLINE_S, workers=1)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_waiting_requests_stay_within_memory_limit(runs: dict[str, ChildRun], name: str) -> None:
    child = check_child(runs[name])
    first = child["first"]
    assert first["ok"], first
    grew = first["rss_peak"] - first["rss_before"]
    limit = LIMITS[name] * MiB
    assert grew <= limit + 64 * MiB, (
        f"{name}: host RSS grew {grew / MiB:.0f} MiB for a run with memory_limit={LIMITS[name]} MiB "
        f"({child['handled']} calls reached the handler)"
    )
    assert child["after"]["ok"] and child["after"]["value"].strip() == "1", child["after"]
