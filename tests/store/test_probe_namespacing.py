"""Two different gateways on one Redis share nothing, even when they mount servers of the same name
(what a config does for each entry); replicas of one gateway still share their mounted servers' state."""

from __future__ import annotations

from tests.store.redis_server import RedisServer
from tests.store.replicas import replica
from tests.store.test_fanout import names, until
from toolweave import Server, ToolAnnotations
from toolweave.middleware import Cache, RateLimit
from toolweave.store import RedisStore

SAFE = ToolAnnotations(read_only_hint=True, idempotent_hint=True)


def gateway(url: str, name: str, secret: str, *, prefix: str | None = None) -> Server:
    """A gateway `name` mounting a server named "accounts" (with its own cache and rate limit)."""
    root = Server(name, store=RedisStore(url, timeout=2.0))
    accounts = Server("accounts", store=root.store, middleware=[Cache(ttl=60), RateLimit(rate=0.001, burst=2)])

    @accounts.tool(annotations=SAFE)
    def balance(account: str) -> str:
        return f"{secret} balance of {account}"

    root.mount(accounts, prefix)
    return root


async def test_two_gateways_mounting_servers_of_one_name_share_no_cache_and_no_rate_limit(redis: RedisServer) -> None:
    internal, public = gateway(redis.url, "internal", "INTERNAL"), gateway(redis.url, "public", "public")
    async with internal, public:
        secret = await internal.call_tool("balance", {"account": "a"})
        seen = await public.call_tool("balance", {"account": "a"})
        more = [await public.call_tool("balance", {"account": account}) for account in ("b", "c")]
    assert secret.text == "INTERNAL balance of a"
    assert seen.text == "public balance of a"  # not the other gateway's cached result
    assert [result.is_error for result in more] == [False, True]  # public's own bucket of 2, not one shared


async def test_replicas_of_one_gateway_share_their_mounted_servers_state(redis: RedisServer) -> None:
    one, two = gateway(redis.url, "gw", "first", prefix="acct"), gateway(redis.url, "gw", "second", prefix="acct")
    async with one, two:
        written = await one.call_tool("acct_balance", {"account": "a"})
        read = await two.call_tool("acct_balance", {"account": "a"})
        more = [await two.call_tool("acct_balance", {"account": account}) for account in ("b", "c")]
    assert written.text == read.text == "first balance of a"  # one cache for both replicas
    assert [result.is_error for result in more] == [False, True]  # one bucket of 2 for both


async def test_a_gateway_served_through_a_wrapper_without_a_store_shares_with_its_replicas(redis: RedisServer) -> None:
    watched = Server("gw")  # a wrapper keeping nothing shared (`serve --watch`: test_live_replicas.py)
    watched.mount(gateway(redis.url, "gw", "first", prefix="acct"))
    plain = gateway(redis.url, "gw", "second", prefix="acct")
    async with watched, plain:
        written = await watched.call_tool("acct_balance", {"account": "a"})
        read = await plain.call_tool("acct_balance", {"account": "a"})
    assert written.text == read.text == "first balance of a"


async def test_replicas_built_from_one_config_share_an_openapi_entrys_rate_limit(redis: RedisServer) -> None:
    from tests.openapi.petstore import petstore
    from tests.serving import served
    from toolweave.config import build
    from toolweave.config.models import Config

    with served(petstore()) as url:
        config = {
            "server": {"name": "gw", "store": redis.url},
            "openapi": {
                "shop": {
                    "spec": f"{url}/openapi.json",
                    "base_url": url,
                    "prefix": "shop",
                    "include_routes": [{"paths": ["/pets"], "methods": ["GET"]}],
                    "middleware": {"rate_limit": {"rate": 0.001, "burst": 2}},
                }
            },
        }
        one, two = (build(Config.model_validate(config)).server for _ in range(2))
        async with one, two:
            calls = [await server.call_tool("shop_list_pets", {}) for server in (one, two, two)]
    assert [result.is_error for result in calls] == [False, False, True]  # one bucket of 2 for both
    assert "rate limit" in calls[2].text.lower()


async def test_gateways_on_two_databases_of_one_redis_share_no_enable_or_disable(redis: RedisServer) -> None:
    """Redis pub/sub ignores the database number: a staging gateway on database 1 disabled (and
    enabled) the tools of a production gateway of the same name on database 0."""
    production, staging = replica(redis.url), replica(redis.url.removesuffix("/0") + "/1")
    witness = replica(redis.url)  # production's other replica: it hears production's announcements
    async with production, staging, witness:
        staging.disable("flaky")
        production.disable("lookup")

        async def heard() -> bool:
            return "lookup" not in await names(witness)

        await until(heard)  # production's own announcement has arrived: staging's, sent first, too
        assert [await names(server) for server in (production, witness, staging)] == [["flaky"], ["flaky"], ["lookup"]]
