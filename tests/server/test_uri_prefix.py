"""`UriPrefix`: the forward and reverse URI mapping of a mount."""

from __future__ import annotations

import pytest

from toolweave.core.content import TextResourceContents
from toolweave.core.resource import ResourceResult
from toolweave.server.uri_prefix import UriPrefix


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        ("resource://invoices/{id}", "resource://billing/invoices/{id}"),
        ("resource://cities", "resource://billing/cities"),
        ("file:///tmp/x", "file://billing//tmp/x"),
        ("urn:isbn:123", "urn:billing/isbn:123"),
    ],
)
def test_apply_and_strip_are_inverse(child: str, parent: str) -> None:
    prefix = UriPrefix("billing")
    assert prefix.apply(child) == parent
    assert prefix.strip(parent) == child


def test_no_prefix_passes_uris_through() -> None:
    assert UriPrefix(None).apply("resource://x") == "resource://x"


def test_relabel_only_touches_contents_of_the_child_uri() -> None:
    result = ResourceResult([TextResourceContents("r://a", "1"), TextResourceContents("r://other", "2")])
    relabelled = UriPrefix("p").relabel(result, "r://a", "r://p/a")
    assert [item.uri for item in relabelled.contents] == ["r://p/a", "r://other"]
