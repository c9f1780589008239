"""JSON.stringify in the JavaScript guest (guests/js/json.c) through the public
API: the spec's rules value by value, replacers and gaps, the errors bad
input gets, the depth limit, and a randomised round trip."""

from __future__ import annotations

import pytest

from amla_sandbox import Sandbox


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as box:
        yield box


def stringify(sb: Sandbox, args: str) -> str:
    out = sb.execute(f"const r = JSON.stringify({args}); console.log(r === undefined ? '<undefined>' : r)")
    return out[:-1] if out.endswith("\n") else out


# Expected texts are what Node 20 prints for the same call (QuickJS-NG's own
# JSON.stringify printed the same before json.c replaced it).
@pytest.mark.parametrize(
    "args,want",
    [
        # primitives and numbers
        ("null", "null"),
        ("true", "true"),
        ("'a'", '"a"'),
        ("undefined", "<undefined>"),
        ("() => 1", "<undefined>"),
        ("Symbol('s')", "<undefined>"),
        ("[0, -0, 1.5, 1e21, 1e-7, -1e300, 2**53, 2**53 + 2, 0.1 + 0.2]",
         "[0,0,1.5,1e+21,1e-7,-1e+300,9007199254740992,9007199254740994,0.30000000000000004]"),
        ("[NaN, Infinity, -Infinity, 2147483647, -2147483648]", "[null,null,null,2147483647,-2147483648]"),
        # strings: escapes, control characters, lone surrogates, non-ASCII
        (r"'x\"y\\z\n\t\r\b\f\u0001\u001f\u007f'", r'"x\"y\\z\n\t\r\b\f\u0001\u001f' + "\x7f" + '"'),
        (r"'\ud800 lone \udc00 pair \ud83d\ude00 é ü 中'", '"\\ud800 lone \\udc00 pair \U0001f600 é ü 中"'),
        # objects: order, omission, inherited and non-enumerable properties
        ("{b: 1, a: undefined, c() {}, [Symbol('s')]: 1, d: [undefined, , 3]}", '{"b":1,"d":[null,null,3]}'),
        ("{'1': 1, b: 2, '0': 0, a: 3}", '{"0":0,"1":1,"b":2,"a":3}'),
        ("Object.create({inherited: 1}, {own: {value: 2, enumerable: true}, hidden: {value: 3}})", '{"own":2}'),
        ("{get g() { return 5 }}", '{"g":5}'),
        ("(function () { return arguments })(1, 2)", '{"0":1,"1":2}'),
        # boxed primitives, toJSON, exotic objects
        ("[new Number(3), new String('s'), new Boolean(false), Object(Symbol('q'))]", '[3,"s",false,{}]'),
        ("{d: new Date(0)}", '{"d":"1970-01-01T00:00:00.000Z"}'),
        ("{k: {toJSON(key) { return 'key:' + key }}}", '{"k":"key:k"}'),
        ("[{toJSON(key) { return typeof key + key }}]", '["string0"]'),
        ("[new Map([[1, 2]]), new Set([1]), /re/g, new Error('boom'), new Uint8Array([1, 2])]",
         '[{},{},{},{},{"0":1,"1":2}]'),
        ("JSON.rawJSON('1e1000')", "1e1000"),
        # proxies: traps decide keys, enumerability and IsArray
        ("new Proxy({a: 1, b: 2}, {ownKeys: () => ['b', 'a', 'c'], getOwnPropertyDescriptor: (t, k) =>"
         " k === 'c' ? undefined : {value: t[k], enumerable: k !== 'b', configurable: true}})", '{"a":1}'),
        ("new Proxy([1, 2], {})", "[1,2]"),
        # replacer functions and property lists
        ("{a: 1, b: [2, {c: 3}]}, (k, v) => typeof v === 'number' ? v * 10 : v", '{"a":10,"b":[20,{"c":30}]}'),
        ("{a: 1, b: 2}, function (k, v) { return k === '' ? (this[''] === v ? v : 'bad holder') : v }",
         '{"a":1,"b":2}'),
        ("{a: 1, b: 2, c: {a: 3, z: 4}, 1: 5}, ['c', 'a', 1, new String('b'), {}, 'a']",
         '{"c":{"a":3},"a":1,"1":5,"b":2}'),
        # gaps
        ("{a: [{}], b: [], c: {}}, null, 2", '{\n  "a": [\n    {}\n  ],\n  "b": [],\n  "c": {}\n}'),
        ("[1, {x: 1}], null, '--é'", '[\n--é1,\n--é{\n--é--é"x": 1\n--é}\n]'),
        ("{a: 1}, null, 20", '{\n          "a": 1\n}'),
        ("{a: 1}, null, new Number(1)", '{\n "a": 1\n}'),
        ("{a: 1}, null, '12345678901234'", '{\n1234567890"a": 1\n}'),
        ("{a: 1}, null, -3", '{"a":1}'),
        ("{a: 1}, null, '\\t'", '{\n\t"a": 1\n}'),
    ],
)
def test_stringify_follows_the_spec(sb: Sandbox, args: str, want: str) -> None:
    assert stringify(sb, args) == want


