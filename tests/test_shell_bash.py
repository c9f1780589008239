"""Bash's behaviour through the public Python API (issue 21): the habits agents' scripts rely on.

The Go tests in guests/shell/shell/testdata/bash/ hold bash's own answers for each behaviour;
these check that a user of the package gets them end to end."""

from __future__ import annotations

import json
import time

import pytest

from amla_sandbox import Sandbox


@pytest.fixture(scope="module")
def sb():
    with Sandbox(timeout=20) as s:
        yield s


def test_csv_with_empty_fields_keeps_its_columns(sb: Sandbox) -> None:
    sb.shell("printf '1,,paid,10\\n2,SAVE,,20\\n,,,5\\n' > /workspace/orders.csv")
    out = sb.shell(
        'while IFS=, read -r id coupon status amount; do echo "[$id][$coupon][$status][$amount]"; done'
        " < /workspace/orders.csv"
    )
    assert out == "[1][][paid][10]\n[2][SAVE][][20]\n[][][][5]\n"
    assert sb.shell("IFS=_; s='_a_b_'; set -- $s; echo $#") == "3\n"


@pytest.mark.parametrize(
    "script,status",
    [("while break; do echo body; done; echo done", 0), ("x=abc; while :; do break $x; done", 128)],
)
def test_former_hangs_end_at_once(sb: Sandbox, script: str, status: int) -> None:
    t = time.perf_counter()
    sb.shell(script)
    assert time.perf_counter() - t < 5, "the loop ran until the timeout"
    assert sb.last_result.exit_code == status


def test_descriptors_and_process_substitution(sb: Sandbox) -> None:
    assert sb.shell("exec 3>&1; echo hi >&3; exec 3>&-") == "hi\n"
    assert sb.shell("diff <(printf 'a\\nb\\n') <(printf 'a\\nc\\n')") == "2c2\n< b\n---\n> c\n"
    assert sb.last_result.exit_code == 1
    assert sb.shell("head -2 <(yes)") == "y\ny\n"


def test_expansions_agents_use(sb: Sandbox) -> None:
    script = (
        "f() { printf '<%s>' \"-$@-\"; echo; }; f a b; e=(); for x in \"${e[@]}\"; do echo never; done; "
        "a=apple; ref=a; echo ${!ref} $(( 16#ff )); (( c[99]=1 )); echo ${#c[@]}; "
        "true | false; echo ${PIPESTATUS[@]}; printf '%q\\n' 'a b'"
    )
    assert sb.shell(script) == "<-a><b->\napple 255\n1\n0 1\na\\ b\n"


def test_a_difference_is_an_error_that_names_it(sb: Sandbox) -> None:
    sb.shell("sleep 1 &")
    assert sb.last_result.exit_code == 2
    assert "background" in sb.last_stderr


def test_jq_keeps_numbers_as_written(sb: Sandbox) -> None:
    rows = [{"id": i, "price": 1.50, "big": 12345678901234567890} for i in range(3)]
    sb.shell(f"cat > /workspace/rows.json <<'EOF'\n{json.dumps(rows)}\nEOF")
    out = sb.shell("jq -c '[.[] | select(.id >= 1) | {id, price, big}]' /workspace/rows.json")
    assert out == '[{"big":12345678901234567890,"id":1,"price":1.5},{"big":12345678901234567890,"id":2,"price":1.5}]\n'
