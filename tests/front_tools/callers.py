"""Verified callers for front-tool tests: a real HTTP server whose `authenticate` hook reads the
caller's scopes from its bearer token, and the official `mcp` client sending that token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.serving import serving
from toolweave import AuthInfo, Server


def by_scopes(headers: Any) -> AuthInfo:
    """The caller named by its bearer token, which lists its scopes (a test's stand-in for a verifier)."""
    token = headers.get("authorization", "").removeprefix("Bearer ")
    return AuthInfo(subject="eve", scopes=tuple(token.split("+")) if token else (), token=token or None)


@asynccontextmanager
async def served(server: Server) -> AsyncIterator[str]:
    """The URL of `server`'s streamable HTTP app, callers verified by `by_scopes`."""
    async with serving(server.http_app(authenticate=by_scopes)) as url:
        yield url


@asynccontextmanager
async def as_caller(url: str, token: str) -> AsyncIterator[Client]:
    """The official client of the server at `url`, as the caller `token` names."""
    async with (
        httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http)) as client,
    ):
        yield client
