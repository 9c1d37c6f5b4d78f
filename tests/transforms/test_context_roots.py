"""`FromContext` refuses a path that does not start with an attribute of the request `Context`."""

from __future__ import annotations

import pytest

from toolweave.core.context import AuthInfo, Context
from toolweave.transforms import FromContext
from toolweave.transforms.sources import CONTEXT_ROOTS


def test_an_unknown_first_part_is_refused_when_the_source_is_made() -> None:
    with pytest.raises(ValueError, match=r"FromContext path 'nonsense.path' starts with 'nonsense'.*one of request_id"):
        FromContext("nonsense.path")


@pytest.mark.parametrize("path", ["auth.subject", "state.tenant", "client.name", "headers.x-tenant", "peer"])
def test_paths_on_the_context_are_accepted(path: str) -> None:
    assert FromContext(path).path == path


def test_the_roots_are_the_contexts_data_attributes_not_its_sinks() -> None:
    assert {"auth", "state", "headers", "client", "meta"} <= set(CONTEXT_ROOTS)
    assert not {"progress_sink", "log_sink"} & set(CONTEXT_ROOTS)


def test_a_known_root_still_reads_its_value() -> None:
    assert FromContext("auth.subject").get(Context(auth=AuthInfo(subject="u-1"))) == "u-1"
