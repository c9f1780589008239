"""The `ssl` module of the sandbox: a stand-in, because TLS is the host's.

CPython here has no `_ssl`. HTTPS requests are made by the host (net.py),
with Go's TLS, the system's roots and the policy's extra_ca_certs, and the
host always verifies the certificate and the name. This module gives the
libraries what they look for so that they offer HTTPS at all
(http.client.HTTPSConnection, urllib's HTTPSHandler, urllib3 and requests
build contexts at import): the constants, the exceptions, and SSLContext
whose settings are kept and change nothing. verify_mode=CERT_NONE,
check_hostname=False, _create_unverified_context() and certificate files
do not weaken the host's TLS. Wrapping a socket gives back the sandbox's
HostSocket (http.client's HTTPSConnection wraps it); any other socket
cannot be wrapped: the sandbox has no sockets.
"""

from __future__ import annotations

import base64
import enum
import os
from collections import namedtuple

OPENSSL_VERSION = "OpenSSL 3.0 (stand-in: TLS is made and verified by the sandbox's host)"
OPENSSL_VERSION_INFO = (3, 0, 0, 0, 0)
OPENSSL_VERSION_NUMBER = 0x30000000
_OPENSSL_API_VERSION = OPENSSL_VERSION_INFO

HAS_SNI = HAS_ALPN = HAS_ECDH = HAS_TLSv1_2 = HAS_TLSv1_3 = HAS_NEVER_CHECK_COMMON_NAME = True
HAS_NPN = HAS_SSLv2 = HAS_SSLv3 = HAS_TLSv1 = HAS_TLSv1_1 = HAS_PSK = HAS_PHA = False
CHANNEL_BINDING_TYPES: list[str] = []

_NO_TLS = ("the sandbox has no sockets to wrap: HTTPS requests are made by the host (urllib.request, http.client, "
           "requests, httpx) under the sandbox's network policy")


class _SSLMethod(enum.IntEnum):
    PROTOCOL_SSLv23 = 2
    PROTOCOL_TLSv1 = 3
    PROTOCOL_TLSv1_1 = 4
    PROTOCOL_TLSv1_2 = 5
    PROTOCOL_TLS_CLIENT = 16
    PROTOCOL_TLS_SERVER = 17


class Options(enum.IntFlag):
    OP_ALL = 0x80000050
    OP_NO_SSLv2 = 0
    OP_NO_SSLv3 = 0x02000000
    OP_NO_TLSv1 = 0x04000000
    OP_NO_TLSv1_1 = 0x10000000
    OP_NO_TLSv1_2 = 0x08000000
    OP_NO_TLSv1_3 = 0x20000000
    OP_NO_COMPRESSION = 0x20000
    OP_NO_TICKET = 0x4000
    OP_NO_RENEGOTIATION = 0x40000000
    OP_CIPHER_SERVER_PREFERENCE = 0x400000
    OP_SINGLE_DH_USE = 0
    OP_SINGLE_ECDH_USE = 0
    OP_ENABLE_MIDDLEBOX_COMPAT = 0x100000
    OP_IGNORE_UNEXPECTED_EOF = 0x80
    OP_LEGACY_SERVER_CONNECT = 0x4
    OP_ENABLE_KTLS = 0x8


class VerifyMode(enum.IntEnum):
    CERT_NONE = 0
    CERT_OPTIONAL = 1
    CERT_REQUIRED = 2


class VerifyFlags(enum.IntFlag):
    VERIFY_DEFAULT = 0
    VERIFY_CRL_CHECK_LEAF = 0x4
    VERIFY_CRL_CHECK_CHAIN = 0xC
    VERIFY_X509_STRICT = 0x20
    VERIFY_ALLOW_PROXY_CERTS = 0x40
    VERIFY_X509_TRUSTED_FIRST = 0x8000
    VERIFY_X509_PARTIAL_CHAIN = 0x80000


class TLSVersion(enum.IntEnum):
    MINIMUM_SUPPORTED = -2
    MAXIMUM_SUPPORTED = -1
    SSLv3 = 0x0300
    TLSv1 = 0x0301
    TLSv1_1 = 0x0302
    TLSv1_2 = 0x0303
    TLSv1_3 = 0x0304


class SSLErrorNumber(enum.IntEnum):
    SSL_ERROR_SSL = 1
    SSL_ERROR_WANT_READ = 2
    SSL_ERROR_WANT_WRITE = 3
    SSL_ERROR_WANT_X509_LOOKUP = 4
    SSL_ERROR_SYSCALL = 5
    SSL_ERROR_ZERO_RETURN = 6
    SSL_ERROR_WANT_CONNECT = 7
    SSL_ERROR_EOF = 8
    SSL_ERROR_INVALID_ERROR_CODE = 10


for _enum in (_SSLMethod, Options, VerifyMode, VerifyFlags, SSLErrorNumber):
    globals().update(_enum.__members__)
PROTOCOL_TLS = PROTOCOL_SSLv23  # noqa: F821  (defined just above)
del _enum


class Purpose(enum.Enum):
    SERVER_AUTH = "1.3.6.1.5.5.7.3.1"
    CLIENT_AUTH = "1.3.6.1.5.5.7.3.2"


class SSLError(OSError):
    """An error of TLS (the host reports its own as refusals naming the check)."""


class SSLZeroReturnError(SSLError):
    pass


class SSLWantReadError(SSLError):
    pass


class SSLWantWriteError(SSLError):
    pass


class SSLSyscallError(SSLError):
    pass


class SSLEOFError(SSLError):
    pass


class SSLCertVerificationError(SSLError, ValueError):
    pass


CertificateError = SSLCertVerificationError
socket_error = OSError

