"""`RedisTaskStore`: task records in a server's `RedisStore`, so every replica answers for them.

One JSON document per task under `<namespace>:tasks:<server>:<task id>` (a server's replicas share
one name; another server on the same Redis never reads, answers or cancels its tasks; without
`server`, `<namespace>:tasks:<task id>`), written whole on each change (never over an ended
one: an ended task is final, whoever ended it) and expiring on its own:
an ended record `keep` seconds after its last change; a running one `keep` seconds after its
lease (so the record of a task whose server died and that nobody reads again still goes away).

A running task's lease is also a key of its own (`...:<task id>:lease`) that Redis expires when
the lease runs out; a replica reading the record takes the lease's end from it, on its own clock.
Every time is written as a duration from now, so replicas whose clocks disagree (by more than a
lease, even) neither fail each other's live tasks nor write records that are already expired.

Beside the records, `...:generation` holds a random token, written once (`SET NX`) by the first
write to an empty store and read with every read and write. A replica that sees it change or
vanish knows Redis lost the records (it restarted empty, or was flushed): `emptied_at()` says
when, and the task runner answers for the tasks it cannot find accordingly (see
`toolweave.tasks.runner`). `open()` reads it once when a server starts serving, so even a replica
that has not used the store yet notices a loss.

Beside them, each caller's records are indexed (for `create`'s bound on how many a caller holds):
`...:caller:<digest of the owner>:running` and `...:ended`, sorted sets of record keys scored by
when each record expires (on Redis's clock), kept by the same script that writes the records and
expiring with the last of them. `create` counts them, drops the caller's records that ended first
to make room, or refuses when all are running: one atomic step, whichever replica creates.

Every operation goes through the store's bounded `run`: an outage is `StoreUnavailable`, which a
client sees as an internal error (creating or reading a task) and the work only logs (saving its
progress or its end).

A server whose store is a `RedisStore` keeps its tasks there unless `configure_tasks(store=...)`
says otherwise. `relay()` carries `tasks/update` answers and `tasks/cancel` requests that reach
a replica other than the one running the task to that one (Redis pub/sub, via `Fanout`).

Example:
    >>> from toolweave.store import RedisStore
    >>> RedisTaskStore(RedisStore("redis://127.0.0.1:6379/0"), server="ci").key("abc")
    'toolweave:tasks:ci:abc'
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import time
from typing import TYPE_CHECKING, Any

from toolweave.store import RedisStore
from toolweave.store.fanout import Fanout
from toolweave.store.scripts import NOW_MS
from toolweave.tasks.record import TERMINAL, TaskRecord

if TYPE_CHECKING:
    from redis.asyncio import Redis  # an optional dependency (the `redis` extra)


class RedisTaskStore:
    """Task records in Redis (see the module docstring)."""

    def __init__(self, store: RedisStore, *, server: str | None = None) -> None:
        self.store = store
        self.server = server
        self._scope = () if server is None else (server,)  # None: keys shared with every server
        self._generation: Any = None  # the store's generation token, as last seen
        self._emptied_at: float | None = None

    def __repr__(self) -> str:
        return f"RedisTaskStore({self.store!r}, server={self.server!r})"

    def key(self, task_id: str) -> str:
        """The Redis key of a task's record."""
        return self.store.key("tasks", *self._scope, task_id)

    def emptied_at(self) -> float | None:
        """When (`time.monotonic()`) this store last saw that Redis lost the task records (the
        generation token changed or vanished), if it ever did."""
        return self._emptied_at

    async def open(self) -> None:
        """Note the store's generation (writing the first one if there is none)."""
        generation = self.key("generation")

        async def stamp(client: Redis) -> list[Any]:
            async with client.pipeline(transaction=True) as both:
                both.set(generation, secrets.token_hex(8), nx=True)
                both.get(generation)
                return await both.execute()  # type: ignore[no-any-return]

        self._saw((await self.store.run(stamp))[-1])

    async def put(self, record: TaskRecord) -> bool:
        return await self._write(record) == 1

    async def create(self, record: TaskRecord, limit: int) -> bool:
        """Store a new task's record, unless its owner holds `limit` records already, all of them
        running: whether it was stored. To make room, the owner's records that ended first are
        dropped (a result nobody read by then is lost)."""
        return await self._write(record, limit) == 1

    async def _write(self, record: TaskRecord, limit: int = 0) -> int:
        """Run `_PUT`: 1 written, 0 refused (the stored record has ended), -1 refused (`limit`)."""
        name, value = self.key(record.task_id), json.dumps(record.to_dict())
        until = record.expires_at if record.terminal else (record.lease_until or record.updated_at) + record.keep
        now = time.time()
        lease = 0 if record.terminal or record.lease_until is None else _ms(record.lease_until - now)
        digest = hashlib.sha256(record.owner.encode()).hexdigest()[:32]
        held = self.store.key("tasks", *self._scope, "caller", digest)  # the owner's index
        keys = [name, f"{name}:lease", self.key("generation"), f"{held}:running", f"{held}:ended"]
        args = [value, max(1, _ms(until - now)), lease, record.worker or "", secrets.token_hex(8)]
        args += [int(record.terminal), limit]
        written, generation = await self.store.run(
            lambda client: self.store.script(_PUT)(keys=keys, args=args, client=client)
        )
        self._saw(generation)
        return int(written)

    async def get(self, task_id: str) -> TaskRecord | None:
        name = self.key(task_id)
        generation = self.key("generation")

        async def read(client: Redis) -> list[Any]:
            async with client.pipeline(transaction=False) as both:
                both.get(name)
                both.pttl(f"{name}:lease")
                both.get(generation)
                return await both.execute()  # type: ignore[no-any-return]

        raw, lease_left, seen = await self.store.run(read)
        self._saw(seen)
        if raw is None:
            return None
        record = TaskRecord.from_dict(json.loads(raw))
        if lease_left >= 0:  # (the key exists only beside a running record with a lease)
            record = dataclasses.replace(record, lease_until=time.time() + lease_left / 1000)
        return record

    def _saw(self, generation: Any) -> None:
        if self._generation is not None and generation != self._generation:
            self._emptied_at = time.monotonic()
        self._generation = generation

    def relay(self) -> Fanout:
        """The channel replicas pass requests for each other's tasks on."""
        return Fanout(self.store, self.store.channel("tasks", *self._scope, "relay"))