@pytest.mark.parametrize(
    "code,want",
    [
        ("const a = {}; a.b = {c: a}; JSON.stringify(a)", "TypeError: circular reference"),
        ("const a = [1]; a.push(a); JSON.stringify(a)", "TypeError: circular reference"),
        ("JSON.stringify({n: 1n})", "TypeError: BigInt are forbidden in JSON.stringify"),
        ("JSON.stringify(Object(1n))", "TypeError: BigInt are forbidden in JSON.stringify"),
        ("JSON.stringify({get x() { throw new Error('getter threw') }})", "Error: getter threw"),
        ("JSON.stringify({toJSON() { throw new TypeError('toJSON threw') }})", "TypeError: toJSON threw"),
        ("JSON.stringify([1], () => { throw new SyntaxError('replacer threw') })", "SyntaxError: replacer threw"),
        ("const p = Proxy.revocable({}, {}); p.revoke(); JSON.stringify(p.proxy)",
         "TypeError: revoked proxy"),
        ("let o = 1; for (let i = 0; i < 6000; i++) o = [o]; JSON.stringify(o)",
         "RangeError: Maximum call stack size exceeded (JSON nested too deeply)"),
    ],
)
def test_bad_values_throw_errors_the_script_can_catch(sb: Sandbox, code: str, want: str) -> None:
    out = sb.execute(f"try {{ {code}; console.log('no error') }} catch (e) {{ console.log(e.name + ': ' + e.message) }}")
    assert out == want + "\n"
    assert sb.execute("console.log(JSON.stringify({ok: true}))") == '{"ok":true}\n'


def test_nesting_up_to_the_limit_round_trips(sb: Sandbox) -> None:
    # JSON.parse accepts 5,000 levels; stringify writes as many.
    code = (
        "let o = 0; for (let i = 0; i < 4999; i++) o = [o];"
        "const t = JSON.stringify(o); const back = JSON.parse(t);"
        "console.log(t.length, JSON.stringify(back) === t)"
    )
    assert sb.execute(code) == "9999 true\n"


def test_a_long_result_needs_about_its_own_size(sb: Sandbox) -> None:
    # 40 MB of text whose JSON is 50 MB, in the default 256 MiB. Reserving
    # the worst case up front (6 bytes a character), or a buffer plus a copy
    # of it, did not fit.
    code = "const s = 'abcd\\n'.repeat(8 * 1024 * 1024); console.log(JSON.stringify(s).length)"
    assert sb.execute(code) == "50331650\n"


@pytest.mark.parametrize(
    "build",
    [
        # one long string: parts end inside it, never inside a character
        "const v = 'é中\\ud83d\\ude00\\n\"'.repeat(1024 * 1024)",
        # many values: parts end between them
        "const v = []; for (let i = 0; i < 200000; i++) v.push({k: 'é中\\ud83d\\ude00\\n' + i, n: i / 7})",
    ],
    ids=["one long string", "many values"],
)
def test_a_result_past_8_mib_reads_back(sb: Sandbox, build: str) -> None:
    code = (
        build + "; const t = JSON.stringify(v);"
        "console.log(new TextEncoder().encode(t).length > 8 * 1024 * 1024, JSON.stringify(JSON.parse(t)) === t)"
    )
    assert sb.execute(code) == "true true\n"


def test_bigint_with_a_to_json_method_is_serialised(sb: Sandbox) -> None:
    code = "BigInt.prototype.toJSON = function () { return 'big' + this }; console.log(JSON.stringify({n: 5n}))"
    assert sb.execute(code) == '{"n":"big5"}\n'


def test_replacing_globals_does_not_change_stringify(sb: Sandbox) -> None:
    code = (
        "Array.isArray = () => false; Boolean.prototype.valueOf = () => true;"
        "console.log(JSON.stringify([new Boolean(false), new Proxy([1], {})]))"
    )
    assert sb.execute(code) == "[false,[1]]\n"


def test_property_attributes_match_the_builtin(sb: Sandbox) -> None:
    code = (
        "const d = Object.getOwnPropertyDescriptor(JSON, 'stringify');"
        "console.log(JSON.stringify.name, JSON.stringify.length, d.writable, d.enumerable, d.configurable)"
    )
    assert sb.execute(code) == "stringify 3 true false true\n"


def test_random_values_round_trip(sb: Sandbox) -> None:
    # Seeded random JSON values: parse(stringify(v)) deep-equals v and
    # stringify(parse(text)) gives text back, with and without a gap.
    code = r"""
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const chars = 'abc"\\\n\t\u0000\u001f é中\ud83d\ude00';
function str() { let s = ''; const n = Math.floor(rnd() * 8); for (let i = 0; i < n; i++) s += chars[Math.floor(rnd() * chars.length)]; return s; }
function num() { const k = rnd(); return k < 0.3 ? Math.floor(rnd() * 2000) - 1000 : k < 0.6 ? (rnd() - 0.5) * 1e6 : k < 0.8 ? rnd() * 1e-8 : (rnd() - 0.5) * 1e300; }
function val(d) {
  const k = rnd();
  if (d > 5 || k < 0.35) return [null, true, false][Math.floor(rnd() * 3)] ?? null;
  if (k < 0.5) return num();
  if (k < 0.65) return str();
  if (k < 0.8) { const a = []; const n = Math.floor(rnd() * 5); for (let i = 0; i < n; i++) a.push(val(d + 1)); return a; }
  const o = {}; const n = Math.floor(rnd() * 5); for (let i = 0; i < n; i++) o[str()] = val(d + 1); return o;
}
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
}
let bad = 0;
for (let i = 0; i < 2000; i++) {
  const v = val(0);
  for (const gap of [undefined, 2, '\t']) {
    const t = JSON.stringify(v, null, gap);
    if (!same(JSON.parse(t), v) || JSON.stringify(JSON.parse(t), null, gap) !== t) { bad++; if (bad < 3) console.log('mismatch', t); }
  }
}
console.log('bad', bad);
"""
    assert sb.execute(code) == "bad 0\n"