DefaultVerifyPaths = namedtuple("DefaultVerifyPaths", "cafile capath openssl_cafile_env openssl_cafile "
                                "openssl_capath_env openssl_capath")


def get_default_verify_paths() -> DefaultVerifyPaths:
    return DefaultVerifyPaths(None, None, "SSL_CERT_FILE", "", "SSL_CERT_DIR", "")


class SSLContext:
    """Settings a library makes for TLS, kept and otherwise unused: the host
    makes every TLS connection and always verifies it."""

    sslsocket_class: type | None = None
    sslobject_class: type | None = None

    def __init__(self, protocol: int | None = None, *args, **kwargs) -> None:
        self.protocol = _SSLMethod(PROTOCOL_TLS if protocol is None else protocol)
        client = self.protocol == PROTOCOL_TLS_CLIENT  # noqa: F821
        self.check_hostname = client
        self.verify_mode = VerifyMode.CERT_REQUIRED if client else VerifyMode.CERT_NONE
        self.verify_flags = VerifyFlags.VERIFY_X509_TRUSTED_FIRST
        self.options = Options.OP_ALL | Options.OP_NO_SSLv3 | Options.OP_NO_COMPRESSION
        self.minimum_version = TLSVersion.MINIMUM_SUPPORTED
        self.maximum_version = TLSVersion.MAXIMUM_SUPPORTED
        self.post_handshake_auth = False
        self.hostname_checks_common_name = False
        self.keylog_filename = None
        self.sni_callback = None
        self.security_level = 2
        self.num_tickets = 2

    def load_verify_locations(self, cafile=None, capath=None, cadata=None) -> None:
        pass

    def load_cert_chain(self, certfile, keyfile=None, password=None) -> None:
        pass

    def load_default_certs(self, purpose: Purpose = Purpose.SERVER_AUTH) -> None:
        pass

    def set_default_verify_paths(self) -> None:
        pass

    def set_ciphers(self, ciphers: str) -> None:
        pass

    def set_alpn_protocols(self, protocols) -> None:
        pass

    def set_npn_protocols(self, protocols) -> None:
        pass

    def set_ecdh_curve(self, name) -> None:
        pass

    def set_servername_callback(self, callback) -> None:
        self.sni_callback = callback

    def load_dh_params(self, path) -> None:
        pass

    def get_ca_certs(self, binary_form: bool = False) -> list:
        return []

    def get_ciphers(self) -> list:
        return []

    def cert_store_stats(self) -> dict:
        return {"x509": 0, "crl": 0, "x509_ca": 0}

    def session_stats(self) -> dict:
        return {}

    def wrap_socket(self, sock, server_side: bool = False, do_handshake_on_connect: bool = True,
                    suppress_ragged_eofs: bool = True, server_hostname=None, session=None):
        from .netclients import HostSocket

        if isinstance(sock, HostSocket) and not server_side:
            sock.scheme = "https"
            return sock
        raise SSLError(_NO_TLS)

    def wrap_bio(self, *args, **kwargs):
        raise SSLError(_NO_TLS)

    def __repr__(self) -> str:
        return f"<ssl.SSLContext (stand-in; the sandbox's host makes and verifies TLS) at {id(self):#x}>"


class SSLSocket:
    """Never made: the sandbox has no sockets (kept for isinstance checks)."""

    def __init__(self, *args, **kwargs) -> None:
        raise SSLError(_NO_TLS)


class SSLObject(SSLSocket):
    pass


class MemoryBIO:
    def __init__(self, *args, **kwargs) -> None:
        raise SSLError(_NO_TLS)


class SSLSession:
    pass


def create_default_context(purpose: Purpose = Purpose.SERVER_AUTH, *, cafile=None, capath=None, cadata=None) -> SSLContext:
    return SSLContext(PROTOCOL_TLS_CLIENT if purpose == Purpose.SERVER_AUTH else PROTOCOL_TLS_SERVER)  # noqa: F821


def _create_unverified_context(protocol=None, *, cert_reqs=VerifyMode.CERT_NONE, check_hostname: bool = False,
                               purpose: Purpose = Purpose.SERVER_AUTH, certfile=None, keyfile=None, cafile=None,
                               capath=None, cadata=None) -> SSLContext:
    context = SSLContext(PROTOCOL_TLS_CLIENT if protocol is None else protocol)  # noqa: F821
    context.check_hostname = check_hostname
    context.verify_mode = VerifyMode(cert_reqs)
    return context


_create_default_https_context = create_default_context
_create_stdlib_context = _create_unverified_context


def wrap_socket(sock, *args, **kwargs):
    return SSLContext().wrap_socket(sock, *args, **kwargs)


def get_server_certificate(addr, *args, **kwargs):
    raise SSLError(_NO_TLS)


def DER_cert_to_PEM_cert(der_cert_bytes: bytes) -> str:
    text = base64.encodebytes(der_cert_bytes).decode("ascii")
    return "-----BEGIN CERTIFICATE-----\n" + text + "-----END CERTIFICATE-----\n"


def PEM_cert_to_DER_cert(pem_cert_string: str) -> bytes:
    head, tail = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    text = pem_cert_string.strip()
    if not text.startswith(head) or not text.endswith(tail):
        raise ValueError(f"Invalid PEM encoding; must start with {head!r} and end with {tail!r}")
    return base64.decodebytes(text[len(head) : -len(tail)].encode("ascii"))


def RAND_bytes(n: int) -> bytes:
    return os.urandom(n)


def RAND_status() -> bool:
    return True


def RAND_add(data, entropy: float) -> None:
    pass


for _name, _value in list(globals().items()):
    if isinstance(_value, type) and _value.__module__ == __name__:
        _value.__module__ = "ssl"
del _name, _value
