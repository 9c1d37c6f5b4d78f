"""What the real `toolweave call` refuses before it calls: arguments given twice, and callers the
HTTP edge refuses (the same verdict both ways: docs/decisions.md, "The CLI's callers are the HTTP
edge's")."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest
import yaml

from tests.acceptance.cli_helpers import run_cli
from tests.auth.issuer import Issuer
from tests.auth.test_auth_config import errors, write_config
from tests.serving import serving
from toolweave.config import build_file

TOOLS = '''
from toolweave import AuthInfo, Context, Server

server = Server("desk")


@server.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool
def whoami(ctx: Context) -> str:
    """Who is calling."""
    return ctx.auth.subject if ctx.auth is not None else "nobody"


def authenticate(headers):
    if "x-crash" in headers:
        raise KeyError("boom")
    return AuthInfo(subject="ada") if headers.get("authorization") == "Bearer ada-token" else None
'''


def desk(folder: Path, **server: str) -> str:
    """A config serving `add` and `whoami`, with these `server` settings."""
    (folder / "desk_tools.py").write_text(TOOLS)
    config = {"server": {"name": "desk", **server}, "python": ["desk_tools:server"]}
    path = folder / "desk.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


async def edge_status(config: str, header: str) -> int:
    """The HTTP status the config's HTTP edge answers a request with `header` on its MCP endpoint."""
    composed = build_file(config)
    options = composed.auth or {"authenticate": composed.authenticate}
    async with serving(composed.server.http_app(**options)) as url, httpx2.AsyncClient() as http:
        name, _, value = header.partition(":")
        answer = await http.post(url + "/mcp", headers={name: value.strip()}, json={})
    return answer.status_code


async def call(*args: str) -> tuple[int, str, list[str]]:
    """`toolweave call *args` (in a thread: the test's event loop serves the edge meanwhile)."""
    done = await anyio.to_thread.run_sync(lambda: run_cli("call", *args))
    return done.returncode, done.stdout, errors(done.stderr)


# -- arguments and headers given twice -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "refusal"),
    [
        (["a=1", "a=2", "b=3"], "error: argument 'a' is given twice: 'a=1' and 'a=2'"),
        (["a=1", "--json-args", '{"a": 5, "b": 2}'], "error: argument 'a' is given both as 'a=1' and in --json-args"),
        (["--json-args", '{"a": 1, "b": 2, "a": 5}'], "error: --json-args: a: key 'a' appears twice at the top level"),
    ],
    ids=["as key=value twice", "as key=value and in --json-args", "twice in --json-args"],
)
def test_an_argument_given_twice_is_a_usage_error_naming_both(tmp_path: Path, given: list[str], refusal: str) -> None:
    done = run_cli("call", desk(tmp_path), "add", *given)
    assert (done.returncode, done.stdout, errors(done.stderr)) == (2, "", [refusal])


def test_arguments_given_once_each_are_all_passed(tmp_path: Path) -> None:
    done = run_cli("call", desk(tmp_path), "add", "a=1", "--json-args", '{"b": 2}')
    assert (done.returncode, done.stdout) == (0, "3\n"), done.stderr


def test_a_string_enum_argument_is_taken_as_written(tmp_path: Path) -> None:
    """The help's promise, "an argument the tool declares as a string is always taken as written",
    for an enum (under `$defs`): `level=1` was sent as the number 1 and refused."""
    (tmp_path / "levels.py").write_text(
        "from enum import Enum\n\n\nclass Level(str, Enum):\n    low = '1'\n    high = '2'\n\n\n"
        "def pick(level: Level, other: Level | None = None) -> str:\n    return f'{level.value} {other}'\n"
    )
    (tmp_path / "levels.yaml").write_text("python: ['levels:pick']\n")
    done = run_cli("call", str(tmp_path / "levels.yaml"), "pick", "level=1", "other=null")
    assert (done.returncode, done.stdout) == (0, "1 None\n"), done.stderr


def test_a_header_given_twice_is_a_usage_error_naming_it_but_not_its_values(tmp_path: Path) -> None:
    config = desk(tmp_path, authenticate="desk_tools:authenticate")
    twice = ["-H", "Authorization: Bearer nope", "-H", "authorization: Bearer ada-token"]
    done = run_cli("call", config, "whoami", *twice)
    assert (done.returncode, done.stdout) == (2, "")
    assert errors(done.stderr) == ["error: header 'authorization' is given twice (-H takes each header once)"]
    assert "ada-token" not in done.stderr


