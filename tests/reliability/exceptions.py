"""Exception kinds for the leak tests, each carrying a canary and a file path in its message."""

from __future__ import annotations

import json
from collections.abc import Callable

import pydantic

CANARY = "canary-leak-5e1f"
PATH = "/srv/secret/config.yaml"
SECRET = f"{CANARY} at {PATH}"


class Custom(Exception):
    """A library's own error type."""


class LoudRepr(Exception):
    def __repr__(self) -> str:
        return f"LoudRepr({SECRET})"


def _validation() -> BaseException:
    class Model(pydantic.BaseModel):
        n: int

    try:
        Model(n=SECRET)  # type: ignore[arg-type]
    except pydantic.ValidationError as error:
        return error
    raise AssertionError("unreachable")


def _json() -> BaseException:
    try:
        json.loads(SECRET)
    except json.JSONDecodeError as error:
        return error
    raise AssertionError("unreachable")


KINDS: dict[str, Callable[[], BaseException]] = {
    "ValueError": lambda: ValueError(SECRET),
    "KeyError": lambda: KeyError(SECRET),
    "TypeError": lambda: TypeError(SECRET),
    "RuntimeError": lambda: RuntimeError(SECRET),
    "ZeroDivisionError": lambda: ZeroDivisionError(SECRET),
    "AttributeError": lambda: AttributeError(SECRET),
    "IndexError": lambda: IndexError(SECRET),
    "LookupError": lambda: LookupError(SECRET),
    "OSError": lambda: OSError(2, SECRET, PATH),
    "FileNotFoundError": lambda: FileNotFoundError(2, "No such file", PATH),
    "PermissionError": lambda: PermissionError(13, SECRET, PATH),
    "ConnectionRefusedError": lambda: ConnectionRefusedError(111, SECRET),
    "TimeoutError": lambda: TimeoutError(SECRET),
    "UnicodeDecodeError": lambda: UnicodeDecodeError("utf-8", SECRET.encode(), 0, 1, SECRET),
    "JSONDecodeError": _json,
    "ValidationError": _validation,
    "AssertionError": lambda: AssertionError(SECRET),
    "NotImplementedError": lambda: NotImplementedError(SECRET),
    "RecursionError": lambda: RecursionError(SECRET),
    "OverflowError": lambda: OverflowError(SECRET),
    "MemoryError": lambda: MemoryError(SECRET),
    "ExceptionGroup": lambda: ExceptionGroup(SECRET, [ValueError(SECRET)]),
    "Custom": lambda: Custom(SECRET),
    "LoudRepr": lambda: LoudRepr(SECRET),
    "SystemExit": lambda: SystemExit(SECRET),
    "KeyboardInterrupt": lambda: KeyboardInterrupt(SECRET),
}
FORBIDDEN = [CANARY, PATH, "Traceback", "secret/config"]


def leaked(text: str, kind: str) -> list[str]:
    """What of the forbidden text (the canary, the path, `Traceback`, the type name) `text` shows."""
    return [word for word in [*FORBIDDEN, kind] if word in text]
