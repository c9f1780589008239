"""Issue 17: escape and bypass attempts from Python. The host's files and
environment stay out of reach, and no change a script makes to the Python
layer (the tool functions, the prelude, builtins, sys.modules, the host
module itself) gets a call past the capability check, which is in Go."""

from __future__ import annotations

import json

from _hostile import run_isolated

# Each attempt prints one line: what it saw, or the exception it raised.
ESCAPES = r"""
import os, json
def attempt(name, f):
    try:
        v = f()
        print(json.dumps([name, "read", str(v)[:200]]))
    except Exception as e:
        print(json.dumps([name, type(e).__name__, str(e)[:200]]))
SECRET = os.environ.get("HOST_SECRET_PATH", "")
attempt("passwd", lambda: open("/etc/passwd").read())
attempt("proc environ", lambda: open("/proc/self/environ").read())
attempt("traversal", lambda: open("/workspace/../../../../etc/passwd").read())
attempt("relative traversal", lambda: open("../../../../../etc/passwd").read())
attempt("host secret", lambda: open(SECRET).read())
attempt("host secret via workspace", lambda: open("/workspace/../../../.." + SECRET).read())
attempt("absolute symlink", lambda: (os.symlink("/etc/passwd", "/workspace/abs_link"), open("/workspace/abs_link").read()))
attempt("climbing symlink", lambda: (os.symlink("../../../../../../etc/passwd", "/workspace/rel_link"),
                                     open("/workspace/rel_link").read()))
attempt("root listing", lambda: sorted(os.listdir("/")))
attempt("write root", lambda: open("/evil", "w"))
attempt("env", lambda: sorted(os.environ))
attempt("chdir out", lambda: (os.chdir("/workspace/../.."), os.getcwd(), sorted(os.listdir(".")))[1:])
"""


def test_the_host_stays_out_of_reach(tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    child = run_isolated(
        f"""
import os
os.environ["HOST_SECRET_PATH"] = {str(secret)!r}
sb = Sandbox(timeout=20)
emit(out=sb.python({ESCAPES!r}), err=sb.last_stderr[-2000:])
""",
        120,
        env={"HOST_SECRET_PATH": str(secret)},
    )
    seen = {row[0]: row[1:] for row in map(json.loads, child["out"].splitlines())}
    assert len(seen) == 12, child["out"] + child["err"]
    for name in ("passwd", "proc environ", "traversal", "relative traversal", "host secret via workspace",
                 "absolute symlink", "climbing symlink", "write root"):
        assert seen[name][0] != "read", f"{name}: {seen[name]}"
        assert "host secret" not in seen[name][1] and "root:" not in seen[name][1], f"{name}: {seen[name]}"
    # The host's environment never reaches the guest (HOST_SECRET_PATH was set in the host).
    assert seen["host secret"][0] != "read", seen["host secret"]
    assert seen["env"] == ["read", "['HOME', 'LANG', 'PWD', 'PYTHONHASHSEED']"]
    assert seen["root listing"] == ["read", "['tmp', 'workspace']"]
    assert seen["chdir out"][0] == "PermissionError", seen["chdir out"]


BYPASS = r"""
import _amla, json, sys, builtins
def raw(method, params="{}"):
    body = ('{"method": ' + json.dumps(method) + ', "params": ' + params + '}').encode("utf-8", "surrogatepass")
    _amla.submit(body)
    head = _amla.wait(-1).split(b"\n")[0]
    return json.loads(head).get("code") or "ok"
results = {}
for m in ["mcp:secret", "MCP:secret", "mcp:Secret", "mcp:secret ", "mcp:allowed/../secret", "mcp:allowed\u0000secret",
          "mcp:*", "mcp:**", "secret", "mcp:sec\ud800ret", "mcp:allowed.secret"]:
    results[repr(m)] = raw(m)
results["deep params"] = raw("mcp:secret", "[" * 3000 + "]" * 3000)
results["garbage"] = (_amla.submit(b"\xff\xfe not json"), json.loads(_amla.wait(-1).split(b"\n")[0])["code"])[1]
# Tampering with the Python layer, then calling through it.
reg = sys.modules["_amla_guest.tools"].registry
reg.by_name["allowed"]["id"] = "mcp:secret"
try:
    allowed()
    results["retargeted wrapper"] = "ok"
except ToolError as e:
    results["retargeted wrapper"] = e.code
sys.modules["_amla_guest.calls"].ToolDenied = None
builtins.__import__ = lambda *a, **k: None
try:
    call_tool("secret")
    results["after poisoning"] = "ok"
except Exception as e:
    results["after poisoning"] = type(e).__name__
print(json.dumps(results))
"""


def test_no_tampering_gets_a_call_past_the_capabilities() -> None:
    child = run_isolated(
        f"""
seen = []
def handler(method, params):
    seen.append(method)
    return "ran"
caps = [MethodCapability(method_pattern="mcp:allowed")]
sb = Sandbox(tools=[tool("allowed"), tool("secret")], tool_handler=handler, capabilities=caps, timeout=20)
emit(out=sb.python({BYPASS!r}), err=sb.last_stderr[-2000:], seen=seen)
emit(after=attempt(lambda: sb.python("allowed()")))
""",
        120,
    )
    results = json.loads(child["out"])
    assert child["seen"] == [], f"calls reached the handler: {child['seen']} ({results})"
    for key, code in results.items():
        assert code != "ok", f"{key} got through: {results}"
    assert results["'mcp:secret'"] == "permission_denied"
    assert child["after"]["value"] == "ran\n"