def test_a_header_without_its_name_is_a_usage_error_that_does_not_quote_it(tmp_path: Path) -> None:
    """`-H "Bearer <token>"` (the name forgotten) printed the token back in the error."""
    done = run_cli("call", desk(tmp_path), "whoami", "-H", "Bearer ada-token")
    assert (done.returncode, done.stdout) == (2, "")
    assert errors(done.stderr) == ["error: -H takes 'Name: value' (one has no ':' or '=', or no name)"]


# -- server.auth: the Authorization header is read as the HTTP edge reads it ----------------------


@pytest.mark.parametrize(
    ("shape", "accepted"),
    [
        ("Bearer {}", True),
        ("bearer {}", True),
        ("Bearer  {}", False),  # two spaces: the edge's token starts with one
        ("Bearer\t{}", False),
        ("Token {}", False),
    ],
    ids=["Bearer", "lower-case scheme", "two spaces", "a tab", "another scheme"],
)
async def test_call_reads_the_bearer_header_as_the_http_edge_does(
    tmp_path: Path, issuer: Issuer, shape: str, accepted: bool
) -> None:
    config = str(write_config(tmp_path, issuer))
    header = "Authorization: " + shape.format(issuer.token(scope="tools"))
    status = await edge_status(config, header)
    code, _, _ = await call(config, "balance", "-H", header)
    assert (status == 401, code) == (not accepted, 0 if accepted else 1)


def test_a_bearer_header_with_two_spaces_is_refused_saying_where_the_token_starts(
    tmp_path: Path, issuer: Issuer
) -> None:
    token = issuer.token(scope="tools")
    done = run_cli("call", str(write_config(tmp_path, issuer)), "balance", "-H", f"Authorization: Bearer  {token}")
    assert (done.returncode, done.stdout) == (1, "")
    assert errors(done.stderr) == [
        "error: the token was refused: malformed token (Not enough segments or not base64url); the token starts "
        "with whitespace (the HTTP edge takes all that follows 'Bearer ' as the token)"
    ]
    assert token not in done.stderr


# -- server.authenticate: headers the hook finds no caller in are refused, as over HTTP -------------


async def test_a_header_the_hook_does_not_recognise_is_refused_as_the_http_edge_refuses_it(tmp_path: Path) -> None:
    config = desk(tmp_path, authenticate="desk_tools:authenticate")
    header = "Authorization: Bearer not-a-known-token"
    assert await edge_status(config, header) == 401
    code, out, refusals = await call(config, "whoami", "-H", header)
    assert (code, out) == (1, "")
    assert refusals == [
        "error: the authenticate hook (server.authenticate) finds no caller in the header given (authorization); "
        "over HTTP: 401"
    ]


def test_the_example_hook_refuses_an_unknown_token_without_showing_it() -> None:
    done = run_cli("call", "examples/identity.yaml", "add_note", "text=x", "-H", "Authorization: Bearer nope")
    assert (done.returncode, done.stdout) == (1, "")
    assert errors(done.stderr) == [
        "error: the authenticate hook (server.authenticate) finds no caller in the header given (authorization); "
        "over HTTP: 401"
    ]
    assert "nope" not in done.stderr


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([], "nobody\n"),  # no header: the operator's own call, with no caller, as before
        (["-H", "Authorization: Bearer ada-token"], "ada\n"),
    ],
    ids=["no header", "a header the hook recognises"],
)
def test_call_runs_as_the_caller_the_hook_finds_or_none_without_headers(
    tmp_path: Path, headers: list[str], expected: str
) -> None:
    done = run_cli("call", desk(tmp_path, authenticate="desk_tools:authenticate"), "whoami", *headers)
    assert (done.returncode, done.stdout) == (0, expected), done.stderr


def test_a_hook_that_fails_is_a_clear_refusal_with_its_traceback_logged(tmp_path: Path) -> None:
    config = desk(tmp_path, authenticate="desk_tools:authenticate")
    done = run_cli("call", config, "whoami", "-H", "X-Crash: s3cr3t-value")
    assert (done.returncode, done.stdout) == (1, "")
    assert errors(done.stderr) == ["error: the caller could not be checked: the authenticate hook failed (KeyError)"]
    assert "Traceback" in done.stderr and "s3cr3t-value" not in done.stderr
