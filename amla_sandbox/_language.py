"""The `language` argument of run()/start(): which guest runs the code."""

from __future__ import annotations

__all__ = ["normalize_language", "ACCEPTED_LANGUAGES"]

_ALIASES = {
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "typescript": "typescript",
    "ts": "typescript",
    "shell": "shell",
    "bash": "shell",
    "sh": "shell",
    "python": "python",
    "py": "python",
    "python3": "python",
}

ACCEPTED_LANGUAGES: tuple[str, ...] = tuple(_ALIASES)


def normalize_language(language: object) -> str:
    """`"javascript"`, `"typescript"`, `"shell"` or `"python"` for any
    accepted spelling.

    Accepted, in any case and with surrounding blanks ignored:
    "javascript", "js", "node"; "typescript", "ts"; "shell", "bash", "sh";
    "python", "py", "python3". Anything else is a ValueError that lists
    them (a value that is not a str too). TypeScript runs on the
    JavaScript guest once the host has stripped its types
    (docs/typescript.md).
    """
    canonical = _ALIASES.get(language.strip().lower()) if isinstance(language, str) else None
    if canonical is None:
        accepted = ", ".join(repr(a) for a in ACCEPTED_LANGUAGES)
        raise ValueError(f"Unsupported language {language!r:.80}; accepted values (any case): {accepted}")
    return canonical
