"""Node habits in the JavaScript guest, through the public API (issue 21):
the synchronous fs API, crypto.createHash/createHmac, and what import
statements and import() do. Digests are checked against Python's hashlib and
hmac over the same bytes, plus the standard test vectors."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random

import pytest

from amla_sandbox import Sandbox


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as s:
        yield s


def run(sb: Sandbox, code: str):
    """Runs code and returns its JSON result (the script returns a value)."""
    out = sb.execute(code)
    assert sb.last_result.exit_code == 0, sb.last_result.stderr
    return json.loads(out)


def fail(sb: Sandbox, code: str) -> str:
    """Runs code that must fail and returns its stderr."""
    sb.execute(code)
    assert sb.last_result.exit_code == 1
    return sb.last_result.stderr


# ---- fs, synchronously ---------------------------------------------------


def test_sync_fs_reads_and_writes_like_node(sb: Sandbox):
    got = run(
        sb,
"""
        const fs = require('fs');
        fs.writeFileSync('notes.txt', 'héllo');
        fs.appendFileSync('notes.txt', ' world\\n');
        fs.writeFileSync('bytes.bin', Buffer.from([0, 255, 1]));
        fs.writeFileSync('data.json', JSON.stringify({a: [1, 2]}));
        const buf = fs.readFileSync('notes.txt');
        return {
          text: fs.readFileSync('notes.txt', 'utf8'),
          opts: fs.readFileSync('/workspace/notes.txt', {encoding: 'utf-8'}),
          isBuffer: Buffer.isBuffer(buf), length: buf.length, viaToString: buf.toString(),
          parsed: JSON.parse(fs.readFileSync('data.json')),
          hex: fs.readFileSync('bytes.bin', 'hex'), b64: fs.readFileSync('bytes.bin', 'base64'),
          same: fs === globalThis.fs && fs === require('node:fs'),
        };
        """,
    )
    assert got == {
        "text": "héllo world\n",
        "opts": "héllo world\n",
        "isBuffer": True,
        "length": 13,
        "viaToString": "héllo world\n",
        "parsed": {"a": [1, 2]},
        "hex": "00ff01",
        "b64": "AP8B",
        "same": True,
    }
    # The files are the sandbox's: the shell sees them.
    assert sb.shell("cat /workspace/notes.txt") == "héllo world\n"


def test_sync_fs_directories_and_stats(sb: Sandbox):
    got = run(
        sb,
        """
        const fs = require('fs');
        const first = fs.mkdirSync('tree/a/b', {recursive: true});
        const again = fs.mkdirSync('tree/a/b', {recursive: true});
        fs.writeFileSync('tree/a/f.txt', '12345');
        const st = fs.statSync('tree/a/f.txt');
        const dst = fs.statSync('tree/a');
        fs.copyFileSync('tree/a/f.txt', 'tree/copy.txt');
        fs.renameSync('tree/copy.txt', 'tree/moved.txt');
        const before = fs.readdirSync('tree').sort();
        const typed = fs.readdirSync('tree/a', {withFileTypes: true}).map((d) => [d.name, d.isFile(), d.isDirectory()]);
        const deep = fs.readdirSync('tree', {recursive: true}).sort();
        fs.unlinkSync('tree/moved.txt');
        fs.rmSync('tree/a', {recursive: true});
        fs.rmSync('tree/nothing-here', {force: true});
        return {
          first, again, size: st.size, isFile: st.isFile(), isDir: st.isDirectory(), dirIsDir: dst.isDirectory(),
          mtime: st.mtime instanceof Date && Math.abs(st.mtimeMs - Date.now()) < 60000,
          lstatFile: fs.lstatSync('tree').isDirectory(),
          before, typed, deep, after: fs.readdirSync('tree'),
          exists: [fs.existsSync('tree'), fs.existsSync('tree/a'), fs.existsSync(''), fs.existsSync(42)],
          missing: fs.statSync('nope', {throwIfNoEntry: false}) === undefined, again: again === undefined,
        };
        """,
    )
    assert got == {
        "first": "/workspace/tree",
        "size": 5,
        "isFile": True,
        "isDir": False,
        "dirIsDir": True,
        "mtime": True,
        "lstatFile": True,
        "before": ["a", "moved.txt"],
        "typed": [["b", False, True], ["f.txt", True, False]],
        "deep": ["a", "a/b", "a/f.txt", "moved.txt"],
        "after": [],
        "exists": [True, False, False, False],
        "missing": True,
        "again": True,
    }


def test_sync_fs_errors_carry_node_codes(sb: Sandbox):
    got = run(
        sb,
        """
        const fs = require('fs');
        const tryIt = (f) => { try { f(); return 'no error'; } catch (e) { return [e.code, e.message, e.syscall]; } };
        return {
          missing: tryIt(() => fs.readFileSync('nope.txt')),
          outside: tryIt(() => fs.writeFileSync('/etc/passwd', 'x')),
          mkdirExists: tryIt(() => { fs.mkdirSync('dup'); fs.mkdirSync('dup'); }),
          rmdirFull: tryIt(() => { fs.writeFileSync('dup/f', ''); fs.rmSync('dup'); }),
          unlinkMissing: tryIt(() => fs.unlinkSync('nope.txt')),
          notADir: tryIt(() => fs.readdirSync('dup/f')),
          badData: tryIt(() => fs.writeFileSync('x.txt', {a: 1})),
        };
        """,
    )
    assert got["missing"] == ["ENOENT", "ENOENT: no such file or directory, open 'nope.txt'", "open"]
    assert got["outside"][0] == "EACCES" and "permission denied" in got["outside"][1]
    assert got["mkdirExists"][0] == "EEXIST" and "'dup'" in got["mkdirExists"][1]
    assert got["rmdirFull"][0] in ("EISDIR", "ERR_FS_EISDIR", "ENOTEMPTY")
    assert got["unlinkMissing"][0] == "ENOENT"
    assert got["notADir"][0] == "ENOTDIR"
    assert got["badData"][0] is None and "must be of type string" in got["badData"][1]


def test_sync_writes_count_against_the_disk_quota():
    with Sandbox(disk_quota=1024 * 1024) as small:
        out = small.execute(
            "const fs = require('fs');"
            "try { for (let i = 0; ; i++) fs.writeFileSync('f' + i, 'x'.repeat(100000)); }"
            "catch (e) { console.log(e.code); }"
            "fs.writeFileSync('after.txt', 'ok') === undefined;"
        )
        assert out.startswith("ENOSPC\n")


def test_async_fs_still_works_and_matches_sync(sb: Sandbox):
    got = run(
        sb,
        """
        await fs.writeFile('async.txt', 'a');
        const viaSync = require('fs').readFileSync('async.txt', 'utf8');
        const st = await fs.stat('async.txt');
        return [viaSync, await fs.readFile('async.txt'), st.isFile, typeof require('fs').promises.readFile];
        """,
    )
    assert got == ["a", "a", True, "function"]


# ---- crypto ---------------------------------------------------------------

VECTORS = [b"", b"abc", b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", b"a" * 1000, "héllo ☃".encode()]


@pytest.mark.parametrize("alg", ["md5", "sha1", "sha256", "sha512"])
def test_create_hash_matches_hashlib(sb: Sandbox, alg: str):
    rng = random.Random(alg)
    blobs = VECTORS + [bytes(rng.randrange(256) for _ in range(n)) for n in (55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 5000)]
    got = run(
        sb,
        f"""
        const crypto = require('crypto');
        const blobs = {json.dumps([base64.b64encode(b).decode() for b in blobs])}.map((s) => Buffer.from(s, 'base64'));
        return blobs.map((b) => {{
          const whole = crypto.createHash('{alg}').update(b).digest('hex');
          // The same bytes fed in uneven pieces.
          const h = crypto.createHash('{alg}');
          for (let i = 0; i < b.length; i += 7) h.update(b.subarray(i, i + 7));
          return [whole, h.digest('hex')];
        }});
        """,
    )
    for blob, (whole, pieces) in zip(blobs, got):
        want = hashlib.new(alg, blob).hexdigest()
        assert whole == want and pieces == want, (alg, len(blob))


def test_hash_inputs_and_outputs(sb: Sandbox):
    got = run(
        sb,
        """
        const crypto = require('crypto');
        const h = () => crypto.createHash('sha256');
        const buf = h().update('abc').digest();
        return {
          str: h().update('héllo').digest('hex'),
          chain: h().update('a').update(Buffer.from('b')).update(new Uint8Array([99])).digest('hex'),
          hexIn: h().update('616263', 'hex').digest('hex'),
          b64: h().update('abc').digest('base64'),
          b64url: h().update('abc').digest('base64url'),
          bufLen: buf.length, isBuffer: Buffer.isBuffer(buf), bufHex: buf.toString('hex'),
          upper: crypto.createHash('SHA256').update('abc').digest('hex'),
          oneShot: crypto.hash('sha1', 'abc'),
          copy: (() => { const a = h().update('ab'); const b = a.copy(); a.update('c'); return [a.digest('hex'), b.digest('hex')]; })(),
          hashes: crypto.getHashes(),
        };
        """,
    )
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    assert got["str"] == sha("héllo".encode())
    assert got["chain"] == got["hexIn"] == got["bufHex"] == got["upper"] == sha(b"abc")
    assert got["b64"] == base64.b64encode(hashlib.sha256(b"abc").digest()).decode()
    assert got["b64url"] == base64.urlsafe_b64encode(hashlib.sha256(b"abc").digest()).decode().rstrip("=")
    assert got["bufLen"] == 32 and got["isBuffer"] is True
    assert got["oneShot"] == hashlib.sha1(b"abc").hexdigest()
    assert got["copy"] == [sha(b"abc"), sha(b"ab")]
    assert got["hashes"] == ["md5", "sha1", "sha256", "sha512"]


def test_hash_misuse_is_an_error(sb: Sandbox):
    got = run(
        sb,
        """
        const crypto = require('crypto');
        const tryIt = (f) => { try { f(); return 'no error'; } catch (e) { return [e.name, e.code, e.message]; } };
        const done = crypto.createHash('md5'); done.digest('hex');
        return {
          unknown: tryIt(() => crypto.createHash('sha3-256')),
          twice: tryIt(() => done.digest('hex')),
          updateAfter: tryIt(() => done.update('x')),
          badData: tryIt(() => crypto.createHash('md5').update(42)),
          badEncoding: tryIt(() => crypto.createHash('md5').digest('utf16le')),
        };
        """,
    )
    assert got["unknown"][2] == 'Digest method not supported: "sha3-256" (the sandbox has md5, sha1, sha256, sha512)'
    assert got["twice"][1:] == ["ERR_CRYPTO_HASH_FINALIZED", "Digest already called"]
    assert got["updateAfter"][1] == "ERR_CRYPTO_HASH_FINALIZED"
    assert got["badData"][0] == "TypeError" and got["badData"][1] == "ERR_INVALID_ARG_TYPE"
    assert got["badEncoding"][0] == "TypeError"


@pytest.mark.parametrize("alg", ["md5", "sha1", "sha256", "sha512"])
def test_create_hmac_matches_python_hmac(sb: Sandbox, alg: str):
    keys = [b"key", b"", b"k" * 64, b"K" * 129, bytes(range(200))]
    msgs = [b"The quick brown fox jumps over the lazy dog", b"", b"x" * 300]
    got = run(
        sb,
        f"""
        const crypto = require('crypto');
        const dec = (s) => Buffer.from(s, 'base64');
        const keys = {json.dumps([base64.b64encode(k).decode() for k in keys])}.map(dec);
        const msgs = {json.dumps([base64.b64encode(m).decode() for m in msgs])}.map(dec);
        const out = [];
        for (const k of keys) for (const m of msgs) out.push(crypto.createHmac('{alg}', k).update(m).digest('hex'));
        out.push(crypto.createHmac('{alg}', 'key').update('The quick brown fox ').update('jumps over the lazy dog').digest('base64'));
        return out;
        """,
    )
    want = [hmac.new(k, m, alg).hexdigest() for k in keys for m in msgs]
    want.append(base64.b64encode(hmac.new(b"key", b"The quick brown fox jumps over the lazy dog", alg).digest()).decode())
    assert got == want


def test_hmac_rfc4231_case_2(sb: Sandbox):
    # RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    got = sb.execute("const c = require('crypto'); return c.createHmac('sha256', 'Jefe').update('what do ya want for nothing?').digest('hex')").strip()
    assert got == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"


def test_random_helpers(sb: Sandbox):
    got = run(
        sb,
        """
        const c = require('crypto');
        const ints = Array.from({length: 200}, () => c.randomInt(3, 6));
        return {uuid: c.randomUUID(), bytes: c.randomBytes(16).length, ints: [Math.min(...ints), Math.max(...ints)],
                safe: [c.timingSafeEqual(Buffer.from('ab'), Buffer.from('ab')), c.timingSafeEqual(Buffer.from('ab'), Buffer.from('ac'))]};
        """,
    )
    import re

    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", got["uuid"])
    assert got["bytes"] == 16 and got["ints"] == [3, 5] and got["safe"] == [True, False]


# ---- import ----------------------------------------------------------------


@pytest.mark.parametrize(
    "statement,instead",
    [
        ("import fs from 'fs';", "const fs = require('fs')"),
        ('import {readFileSync, writeFileSync as w} from "node:fs"', "const {readFileSync, writeFileSync: w} = require('node:fs')"),
        ("import * as path from 'path'", "const path = require('path')"),
        ("  import crypto from 'crypto'", "const crypto = require('crypto')"),
    ],
)
def test_import_statement_says_what_to_write(sb: Sandbox, statement: str, instead: str):
    err = fail(sb, f"const x = 1;\n{statement}\nconsole.log(x)")
    assert err.startswith("SyntaxError: import statements are not supported")
    assert f"Write {instead} instead" in err
    assert "at script.js:2:" in err


def test_import_of_fs_mentions_the_global(sb: Sandbox):
    assert "or use the global fs" in fail(sb, "import fs from 'fs'")


def test_export_statement_is_explained(sb: Sandbox):
    assert fail(sb, "export const a = 1").startswith("SyntaxError: export statements are not supported")


def test_other_syntax_errors_are_untouched(sb: Sandbox):
    assert fail(sb, "let x = 1 +;").startswith("SyntaxError: unexpected token in expression")


def test_the_word_import_in_strings_and_comments_is_left_alone(sb: Sandbox):
    out = sb.execute("// import fs from 'fs'\nconst s = \"import fs from 'fs'\";\nconsole.log(s)")
    assert out == "import fs from 'fs'\n"


def test_dynamic_import_loads_built_in_modules(sb: Sandbox):
    got = run(
        sb,
        """
        const fs = await import('fs');
        const {join} = await import('node:path');
        const crypto = (await import('crypto')).default;
        fs.writeFileSync('imp.txt', 'via import()');
        let missing;
        try { await import('lodash'); } catch (e) { missing = e.code + ': ' + e.message.split(':')[0]; }
        return [fs.readFileSync('imp.txt', 'utf8'), join('a', 'b'), crypto.createHash('md5').update('').digest('hex'), missing];
        """,
    )
    assert got == ["via import()", "a/b", "d41d8cd98f00b204e9800998ecf8427e", "MODULE_NOT_FOUND: Cannot find module 'lodash'"]
