"""`UriPrefix`: the forward and reverse URI mapping of a mount."""

from __future__ import annotations

import pytest

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

