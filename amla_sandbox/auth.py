"""Authorities and PCAs (docs/capabilities.md, "PCA tokens").

A PCA is a CBOR token, signed with Ed25519, stating which tool patterns an
executor may call. Keys, signing and the CBOR encoding are in the Go core:
this module needs no ``cryptography`` package.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from types import ModuleType

__all__ = ["PCA", "EphemeralAuthority"]

_KEY_PREFIX = "ed25519:"


def _go() -> ModuleType:
    """The door to the Go core, loaded on first use."""
    from . import _core

    return _core


@dataclass
class PCA:
    """A signed capability token; ``to_cbor()`` gives its bytes."""

    cbor_bytes: bytes = field(repr=False)

    def to_cbor(self) -> bytes:
        return self.cbor_bytes


@dataclass
class EphemeralAuthority:
    """An Ed25519 key pair that issues PCAs. ``EphemeralAuthority()`` makes
    a fresh one; ``from_seed`` a deterministic one. Its repr shows no key
    material."""

    __test__ = False  # keep pytest from collecting the TestAuthority alias

    # The 32-byte seed, the 32-byte public key, and the 64-byte
    # seed+public key form signers use. Never passed by callers.
    _private_key: bytes = field(init=False, repr=False)
    _public_key: bytes = field(init=False, repr=False)
    _signing_key: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._load_seed(os.urandom(32))

    def _load_seed(self, seed: bytes) -> None:
        key_hex = _go().pca_key_from_seed(seed.hex())
        public = bytes.fromhex(key_hex[len(_KEY_PREFIX) :])
        self._private_key = seed
        self._public_key = public
        self._signing_key = seed + public

    @classmethod
    def from_seed(cls, seed: bytes) -> EphemeralAuthority:
        """The authority whose key pair derives from a 32-byte seed."""
        if not isinstance(seed, (bytes, bytearray, memoryview)):
            raise TypeError(f"seed must be bytes, got {type(seed).__name__}")
        seed = bytes(seed)
        if len(seed) != 32:
            raise ValueError("Seed must be exactly 32 bytes")
        authority = cls.__new__(cls)
        authority._load_seed(seed)
        return authority

    def public_key_bytes(self) -> bytes:
        """The 32 raw public key bytes."""
        return self._public_key

    def public_key_hex(self) -> str:
        """``"ed25519:"`` followed by 64 lowercase hex digits."""
        return _KEY_PREFIX + self._public_key.hex()

    def create_pca(
        self,
        capabilities: list[str] | None = None,
        expires_in_secs: int = 3600,
        designated_executor: str | None = None,
    ) -> PCA:
        """Sign a PCA granting ``capabilities`` (default ``["tool_call:**"]``;
        a ``tool_call:`` prefix is removed) to ``designated_executor``
        (default: this authority's key), valid for ``expires_in_secs``."""
        patterns: list[str] | None = None
        if capabilities is not None:
            patterns = []
            for c in capabilities:
                if not isinstance(c, str):
                    raise TypeError(f"capabilities must be str patterns, got {type(c).__name__}")
                patterns.append(c)
        if designated_executor is not None and (
            not isinstance(designated_executor, str) or not designated_executor.startswith(_KEY_PREFIX)
        ):
            raise ValueError(f"Unknown key algorithm in: {designated_executor}")
        if isinstance(expires_in_secs, bool) or not isinstance(expires_in_secs, (int, float)):
            raise TypeError(f"expires_in_secs must be a number, got {type(expires_in_secs).__name__}")
        if math.isnan(expires_in_secs) or abs(expires_in_secs) > 2**62:
            raise OverflowError(f"expires_in_secs out of range: {expires_in_secs!r}")
        # The core refuses bad input with ValueError (OverflowError for an
        # expiry outside the years 1 to 9999).
        token_hex = _go().pca_create(self._private_key.hex(), patterns, int(expires_in_secs), designated_executor or "")
        return PCA(cbor_bytes=bytes.fromhex(token_hex))


TestAuthority = EphemeralAuthority
