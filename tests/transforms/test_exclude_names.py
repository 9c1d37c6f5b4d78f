"""`ExcludeArgs` takes its names one per argument or as one list; anything else is refused clearly."""

from __future__ import annotations

from typing import Any

import pytest

from toolweave import Tool
from toolweave.transforms import ExcludeArgs


def search(query: str, debug: bool = False, trace: bool = False) -> str:
    return query


@pytest.mark.parametrize("transform", [ExcludeArgs("debug", "trace"), ExcludeArgs(["debug", "trace"])])
def test_names_given_one_by_one_or_as_a_list_exclude_the_same(transform: ExcludeArgs) -> None:
    tool = Tool.from_function(search).with_transforms(transform)
    assert (transform.names, list(tool.input_schema["properties"])) == (("debug", "trace"), ["query"])


@pytest.mark.parametrize("given", [(1,), (["debug", 1],), ("debug", ["trace"])])
def test_anything_but_names_is_a_type_error_saying_how_to_write_them(given: tuple[Any, ...]) -> None:
    with pytest.raises(TypeError, match=r"ExcludeArgs takes argument names, as ExcludeArgs\('a', 'b'\)"):
        ExcludeArgs(*given)


@pytest.mark.parametrize("given", [(), ([],)])
def test_no_names_is_a_value_error(given: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="ExcludeArgs needs at least one argument name"):
        ExcludeArgs(*given)
