"""The applets added for issue 21, through the public API: each line is a
command a script runs in the sandbox shell and what GNU's tool prints for
it (the Go case files check every option against the real tools; these
check that the shipped guest has them)."""

from __future__ import annotations

import hashlib
import re

import pytest

from amla_sandbox import Sandbox


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as s:
        s.shell(
            "cd /workspace && printf '1,alice\\n2,bob\\n3,carol\\n' > users.csv"
            " && printf '1,admin\\n3,user\\n4,guest\\n' > roles.csv"
        )
        yield s


@pytest.mark.parametrize(
    "command,expected",
    [
        ("join -t, users.csv roles.csv", "1,alice,admin\n3,carol,user\n"),
        ("join -t, -v1 users.csv roles.csv", "2,bob\n"),
        ("join -t, -a2 -e NA -o 0,1.2,2.2 users.csv roles.csv", "1,alice,admin\n3,carol,user\n4,NA,guest\n"),
        ("cut -d, -f1 users.csv > a; cut -d, -f1 roles.csv > b; comm -12 a b | wc -l; comm -3 a b",
         "2\n2\n\t4\n"),
        ("echo '{\"a\":[1,2]}' > d.json; echo '.a | map(. * 2)' > p.jq; jq -c -f p.jq d.json", "[2,4]\n"),
        ("jq -n -e 'false'; echo $?", "false\n1\n"),
        ("date -u -d '2024-06-01 +1 day' +%F", "2024-06-02\n"),
        ("date -u -d '2024-06-03 -2 weeks' '+%F %a'", "2024-05-20 Mon\n"),
        ("date -u -d @1700000000 +%FT%T", "2023-11-14T22:13:20\n"),
        ("echo 'x id=42 y id=7' | grep -oP '(?<=id=)\\d+'", "42\n7\n"),
        ("echo 'user=ann; user=bo' | grep -oP 'user=\\K\\w+'", "ann\nbo\n"),
        ("printf 'v1.10\\nv1.9\\nv1.2\\n' | sort -V", "v1.2\nv1.9\nv1.10\n"),
        ("printf 'a 1\\nbbb 22\\n' | column -t", "a    1\nbbb  22\n"),
        ("numfmt --to=iec 1048576 1536", "1.0M\n1.5K\n"),
        ("echo 2K | numfmt --from=iec", "2048\n"),
        ("printf 'a\\nb\\nc\\n' | tac", "c\nb\na\n"),
        ("echo abc | rev", "cba\n"),
        ("printf 'a\\nb\\n' | nl -w1 -s' '", "1 a\n2 b\n"),
        ("echo 'hello world' | fold -w 5", "hello\n worl\nd\n"),
        ("printf 'a\\tb\\n' | expand -t 4", "a   b\n"),
        ("printf '        x\\n' | unexpand", "\tx\n"),
        ("printf 'abc' | od -An -c", "   a   b   c\n"),
        ("printf 'abc' > f; stat -c '%n %s %F' f", "f 3 regular file\n"),
        ("realpath -m --relative-to=/workspace /workspace/x/../y", "y\n"),
        ("timeout 5 echo ok; timeout 0.2 sleep 5; echo $?", "ok\n124\n"),
    ],
)
def test_applets(sb: Sandbox, command: str, expected: str):
    assert sb.shell("cd /workspace && " + command) == expected, sb.last_stderr


def test_hash_sums_match_hashlib_and_check(sb: Sandbox):
    sb.shell("cd /workspace && printf 'some data' > h.txt")
    for tool, alg in [("md5sum", "md5"), ("sha1sum", "sha1"), ("sha256sum", "sha256"), ("sha512sum", "sha512")]:
        want = hashlib.new(alg, b"some data").hexdigest()
        assert sb.shell(f"cd /workspace && {tool} h.txt") == f"{want}  h.txt\n"
        assert sb.shell(f"cd /workspace && {tool} h.txt > sums && {tool} -c sums") == "h.txt: OK\n"
    out = sb.shell("cd /workspace && md5sum h.txt > sums && echo changed > h.txt && md5sum -c sums; echo $?")
    assert out == "h.txt: FAILED\n1\n"
    assert "WARNING: 1 computed checksum did NOT match" in sb.last_stderr


def test_split_writes_numbered_files(sb: Sandbox):
    out = sb.shell("cd /workspace && mkdir -p sp && cd sp && seq 1 5 | split -l 2 -d - part_ && ls && cat part_02")
    assert out == "part_00\npart_01\npart_02\n5\n"


def test_shuf_is_a_permutation_that_changes_between_runs(sb: Sandbox):
    runs = [sb.shell("shuf -i 1-50") for _ in range(2)]
    for r in runs:
        assert sorted(int(x) for x in r.split()) == list(range(1, 51))
    assert runs[0] != runs[1]
    assert sb.shell("shuf -n 3 -e a b c d | wc -l") == "3\n"


def test_bad_input_names_the_thing_at_fault(sb: Sandbox):
    cases = [
        ("join -x a b", r"join: invalid option -- 'x'"),
        ("join users.csv nofile", r"join: nofile: No such file or directory"),
        ("comm users.csv", r"comm: missing operand after 'users.csv'"),
        ("jq -f nope.jq", r"jq: Could not open nope.jq: No such file or directory"),
        ("date -d 'next blursday'", r"date: invalid date 'next blursday'"),
        ("grep -P 'a(b' users.csv", r"grep: invalid Perl regular expression 'a\(b': missing closing \)"),
        ("numfmt --to=iec abc", r"numfmt: invalid number: 'abc'"),
        ("shuf -i 5-1", r"shuf: invalid input range: '5-1'"),
        ("split -l 0 users.csv", r"split: invalid number of lines: '0'"),
        ("od -t q users.csv", r"od: invalid character 'q' in type string 'q'"),
        ("stat nofile", r"stat: cannot statx 'nofile': No such file or directory"),
        ("column nofile", r"column: nofile: No such file or directory"),
        ("sha1sum --frob", r"sha1sum: unrecognized option '--frob'"),
    ]
    for command, message in cases:
        sb.shell("cd /workspace && " + command)
        assert sb.last_result.exit_code != 0, command
        assert re.search(message, sb.last_stderr), (command, sb.last_stderr)


def test_the_issue_pipeline_counts_with_join_and_comm(sb: Sandbox):
    # The script from issue 21 printed "0, 0" when join and comm were missing.
    out = sb.shell(
        "cd /workspace && cut -d, -f1 roles.csv > role_ids;"
        " paired=$(join -t, users.csv roles.csv | wc -l);"
        " unpaired=$(cut -d, -f1 users.csv | comm -23 - role_ids | wc -l);"
        " echo \"$paired, $unpaired\""
    )
    assert out == "2, 1\n"
