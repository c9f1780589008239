"""Authorities and PCAs (docs/capabilities.md, "PCA tokens")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
import sys
from datetime import UTC, datetime, timedelta

import pytest

import amla_sandbox
from amla_sandbox import auth
from amla_sandbox.auth import PCA, EphemeralAuthority

KAT_PUB = "ee31f83c88a71219a6fcf9bee0da9bc22620588f5a15a6145553504df9649e5c"


def _go():
    from amla_sandbox import _core

    return _core


def test_fresh_authority() -> None:
    a = EphemeralAuthority()
    assert a.public_key_hex().startswith("ed25519:")
    assert len(a.public_key_hex()) == 8 + 64
    assert a.public_key_hex() == a.public_key_hex().lower()
    assert len(a.public_key_bytes()) == 32
    assert EphemeralAuthority().public_key_bytes() != a.public_key_bytes()


def test_repr_hides_keys() -> None:
    a = EphemeralAuthority.from_seed(b"x" * 32)
    assert repr(a) == "EphemeralAuthority()"
    pca = a.create_pca()
    assert repr(pca) == "PCA()"
    assert a._private_key == b"x" * 32
    assert a._public_key == bytes.fromhex(KAT_PUB)
    assert len(a._signing_key) == 64


def test_from_seed_is_deterministic() -> None:
    a = EphemeralAuthority.from_seed(b"x" * 32)
    b = EphemeralAuthority.from_seed(b"x" * 32)
    assert a.public_key_hex() == b.public_key_hex() == "ed25519:" + KAT_PUB
    assert a.public_key_bytes() == b.public_key_bytes()
    assert EphemeralAuthority.from_seed(bytearray(b"x" * 32)).public_key_hex() == a.public_key_hex()


@pytest.mark.parametrize("seed", [b"", b"x" * 31, b"x" * 33, b"x" * 64])
def test_seed_length(seed: bytes) -> None:
    with pytest.raises(ValueError, match="^Seed must be exactly 32 bytes$"):
        EphemeralAuthority.from_seed(seed)


def test_seed_type() -> None:
    with pytest.raises(TypeError):
        EphemeralAuthority.from_seed("x" * 32)  # type: ignore[arg-type]


def test_create_pca() -> None:
    a = EphemeralAuthority()
    pca = a.create_pca(capabilities=["tool_call:**"])
    assert isinstance(pca, PCA)
    assert pca.to_cbor() == pca.cbor_bytes
    assert len(pca.to_cbor()) > 0
    assert _go().pca_verify(pca.to_cbor().hex(), [a.public_key_hex()]) == ["**"]


def test_pca_layout() -> None:
    a = EphemeralAuthority.from_seed(b"x" * 32)
    cbor = a.create_pca(capabilities=["tool_call:stripe/**", "mcp:add"], expires_in_secs=60).to_cbor()
    assert cbor[0] == 0xA6  # a map of 6
    for key in (b"version", b"capabilities", b"designated_executor", b"expires_at", b"issuer", b"signature"):
        assert key in cbor
    assert b"cap:0" in cbor and b"cap:1" in cbor and b"tool-call" in cbor
    assert b"stripe/**" in cbor and b"tool_call:" not in cbor
    i = cbor.index(b"expires_at") + len(b"expires_at") + 2
    stamp = cbor[i : i + 25].decode()
    assert stamp.endswith("+00:00")
    expires = datetime.fromisoformat(stamp)
    now = datetime.now(UTC)
    assert now < expires <= now + timedelta(seconds=61)
    assert ("ed25519:" + KAT_PUB).encode() in cbor


def test_designated_executor() -> None:
    a = EphemeralAuthority()
    b = EphemeralAuthority()
    pca = a.create_pca(designated_executor=b.public_key_hex())
    assert b.public_key_bytes() in pca.to_cbor()
    for bad in ["rsa:1234", "", "ED25519:" + KAT_PUB]:
        with pytest.raises(ValueError, match="^Unknown key algorithm in: "):
            a.create_pca(designated_executor=bad)
    with pytest.raises(ValueError):
        a.create_pca(designated_executor="ed25519:nothex")


def test_pca_verification_in_the_core() -> None:
    a = EphemeralAuthority()
    other = EphemeralAuthority()
    cbor = a.create_pca(capabilities=["a/*", "tool_call:b"]).to_cbor()
    trusted = [other.public_key_hex(), a.public_key_hex()]
    assert _go().pca_verify(cbor.hex(), trusted) == ["a/*", "b"]
    with pytest.raises(amla_sandbox.RuntimeError, match="not a trusted authority"):
        _go().pca_verify(cbor.hex(), [other.public_key_hex()])
    expired = a.create_pca(expires_in_secs=-1).to_cbor()
    with pytest.raises(amla_sandbox.RuntimeError, match="expired"):
        _go().pca_verify(expired.hex(), [a.public_key_hex()])
    tampered = cbor.replace(b"a/*", b"a/b")
    with pytest.raises(amla_sandbox.RuntimeError, match="signature verification failed"):
        _go().pca_verify(tampered.hex(), [a.public_key_hex()])


def test_empty_and_odd_capability_lists() -> None:
    a = EphemeralAuthority()
    assert _go().pca_verify(a.create_pca(capabilities=[]).to_cbor().hex(), [a.public_key_hex()]) == []
    with pytest.raises(TypeError):
        a.create_pca(capabilities=[1])  # type: ignore[list-item]
    with pytest.raises(OverflowError):
        a.create_pca(expires_in_secs=10**15)


def test_alias() -> None:
    assert auth.TestAuthority is EphemeralAuthority
    assert set(auth.__all__) == {"EphemeralAuthority", "PCA"}


def test_no_cryptography_needed() -> None:
    code = (
        "import sys; sys.modules['cryptography'] = None; sys.modules['nacl'] = None\n"
        "from amla_sandbox.auth import EphemeralAuthority\n"
        "a = EphemeralAuthority(); assert a.create_pca().to_cbor()\n"
        "assert 'cryptography' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    # Run where the package under test is importable (installed or in-place),
    # never the source tree of the current directory by accident.
    import amla_sandbox

    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(amla_sandbox.__file__).resolve().parent.parent)
