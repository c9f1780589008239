"""What the adapters share: the ImportError that names an adapter's extra."""

from __future__ import annotations


def missing_framework(adapter: str, framework: str, extra: str, cause: ImportError) -> ImportError:
    """The error an adapter module raises when its framework is not installed."""
    err = ImportError(
        f"amla_sandbox.integrations.{adapter} needs {framework}, which is not installed "
        f"(No module named {cause.name!r}): pip install \"amla-sandbox[{extra}]\""
    )
    err.name = cause.name
    return err
