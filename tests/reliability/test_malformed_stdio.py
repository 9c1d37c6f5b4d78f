"""Over stdio every malformed message gets its JSON-RPC answer, and the server keeps serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import subprocess_env
from toolweave.mcp.malformed import answer, top_level_id

from .malformed_cases import CASES, NO_ANSWER, OVERSIZED, Case
from .raw import INITIALIZE, SERVERS, RawStdio


def assert_answered(case: Case, seen: list[dict], probe_id: int) -> None:
    probe = seen.pop()
    assert probe == {"jsonrpc": "2.0", "id": probe_id, "result": {}}, "the server stopped serving"
    if case.code == NO_ANSWER:
        assert seen == []
        return
    assert len(seen) == 1, f"{case.name}: {seen}"
    (reply,) = seen
    assert reply["error"]["code"] == case.code, reply
    assert reply["id"] == case.id
    assert reply["jsonrpc"] == "2.0" and reply["error"]["message"]


async def test_every_malformed_class_is_answered_over_stdio() -> None:
    raw = await RawStdio.start()
    try:
        for index, case in enumerate([*CASES, OVERSIZED]):
            probe = 1000 + index
            await raw.send(case.body)
            await raw.send(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % probe)
            assert_answered(case, await raw.answers_until(probe), probe)
    finally:
        assert await raw.close() == 0


async def test_many_lines_in_one_write_are_each_answered() -> None:
    raw = await RawStdio.start()
    try:
        bodies = [b"hello", b'{"jsonrpc":"2.0","id":1,"method":"ping"}', b'{"jsonrpc":"1.0","id":2,"method":"ping"}']
        await raw.send(b"\n".join(bodies * 3))
        seen = [await raw.receive() for _ in range(9)]
    finally:
        await raw.close()
    answers = sorted((str(m.get("id")), "error" in m) for m in seen)
    assert answers == sorted([("None", True), ("1", False), ("2", True)] * 3)


async def test_blank_lines_are_skipped() -> None:
    raw = await RawStdio.start()
    try:
        await raw.send(b"\n  \r\n")
        await raw.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        assert await raw.answers_until(1) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    finally:
        await raw.close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"params":{"id":1},"id":"a"}', "a"),
        ('{"method":"id","id":7}', 7),
        ('{"x":"\\"id\\":3","id":4}', 4),
        ('{"id":1.5}', None),
        ('[{"id":1}]', None),
        ('{"id":' + "9" * 30 + "}", None),
    ],
)
def test_the_top_level_id_is_found_without_parsing_the_rest(text: str, expected: object) -> None:
    assert top_level_id(text) == expected


def test_answers_never_quote_the_message() -> None:
    secret = "sk-canary-1234"
    for body in [f"{secret}", f'{{"jsonrpc":"2.0","id":1,"method":"{secret}","params":[]}}']:
        error = answer(body)
        assert error is not None and secret not in json.dumps(error.model_dump(mode="json"))


@pytest.mark.parametrize("stdin", ["null device", "regular file"])
def test_a_stdin_the_event_loop_cannot_poll_is_read_too(stdin: str, tmp_path: Path) -> None:
    lines = [json.dumps(INITIALIZE), '{"jsonrpc":"2.0","id":1,"method":"ping"}', "not json"]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    with open(os.devnull if stdin == "null device" else source, "rb") as handle:
        done = subprocess.run(
            [sys.executable, str(SERVERS / "target.py")],
            stdin=handle,
            capture_output=True,
            env=subprocess_env(),
            timeout=30,
            check=False,
        )
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    if stdin == "null device":
        assert answers == []
    else:
        assert [answer.get("id") for answer in answers] == [0, 1, None]
