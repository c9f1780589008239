"""Issue 25, point 4: tools.search and tools.list are answered by the host
(a tools_search request), which scans every tool's name and description
once per word of the query. A script's query is bounded (1024 bytes, 32
words), so no query can keep the host scanning: over 10,000 tools with
5 KB descriptions, 100,000 words that each appear in every description
would be up to 5 * 10^12 byte comparisons, in a host function. The script
gets a clear error instead, whichever way it asks (JavaScript's
tools.search, Python's, a raw submit); an ordinary search still works.
(The search also gives up when the run stops: gocore/toolcat's
TestSearchBounds.) Without the bound these queries are searched (and
found nothing): the tests fail.
"""

from __future__ import annotations

import json

import pytest

from _hostile import ChildRun, check_child, spawn_many

DEADLINE_S = 120.0

SETUP = r'''
import json, time
defs = [ToolDefinition(name=f"srv.tool_{i}", description=(f"Tool {i} finds thing {i}. " + "lorem ipsum " * 420)[:5000])
        for i in range(10_000)]
sb = Sandbox(tools=defs, tool_handler=echo_handler, timeout=20)
WIDE = " ".join(f"w{i}" for i in range(100_000))  # 100,000 words, 688,890 bytes
MANY = " ".join(f"w{i}" for i in range(33))        # 33 words, 161 bytes
def timed(fn):
    t0 = time.monotonic()
    out = attempt(fn)
    out["elapsed"] = time.monotonic() - t0
    return out
'''

SCENARIOS = {
    "js": SETUP + r'''
results = {}
sb.execute("console.log(1)")  # compiles the guest, for the timings below
for key, query in (("ok", "thing 7"), ("wide", WIDE), ("many", MANY)):
    js = "try { const r = await tools.search(" + json.dumps(query) + "); console.log('OK ' + r.length) } catch (e) { console.log('ERR ' + e.message) }"
    results[key] = timed(lambda: sb.execute(js))
emit(results=results)
''',
    "python": SETUP + r'''
results = {}
sb.execute("print(1)", language="python")  # compiles the guest, for the timings below
for key, query in (("ok", "thing 7"), ("wide", WIDE), ("many", MANY)):
    py = f"try:\n    print('OK', len(tools.search({query!r})))\nexcept Exception as e:\n    print('ERR', e)"
    results[key] = timed(lambda: sb.execute(py, language="python"))
raw = "import _amla, json\n_amla.submit(json.dumps({'method': 'tools_search', 'params': {'query': 'x ' * 5_000_000}}).encode())\nprint(bytes(_amla.wait(20000)).partition(b'\\n')[0].decode())"
results["raw"] = timed(lambda: sb.execute(raw, language="python"))
emit(results=results)
''',
}


@pytest.fixture(scope="module")
def runs() -> dict[str, ChildRun]:
    return spawn_many(SCENARIOS, DEADLINE_S, workers=2)


@pytest.mark.parametrize("guest", ["js", "python"])
def test_a_search_query_is_bounded(runs: dict[str, ChildRun], guest: str) -> None:
    results = check_child(runs[guest])["results"]
    for key, says in (("wide", "a search takes at most 1024"), ("many", "33 words; a search takes at most 32")):
        out = results[key]
        assert out["ok"] and out["value"].startswith("ERR") and says in out["value"], f"{guest} {key}: {out}"
        assert out["elapsed"] < 5, f"{guest} {key}: took {out['elapsed']:.1f} s"
    assert results["ok"]["ok"] and results["ok"]["value"].strip() == "OK 20", f"{guest}: {results['ok']}"


def test_a_raw_search_request_is_bounded(runs: dict[str, ChildRun]) -> None:
    out = check_child(runs["python"])["results"]["raw"]
    assert out["ok"], out
    head = json.loads(out["value"].strip())
    assert head["ok"] is False and head["code"] == "invalid_request" and "a search takes at most 1024" in head["error"], head
    assert out["elapsed"] < 5, f"took {out['elapsed']:.1f} s"