_PUT = (
    NOW_MS
    + """
local stored = redis.call('GET', KEYS[1])
if stored and stored ~= ARGV[1] then
  local ok, record = pcall(cjson.decode, stored)
  local status = ok and type(record) == 'table' and record['status']
  if ENDED then
    return {0, redis.call('GET', KEYS[3])}
  end
end
local running, ended, limit = KEYS[4], KEYS[5], tonumber(ARGV[7])
if not stored and limit > 0 then
  redis.call('ZREMRANGEBYSCORE', running, '-inf', now)
  redis.call('ZREMRANGEBYSCORE', ended, '-inf', now)
  local held = redis.call('ZCARD', running)
  if held >= limit then
    return {-1, redis.call('GET', KEYS[3])}
  end
  local excess = held + redis.call('ZCARD', ended) - limit + 1
  if excess > 0 then
    local dropped = redis.call('ZPOPMIN', ended, excess)
    for i = 1, #dropped, 2 do
      redis.call('DEL', dropped[i])
    end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[3])
else
  redis.call('DEL', KEYS[2])
end
if ARGV[6] == '1' then
  redis.call('ZREM', running, KEYS[1])
  redis.call('ZADD', ended, now + tonumber(ARGV[2]), KEYS[1])
else
  redis.call('ZADD', running, now + tonumber(ARGV[2]), KEYS[1])
end
for _, index in ipairs({running, ended}) do
  if redis.call('PTTL', index) < tonumber(ARGV[2]) then
    redis.call('PEXPIRE', index, ARGV[2])
  end
end
redis.call('SET', KEYS[3], ARGV[5], 'NX')
return {1, redis.call('GET', KEYS[3])}
""".replace("ENDED", " or ".join(f"status == '{status}'" for status in sorted(TERMINAL)))
)
"""Write a record (its lease key beside it) unless the stored one has ended (its status one of
`TERMINAL`): an ended task is final. Keeps the owner's index (KEYS[4], its running records;
KEYS[5], its ended ones) and, for a new record with a limit (ARGV[7] > 0), bounds it: drops the
owner's records that ended first, or refuses (-1) when `limit` are running. Also stamps the
generation if there is none (a new token: a new generation) and returns it, with whether the
record was written."""


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
