"""A transform or middleware given something it cannot use says so when it is made, naming itself:
never a bare `AttributeError` from inside it, nor an error at the first call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolweave.middleware import Timeout
from toolweave.transforms import Arg, FromClaim, FromEnv, FromHeader, MaskErrors, Rename

MISTAKES: dict[str, tuple[Callable[[], Any], str]] = {
    "Rename(5)": (lambda: Rename(5), "Rename: tool name 5 is not valid"),  # type: ignore[arg-type]
    "Arg(name=5)": (lambda: Arg(name=5), "Arg: name is the argument's new name"),
    "Arg(name='')": (lambda: Arg(name=""), "Arg: name is the argument's new name"),
    "FromHeader('')": (lambda: FromHeader(""), "FromHeader needs the name of what to read"),
    "FromClaim('')": (lambda: FromClaim(""), "FromClaim needs the name of what to read"),
    "FromEnv(' ')": (lambda: FromEnv(" "), "FromEnv needs the name of what to read"),
    "Timeout(per_tool='x')": (lambda: Timeout(per_tool="x"), "Timeout per_tool takes"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize(("make", "message"), MISTAKES.values(), ids=MISTAKES.keys())
def test_a_mistake_is_refused_when_made_naming_what(make: Callable[[], Any], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_mask_errors_takes_one_exception_class_as_except_does() -> None:
    """`passthrough=ValueError`, the natural thing to write, failed with 'type' object is not iterable."""
    assert MaskErrors(passthrough=ValueError).passthrough == (ValueError,)  # type: ignore[arg-type]
