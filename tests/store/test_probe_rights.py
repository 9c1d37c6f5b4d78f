"""A Redis that refuses what the store needs stops the start, said once: a wrong or missing
password, and an ACL user without the rights the store uses (its keys, scripting, its channels),
with one process or with `serve --workers`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.conftest import subprocess_env
from tests.store.redis_server import RedisServer
from tests.store.test_probe_settings import password_redis
from tests.store.test_workers import TOOLS
from toolweave import Server
from toolweave.core.errors import ConfigError
from toolweave.store import RedisStore

pytestmark = pytest.mark.timeout(240)  # worker processes on a loaded machine

USERS = {
    "others": ["+@all", "~others:*", "&*"],  # keys of another application only
    "reader": ["+@all", "%R~toolweave:*", "&*"],  # the store's keys, read-only
    "noscripts": ["+@all", "-@scripting", "~toolweave:*", "&*"],
    "nochannels": ["+@all", "~toolweave:*", "resetchannels"],  # Redis 7's default for a new user
    "enough": ["+@all", "~toolweave:*", "&toolweave:*"],
}
"""ACL users (password "pw") and their rules: all but `enough` lack a right the store uses."""


@pytest.fixture(scope="module")
def locked(redis_server: RedisServer) -> Iterator[RedisServer]:
    """A redis-server that wants the password "right-one", with the ACL users of `USERS`."""
    server = password_redis(redis_server)
    server.start()
    cli = [server.binary.replace("redis-server", "redis-cli"), "-p", str(server.port), "--no-auth-warning"]
    try:
        for user, rules in USERS.items():
            command = [*cli, "-a", "right-one", "ACL", "SETUSER", user, "on", ">pw", *rules]
            assert subprocess.run(command, capture_output=True, text=True, timeout=10).stdout.strip() == "OK"
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("user", ["others", "reader", "noscripts", "nochannels"])
async def test_a_user_without_the_rights_the_store_uses_does_not_start(locked: RedisServer, user: str) -> None:
    """Each use would fail as an "outage" for ever (a rate limit per process, no cache, no fan-out)."""
    url = f"redis://{user}:pw@127.0.0.1:{locked.port}/0"
    with pytest.raises(ConfigError, match="refused the store's rights: NoPermissionError") as refused:
        async with Server("gw", store=RedisStore(url, timeout=2.0)):
            pass
    assert "'toolweave:*'" in str(refused.value) and ":pw@" not in str(refused.value)


async def test_a_user_with_the_rights_the_store_uses_starts(locked: RedisServer) -> None:
    async with Server("gw", store=RedisStore(f"redis://enough:pw@127.0.0.1:{locked.port}/0", timeout=2.0)) as server:
        assert server.running


@pytest.mark.parametrize("credentials", [":wrong-one@", "", "others:pw@"], ids=["wrong", "none", "acl"])
def test_workers_on_a_refusing_store_say_so_once_and_none_starts(
    tmp_path: Path, locked: RedisServer, credentials: str
) -> None:
    """The parent checks the store before it starts any worker: one message, exit status 1 (each
    worker said it, and with an ACL user the workers served on, every use an "outage")."""
    (tmp_path / "pid_tools.py").write_text(TOOLS)
    path = tmp_path / "gw.yaml"
    url = f"redis://{credentials}127.0.0.1:{locked.port}/0"
    path.write_text(f"server: {{name: gw, store: {{url: '{url}', timeout: 2}}}}\npython: ['pid_tools:server']\n")
    command = [sys.executable, "-m", "toolweave", "serve", str(path), "--transport", "http", "--port", "0"]
    done = subprocess.run(
        [*command, "--workers", "3"], capture_output=True, text=True, env=subprocess_env(), timeout=120
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("refused the") == 1, done.stderr
    assert "worker" not in done.stderr and "Serving" not in done.stderr
    assert "wrong-one" not in done.stderr and ":pw@" not in done.stderr


async def test_a_read_only_replica_does_not_start(redis_server: RedisServer, tmp_path: Path) -> None:
    """Every write there fails ("READONLY"): the store would be an outage for ever."""
    replica = RedisServer(redis_server.binary, tmp_path)
    replica.start()
    try:
        cli = [replica.binary.replace("redis-server", "redis-cli"), "-p", str(replica.port)]
        made = await anyio.run_process([*cli, "REPLICAOF", "127.0.0.1", str(redis_server.port)])
        assert made.stdout.strip() == b"OK"
        with pytest.raises(ConfigError, match="ReadOnlyError") as refused:
            async with Server("gw", store=RedisStore(replica.url, timeout=2.0)):
                pass
    finally:
        replica.stop()
    assert "read-only replica: give its primary's" in str(refused.value)


async def test_a_redis_busy_running_a_script_at_start_is_an_outage_not_a_refusal(
    redis_server: RedisServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis "BUSY" passes once the script ends (or is killed): the server starts, and says Redis is unreachable."""
    busy = RedisServer(redis_server.binary, tmp_path)
    busy.start()
    cli = [busy.binary.replace("redis-server", "redis-cli"), "-p", str(busy.port)]
    try:
        await anyio.run_process([*cli, "CONFIG", "SET", "busy-reply-threshold", "50"])
        async with await anyio.open_process([*cli, "EVAL", "while true do end", "0"]):
            try:
                with anyio.fail_after(30):
                    while b"BUSY" not in (await anyio.run_process([*cli, "PING"])).stdout:  # noqa: ASYNC110 - another process's state
                        await anyio.sleep(0.05)
                async with Server("gw", store=RedisStore(busy.url, timeout=2.0)) as server:
                    assert server.running
            finally:  # the script's end lets its redis-cli end
                await anyio.run_process([*cli, "SCRIPT", "KILL"], check=False)
    finally:
        busy.stop()
    assert any("is unreachable (ResponseError: BUSY" in record.getMessage() for record in caplog.records)
