"""An HTTP upstream's default name — its log prefix, `toolweave.upstream` span attribute and
metrics label — is the URL's host alone, and the URL as logs show it hides a token in its user:
never a token carried in the URL."""

from __future__ import annotations

import pytest

from toolweave import RemoteServer

NAMES = {
    "https://ghp_s3cr3t@api.example.com/mcp": "api.example.com",
    "https://user:s3cr3t@api.example.com:8443/mcp": "api.example.com",
    "https://api.example.com?key=s3cr3t": "api.example.com",
    "http://[::1]:8000/mcp": "::1",
    "http://127.0.0.1:8000/mcp": "127.0.0.1",
}


@pytest.mark.parametrize(("url", "name"), NAMES.items(), ids=NAMES.keys())
def test_the_default_name_of_an_http_upstream_is_its_host(url: str, name: str) -> None:
    assert RemoteServer.http(url).name == name


def test_a_token_as_the_urls_user_is_not_shown_in_logs() -> None:
    shown = RemoteServer.http("https://ghp_s3cr3t@api.example.com/mcp").target.describe()
    assert shown == "https://***@api.example.com/mcp"
