"""Every Python block in README.md and docs/*.md runs, in order, as a reader
would run them: the blocks of one file share one namespace, in a fresh
interpreter, in an empty working directory.

A block that cannot run here (it needs an API key or the network) is marked
with an HTML comment on the line before its fence, giving the reason:

    <!-- not run: needs an Anthropic API key -->
"""

from __future__ import annotations

import fnmatch
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
_SKIP = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$")


def python_blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """(line number, code, skip reason or None) for each ```python block."""
    text = path.read_text(encoding="utf-8")
    blocks = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = _SKIP.search(before)
        blocks.append((line, m.group(1), skip.group(1) if skip else None))
    return blocks


def test_the_extractor_sees_blocks_and_skip_markers(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text("# t\n\n```python\na = 1\n```\n\n<!-- not run: needs a key -->\n```python\nb = 2\n```\n\n```bash\nls\n```\n")
    assert python_blocks(md) == [(3, "a = 1\n", None), (8, "b = 2\n", "needs a key")]


def _script(path: Path) -> str:
    parts = [
        # The package under test as this interpreter finds it (installed,
        # or the checkout on PYTHONPATH); the run's directory is a temp dir.
        "import sys",
        "__ns = {'__name__': '__main__'}",
    ]
    for line, code, skip in python_blocks(path):
        if skip is not None:
            continue
        parts.append(f"print('--- block at {path.name}:{line}', flush=True)")
        parts.append(f"exec(compile({code!r}, {f'{path.name}:{line}'!r}, 'exec'), __ns)")
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("path", [p for p in DOCS if python_blocks(p)], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_blocks_run(path: Path, tmp_path: Path) -> None:
    for line, _code, skip in python_blocks(path):
        assert skip is None or skip.strip(), f"{path.name}:{line}: a not-run marker must say why"
    proc = subprocess.run(
        [sys.executable, "-c", _script(path)], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("--- block at ")]
    where = last[-1].removeprefix("--- block at ") if last else path.name
    assert proc.returncode == 0, f"block at {where} failed:\n{proc.stderr}\n{proc.stdout[-2000:]}"


def test_langgraph_example_runs_the_current_agent_constructor(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents")
    pytest.importorskip("langgraph")
    example = ROOT / "examples" / "langgraph_agent.py"
    assert "create_react_agent(" not in example.read_text()
    proc = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", str(example)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env=dict(os.environ),  # the package under test as this interpreter finds it
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "HumanMessage: 'Which cities are above 70°F?'",
        "AIMessage: ''",
        "ToolMessage: 'Tokyo, Paris\\n'",
        "AIMessage: 'Tokyo and Paris are above 70°F.'",
        "get_weather calls left: 7",
    ]


def test_readme_uses_the_current_langgraph_agent_constructor() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "create_react_agent(" not in readme
    assert "from langchain.agents import create_agent" in readme and "examples/langgraph_agent.py" in readme


def test_the_readme_docs_list_links_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("\n## Docs\n")
    section = readme[start : readme.index("\n## ", start + 1)]
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", section))
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set(), "docs pages missing from the README's Docs list"
    assert linked - pages == set(), "the README's Docs list links pages that do not exist"


# -- what the code cites ----------------------------------------------------------------------------
#
# Comments and docstrings cite docs/ pages (`docs/capabilities.md, "Patterns"`) and the numbered
# rows of docs/compatibility.md (`D4`, `difference #5`). Each citation must resolve: the page
# exists, the quoted name is one of its headings (or the start of one) or a bold paragraph
# title, and the row exists.

_SOURCES = ("amla_sandbox", "gocore", "guests", "tests", "bench", "build_backend")
_CITED_PAGE = re.compile(r"\bdocs/([\w-]+\.md)(?:,? \(?\"([^\"]+)\")?")
_CITED_DIFFERENCE = re.compile(r"compatibility\.md, difference #(\d+)")
_CITED_DELTA = re.compile(r"compatibility\.md,? D(\d+)(?:-D?(\d+))?")
# No file may cite the specification the code was written from (API.md, API-0.2.md), which is
# not in the repository.
_STILL_CITING_THE_SPEC: tuple[str, ...] = ()


def _source_files() -> list[Path]:
    files = []
    for top in _SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".py", ".go", ".c", ".h", ".js") and "testdata" not in path.parts:
                files.append(path)
    return files + [ROOT / "setup.py"]


def _titles(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    titles = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    return titles + re.findall(r"^\s*(?:[-*] )?\*\*([^*\n]+?)\.?\*\*", text, re.M)


def _compatibility_rows() -> tuple[set[int], set[int]]:
    text = (ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8")
    deltas = {int(n) for n in re.findall(r"^\| D(\d+) ", text, re.M)}
    differences = {int(n) for n in re.findall(r"^\| (\d+) \|", text, re.M)}
    return deltas, differences


def test_citations_in_the_code_resolve() -> None:
    if not (ROOT / "gocore").is_dir():
        pytest.skip("needs the sources (a source checkout)")
    deltas, differences = _compatibility_rows()
    assert deltas and differences, "docs/compatibility.md's tables are not numbered"
    bad = []
    for path in _source_files():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        text = re.sub(r"\n\s*(?:(?://|#|\*)\s*)?", " ", text)  # a citation may wrap across lines
        for m in _CITED_PAGE.finditer(text):
            page = ROOT / "docs" / m.group(1)
            if not page.is_file():
                bad.append(f"{rel}: docs/{m.group(1)} does not exist")
            elif m.group(2) and not any(t.startswith(m.group(2)) for t in _titles(page)):
                bad.append(f'{rel}: docs/{m.group(1)} has no heading "{m.group(2)}"')
        for m in _CITED_DIFFERENCE.finditer(text):
            if int(m.group(1)) not in differences:
                bad.append(f"{rel}: docs/compatibility.md has no difference #{m.group(1)}")
        for m in _CITED_DELTA.finditer(text):
            for n in filter(None, m.groups()):
                if int(n) not in deltas:
                    bad.append(f"{rel}: docs/compatibility.md has no row D{n}")
        if re.search(r"\bAPI(-0\.2)?\.md\b|deviation #\d", text) and rel != "tests/test_docs.py":
            if any(fnmatch.fnmatch(rel, p) for p in _STILL_CITING_THE_SPEC):
                continue
            bad.append(f"{rel}: cites a document that is not in the repository (API.md, API-0.2.md)")
    assert bad == [], "\n".join(bad)
