"""Links (issue 24 item 5): no guest can make a symbolic or hard link.

A symlink out of the sandbox (os.symlink('../../../../etc/passwd', ...))
used to make snapshot() and fork() raise, and every later run of a
recording or approving sandbox fail, the rm that would remove it included.
Hard links were charged 4 KiB each by the guests while the host's measure
after the run counted every name as a whole file: 50 links to a 200 KB file
failed the run, and every later write, under a 1 MiB quota. The host now
refuses WASI's path_symlink and path_link for every guest (EPERM), so the
directory never holds a link: Python, the shell and JavaScript get an error,
the files stay directories and regular files, and snapshot, fork, recorded
runs and the quota go on as before. (A link put there from outside is
covered by the Go tests: gocore/host/links_test.go.)
"""

from __future__ import annotations

import pytest

from _hostile import run_isolated

ATTEMPTS = r'''
def attempts(sb):
    """Every way a guest has to make a link; what each one got."""
    sb.shell("echo data > /workspace/f")
    got = {}
    got["python symlink"] = sb.python(
        "import os\ntry:\n    os.symlink('../../../../etc/passwd', '/workspace/l1')\n    print('made')\n"
        "except OSError as e:\n    print(type(e).__name__, e.errno)")
    got["python link"] = sb.python(
        "import os\ntry:\n    os.link('/workspace/f', '/workspace/h1')\n    print('made')\n"
        "except OSError as e:\n    print(type(e).__name__, e.errno)")
    sb.shell("ln -s ../../../../etc/passwd /workspace/l2")
    got["shell ln -s"] = sb.last_stderr
    sb.shell("ln /workspace/f /tmp/h2")
    got["shell ln"] = sb.last_stderr
    got["js symlinkSync"] = sb.execute(
        "try { fs.symlinkSync('../../../../etc/passwd', '/workspace/l3'); console.log('made') } "
        "catch (e) { console.log(e.code, e.message) }")
    got["js linkSync"] = sb.execute(
        "try { fs.linkSync('/workspace/f', 'h3'); console.log('made') } catch (e) { console.log(e.code, e.message) }")
    got["js promises.symlink"] = sb.execute(
        "await fs.promises.symlink('/etc', '/tmp/l4').then(() => console.log('made'), (e) => console.log(e.code))")
    # Whatever the attempts did, the directory holds no link.
    got["links found"] = sb.shell("find / -type l | wc -l").strip()
    got["names"] = sb.shell("ls /workspace /tmp | tr '\n' ' '")
    return got
'''


def _check_attempts(got: dict[str, str], where: str) -> None:
    assert got["python symlink"].startswith("PermissionError"), f"{where}: {got}"
    assert got["python link"].startswith("PermissionError"), f"{where}: {got}"
    for key in ("shell ln -s", "shell ln"):
        assert "Operation not permitted" in got[key] and "cannot be links" in got[key], f"{where}: {key}: {got[key]!r}"
    assert got["js symlinkSync"].startswith("EPERM EPERM: operation not permitted, symlink"), f"{where}: {got}"
    assert got["js linkSync"].startswith("EPERM EPERM: operation not permitted, link"), f"{where}: {got}"
    assert got["js promises.symlink"].strip() == "EPERM", f"{where}: {got}"
    assert got["links found"] == "0", f"{where}: links were made: {got}"
    assert got["names"].split() == ["/tmp:", "/workspace:", "f"], f"{where}: {got['names']!r}"


@pytest.mark.parametrize("kind", ["plain", "record", "approvals"])
def test_no_guest_can_make_a_link(kind: str) -> None:
    code = ATTEMPTS + f'''
kind = {kind!r}
kwargs = {{}}
if kind == "record":
    kwargs = dict(record=True)
elif kind == "approvals":
    from amla_sandbox import ToolCallCap
    kwargs = dict(capabilities=[ToolCallCap(method_pattern="**", requires_approval=True)],
                  approval_handler=lambda request: True)
sb = Sandbox(**kwargs)
emit(got=attempts(sb))
# A run after the attempts works (a link used to fail every journaled run),
# and so do snapshot and fork.
emit(after=attempt(lambda: sb.shell("rm /workspace/f && echo removed")))
emit(snapshot=attempt(lambda: len(sb.snapshot()) > 0))
emit(fork=attempt(lambda: sb.fork().shell("ls /workspace | wc -l").strip()))
'''
    run = run_isolated(code, 180)
    _check_attempts(run["got"], kind)
    assert run["after"]["ok"] and run["after"]["value"] == "removed\n", run["after"]
    assert run["snapshot"]["ok"], run["snapshot"]
    assert run["fork"]["ok"] and run["fork"]["value"] == "0", run["fork"]


def test_hard_links_cannot_beat_the_quota() -> None:
    """50 hard links to a 200 KB file under a 1 MiB quota: each is refused,
    the run ends normally, and later writes in all three languages work."""
    code = r'''
sb = Sandbox(disk_quota=1 << 20)
emit(links=attempt(lambda: sb.python("""
import os
open('/workspace/big', 'wb').write(b'x' * 200_000)
made = refused = 0
for i in range(50):
    try:
        os.link('/workspace/big', f'/workspace/h{i}')
        made += 1
    except PermissionError:
        refused += 1
print(made, refused)
""")))
emit(py_write=attempt(lambda: sb.python("open('/workspace/p', 'wb').write(b'p' * 100_000); print('ok')")))
emit(sh_write=attempt(lambda: sb.shell("head -c 100000 /workspace/big > /workspace/s && echo ok")))
emit(js_write=attempt(lambda: sb.execute("fs.writeFileSync('/workspace/j', 'j'.repeat(100000)); console.log('ok')")))
emit(files=sb.shell("ls /workspace | tr '\n' ' '"))
'''
    run = run_isolated(code, 180)
    assert run["links"]["ok"], f"the run with the links failed: {run['links']}"
    assert run["links"]["value"] == "0 50\n", run["links"]
    for key in ("py_write", "sh_write", "js_write"):
        assert run[key]["ok"] and run[key]["value"] == "ok\n", f"{key}: {run[key]}"
    assert run["files"].split() == ["big", "j", "p", "s"], run["files"]
