"""From config to library objects: sources, visibility, settings, and the mapping to transforms/middleware.

The transforms and middleware are built by other branches; the mapping tests here install small
recording stand-ins under the planned names, so what the config passes to each constructor is
pinned today. Tests against the real classes live in tests/acceptance/test_examples.py.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from toolweave import ConfigError, DuplicateError, Middleware, Tool
from toolweave.config import build, policies
from toolweave.config.loading import validate
from toolweave.config.models import Config

build_module = importlib.import_module("toolweave.config.build")
policies_module = importlib.import_module("toolweave.config.build_policies")

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def compose(data: dict[str, Any]) -> Any:
    return build(Config.model_validate(data), base_dir=FIXTURES)


def names(composed: Any) -> list[str]:
    return [tool.name for tool in composed.server.catalog.tools]


# -- sources ---------------------------------------------------------------------------------------


def test_a_python_server_is_mounted_under_its_prefix() -> None:
    assert names(compose({"python": [{"import": "calc:server", "prefix": "calc"}]})) == [
        "calc_add",
        "calc_divide",
        "calc_internal_reset",
    ]


def test_a_list_of_functions_becomes_tools() -> None:
    assert names(compose({"python": ["calc:functions"]})) == ["shout", "whisper"]


def test_a_single_function_becomes_a_tool() -> None:
    assert names(compose({"python": [{"import": "calc:shout", "prefix": "x"}]})) == ["x_shout"]


def test_modules_next_to_the_config_file_are_importable() -> None:
    composed = compose({"python": ["calc:server"]})
    assert composed.server.catalog.get("add").tool.origin.source == "calc"


async def test_a_composed_tool_is_callable_in_process() -> None:
    composed = compose({"python": [{"import": "calc:server", "prefix": "calc"}]})
    result = await composed.server.call_tool("calc_add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}


def test_include_keeps_only_matching_original_names() -> None:
    data = {"python": [{"import": "calc:server", "prefix": "c", "include": ["add", "div*"]}]}
    assert names(compose(data)) == ["c_add", "c_divide"]


def test_exclude_hides_matching_original_names() -> None:
    data = {"python": [{"import": "calc:server", "prefix": "c", "exclude": ["internal_*"]}]}
    assert names(compose(data)) == ["c_add", "c_divide"]


def test_a_tool_can_be_disabled_by_name() -> None:
    data = {"python": [{"import": "calc:server", "tools": {"divide": {"enabled": False}}}]}
    assert names(compose(data)) == ["add", "internal_reset"]


def test_a_top_level_rule_can_disable_tools_by_glob() -> None:
    data = {"python": ["calc:server"], "transforms": [{"tools": "internal_*", "enabled": False}]}
    assert names(compose(data)) == ["add", "divide"]


def test_server_settings_reach_the_server() -> None:
    data = {
        "server": {
            "name": "gw",
            "instructions": "Be nice.",
            "mask_error_details": False,
            "on_duplicate": "warn",
        }
    }
    server = compose(data).server
    assert (server.name, server.instructions, server.on_duplicate) == ("gw", "Be nice.", "warn")
    assert server.error_policy.mask is False


def test_a_name_clash_between_sources_follows_on_duplicate() -> None:
    """Reported when mounting (ConfigError naming the key) or when compiling (DuplicateError)."""
    with pytest.raises((ConfigError, DuplicateError), match="'add' is claimed twice"):
        compose({"python": ["calc:server", "calc:server"]}).server.catalog  # noqa: B018


def test_a_name_clash_can_be_allowed() -> None:
    composed = compose({"server": {"on_duplicate": "replace"}, "python": ["calc:server", "calc:server"]})
    assert names(composed) == ["add", "divide", "internal_reset"]


def test_the_authenticator_is_imported() -> None:
    composed = compose({"server": {"authenticate": "calc:whisper"}})
    assert composed.authenticate is not None
    assert composed.authenticate("ABC") == "abc"


# -- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        ("no_such_module_xyz:server", "no module named 'no_such_module_xyz'"),
        ("calc:nothing", "'calc' has no attribute 'nothing'"),
        ("calc:server.nothing", "'calc:server' has no attribute 'nothing'"),  # (it said 'calc')
        ("calc.py:server", "no module named 'calc.py' (name the module, not its file: 'calc:server')"),
        ("calc:NOT_A_TOOL", "is a int; expected a toolweave Server, a Tool, a function"),
        ("broken:server", "importing 'broken' raised RuntimeError: broken on purpose"),
        ("exits:server", "importing 'exits' raised SystemExit: 3"),  # it ended the CLI with status 3, silently
    ],
)
def test_import_problems_name_the_key(reference: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        compose({"python": [{"import": "calc:server"}, {"import": reference}]})
    assert caught.value.path == "python[1].import"
    assert problem in str(caught.value)


def test_an_authenticator_must_be_callable() -> None:
    with pytest.raises(ConfigError, match=r"server\.authenticate: 'calc:NOT_A_TOOL' is not callable"):
        compose({"server": {"authenticate": "calc:NOT_A_TOOL"}})


# -- the mapping to transforms and middleware, with recording stand-ins -----------------------------


@dataclass(frozen=True)
class Recorded:
    """Stands in for a planned transform: records its arguments, marks the tool."""

    kind: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    def apply(self, tool: Tool) -> Tool:
        changes: dict[str, Any] = {}
        if self.kind == "Rename":
            changes["name"] = self.args[0]
        return tool.derive(self, **changes)

    def __hash__(self) -> int:
        return id(self)


def recorder(kind: str) -> Any:
    return lambda *args, **kwargs: Recorded(kind, args, kwargs)


class RecordedMiddleware(Middleware):
    def __init__(self, kind: str, **kwargs: Any) -> None:
        self.kind = kind
        self.kwargs = kwargs
        self.tools = kwargs.get("tools")

    async def on_call_tool(self, call: Any, call_next: Any) -> Any:
        return await call_next(call)


def middleware_factory(kind: str) -> Any:
    return lambda **kwargs: RecordedMiddleware(kind, **kwargs)


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    for kind in ("Rename", "TransformArgs", "ExcludeArgs", "InjectArgs", "Annotate", "MaskErrors"):
        monkeypatch.setattr(policies_module, kind, recorder(kind))
    monkeypatch.setattr(policies_module, "Arg", lambda **kwargs: ("Arg", kwargs))
    for key, kind in (("context", "FromContext"), ("header", "FromHeader"), ("claim", "FromClaim"), ("env", "FromEnv")):
        monkeypatch.setitem(policies_module.INJECT_CLASSES, key, lambda arg, kind=kind: (kind, arg))
    for key, cls in list(policies_module.MIDDLEWARE_CLASSES.items()):
        monkeypatch.setitem(policies_module.MIDDLEWARE_CLASSES, key, middleware_factory(cls.__name__))
    monkeypatch.setattr(build_module, "Timeout", middleware_factory("Timeout"))


def steps_of(tool: Tool) -> list[Recorded]:
    found: list[Recorded] = []
    while tool.parent is not None:
        found = [step for step in tool.transforms if isinstance(step, Recorded)] + found
        tool = tool.parent
    return found


@pytest.mark.usefixtures("stand_ins")
def test_per_tool_changes_map_to_transforms_in_a_fixed_order() -> None:
    spec = {
        "name": "sum",
        "description": "Sum two numbers.",
        "annotations": {"read_only": True},
        "tags": ["math"],
        "mask_errors": {"message": "failed"},
        "args": {
            "a": {"name": "first", "description": "The first number."},
            "b": {"default": 1},
            "api_key": {"inject": "env:API_KEY"},
            "tenant": {"inject": "header:x-tenant"},
            "region": {"inject": "eu"},
            "debug": {"hide": True},
        },
    }
    composed = compose({"python": [{"import": "calc:server", "prefix": "m", "tools": {"add": spec}}]})
    entry = composed.server.catalog.get("m_sum")
    kinds = [(step.kind, step.args, step.kwargs) for step in steps_of(entry.tool)]
    assert kinds == [
        ("ExcludeArgs", ("debug",), {}),
        (
            "InjectArgs",
            (),
            {"api_key": ("FromEnv", "API_KEY"), "tenant": ("FromHeader", "x-tenant"), "region": "eu"},
        ),
        (
            "TransformArgs",
            (
                {
                    "a": ("Arg", {"name": "first", "description": "The first number."}),
                    "b": ("Arg", {"default": 1}),
                },
            ),
            {},
        ),
        ("Rename", ("sum",), {"description": "Sum two numbers."}),
        ("Annotate", (), {"read_only": True, "tags": {"math"}}),
        ("MaskErrors", (), {"message": "failed"}),
    ]


@pytest.mark.usefixtures("stand_ins")
def test_a_title_alone_keeps_the_name() -> None:
    composed = compose({"python": [{"import": "calc:server", "tools": {"add": {"title": "Add"}}}]})
    (rename,) = steps_of(composed.server.catalog.get("add").tool)
    assert (rename.kind, rename.args, rename.kwargs) == ("Rename", ("add",), {"title": "Add"})


@pytest.mark.usefixtures("stand_ins")
@pytest.mark.parametrize(
    ("written", "source"),
    [
        ("context:auth.subject", ("FromContext", "auth.subject")),
        ("claim:sub", ("FromClaim", "sub")),
        ("value:a:b", "a:b"),
        (7, 7),
    ],
)
def test_inject_sources_map_to_planned_classes(written: object, source: object) -> None:
    data = {"python": ["calc:server"], "transforms": [{"tools": "add", "args": {"a": {"inject": written}}}]}
    (inject,) = steps_of(compose(data).server.catalog.get("add").tool)
    assert inject.kwargs == {"a": source}


@pytest.mark.usefixtures("stand_ins")
def test_top_level_rules_apply_to_their_selection_only() -> None:
    data = {
        "python": ["calc:server"],
        "transforms": [{"tools": {"names": ["add", "div*"]}, "tags": ["math"]}],
    }
    catalog = compose(data).server.catalog
    assert [step.kind for step in steps_of(catalog.get("divide").tool)] == ["Annotate"]
    assert steps_of(catalog.get("internal_reset").tool) == []


@pytest.mark.usefixtures("stand_ins")
def test_middleware_maps_in_written_order_with_options_and_selectors() -> None:
    data = {
        "python": ["calc:server"],
        "middleware": {
            "logging": {"level": "debug", "allow_args": ["a"]},
            "timeout": {"default": 5, "per_tool": {"div*": 1}},
            "rate_limit": {"rate": 2, "burst": 4, "tools": "add"},
            "concurrency": {"limit": 3, "per_tool": {"add": 1}},
            "retry": {"attempts": 2},
            "circuit_breaker": {"failures": 3, "reset_after": 10},
            "cache": {"ttl": 60, "tools": {"read_only": True}},
            "progress": {"max_rate": 5},
        },
    }
    layers = compose(data).server.middleware
    assert [(layer.kind, {k: v for k, v in layer.kwargs.items() if k != "tools"}) for layer in layers] == [
        ("Logging", {"level": logging.DEBUG, "allow_args": ["a"]}),
        ("Timeout", {"default": 5.0, "per_tool": {"div*": 1.0}}),
        ("RateLimit", {"rate": 2.0, "burst": 4}),
        ("ConcurrencyLimit", {"limit": 3, "per_tool": {"add": 1}}),
        ("Retry", {"attempts": 2}),
        ("CircuitBreaker", {"failures": 3, "reset_after": 10.0}),
        ("Cache", {"ttl": 60.0}),
        ("Progress", {"max_rate": 5.0}),
    ]
    assert layers[2].kwargs["tools"].names == ("add",)
    assert layers[6].kwargs["tools"].read_only is True


PYTHON_ONLY = {"retry_on"}
"""Keywords a config cannot spell: `Retry(retry_on=)` takes exception classes."""


SPECS: dict[str, type[BaseModel]] = {
    "logging": policies.LoggingSpec,
    "timeout": policies.TimeoutSpec,
    "progress": policies.ProgressSpec,
    "retry": policies.RetrySpec,
    "rate_limit": policies.RateLimitSpec,
    "concurrency": policies.ConcurrencySpec,
    "circuit_breaker": policies.CircuitBreakerSpec,
    "cache": policies.CacheSpec,
}


@pytest.mark.parametrize("kind", sorted(policies_module.MIDDLEWARE_CLASSES))
def test_every_option_of_a_built_in_middleware_has_a_config_key(kind: str) -> None:
    keywords = set(inspect.signature(policies_module.MIDDLEWARE_CLASSES[kind].__init__).parameters)
    assert keywords - {"self"} - PYTHON_ONLY - set(SPECS[kind].model_fields) == set()


def test_options_a_config_once_could_not_spell_reach_the_middleware() -> None:
    data = {
        "python": ["calc:server"],
        "middleware": {
            "logging": {"payload_sizes": True},
            "timeout": {"default": 30, "per_tool": {"div*": None}},
            "retry": {"backoff": 0, "max_backoff": 0, "retry_upstream": False},
            "rate_limit": {"rate": 5, "max_keys": 100},
        },
    }
    logging_, timeout, retry, rate_limit = compose(data).server.middleware
    assert logging_.payload_sizes is True
    assert (timeout.seconds_for("div"), timeout.seconds_for("add")) == (None, 30)
    assert (retry.backoff, retry.max_backoff, retry.retry_upstream) == (0, 0, False)
    assert rate_limit.max_keys == 100


@pytest.mark.usefixtures("stand_ins")
def test_a_timeout_shorthand_and_a_source_timeout_map_to_timeout_default() -> None:
    data = {"python": [{"import": "calc:server", "timeout": 3}], "middleware": {"timeout": 9}}
    composed = compose(data)
    assert [(layer.kind, layer.kwargs) for layer in composed.server.middleware] == [("Timeout", {"default": 9.0})]
    chain = composed.server.catalog.get("add")
    assert [layer.kind for layer in chain.chain] == ["Timeout"]


@pytest.mark.usefixtures("stand_ins")
def test_source_middleware_runs_around_that_source_only() -> None:
    data = {
        "python": [
            {"import": "calc:server", "prefix": "a", "middleware": {"logging": True}},
            "calc:functions",
        ],
    }

    from toolweave.explain import explain_server

    explained = {item.name: list(item.middleware) for item in explain_server(compose(data).server).tools}
    assert explained["a_add"] == ["RecordedMiddleware"]
    assert explained["shout"] == []


def test_mcp_servers_become_remote_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolweave.server import remote

    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def record(kind: str) -> Any:
        def make(*args: Any, **kwargs: Any) -> Any:
            calls.append((kind, args, kwargs))
            from toolweave import Server

            return Server(kind)

        return make

    monkeypatch.setattr(remote.RemoteServer, "stdio", record("stdio"))
    monkeypatch.setattr(remote.RemoteServer, "http", record("http"))
    composed = compose(
        {
            "mcpServers": {
                "fs": {"command": "npx", "args": ["fs"], "env": {"A": "1"}, "cwd": "."},
                "web": {"url": "https://example.com/mcp", "headers": {"X": "y"}},
                "off": {"command": "nope", "disabled": True},
            }
        }
    )
    assert calls == [
        ("stdio", ("npx",), {"args": ["fs"], "env": {"A": "1"}, "cwd": str(FIXTURES), "name": "fs"}),
        ("http", ("https://example.com/mcp",), {"headers": {"X": "y"}, "name": "web"}),
    ]
    assert len(composed.remotes) == 2


@pytest.mark.parametrize(
    ("options", "timeout", "connect_timeout"),
    [
        ({}, 60.0, 30.0),
        ({"timeout": 3}, 3.0, 3.0),  # a bound on each request bounds connecting too
        ({"timeout": 45}, 45.0, 30.0),
        ({"timeout": 3, "connect_timeout": 90}, 3.0, 90.0),
        ({"connect_timeout": 2.5}, 60.0, 2.5),
    ],
)
def test_an_mcp_server_entry_bounds_connecting(
    options: dict[str, float], timeout: float, connect_timeout: float
) -> None:
    for entry in ({"command": "npx"}, {"url": "https://example.com/mcp"}, {"url": "https://x/sse", "type": "sse"}):
        (remote,) = compose({"mcpServers": {"a": {**entry, **options}}}).remotes
        assert (remote.timeout, remote.connect_timeout) == (timeout, connect_timeout)


def test_include_and_exclude_names_naming_no_tool_are_reported_with_a_suggestion() -> None:
    """`include: [ad]` hid every tool without a word, where a `tools:` key typo got a suggestion."""
    entry = {"import": "calc:server", "include": ["ad", "div*", "zz_*"], "exclude": ["internal_rest", "drop_*"]}
    assert compose({"python": [entry]}).unknown_tool_keys() == [
        "python[0].include[0]: this source has no tool 'ad' (did you mean 'add'?)",
        "python[0].include[2]: 'zz_*' matches no tool of this source (its tools are add, divide, internal_reset)",
        "python[0].exclude[0]: this source has no tool 'internal_rest' (did you mean 'internal_reset'?)",
    ]  # an exclude pattern may be there in case such a tool appears: only its plain names are checked


def test_import_mode_copies_a_server_once() -> None:
    composed = compose({"python": [{"import": "calc:server", "prefix": "c", "mode": "import"}]})
    assert "c_add" in names(composed)


def test_a_tools_key_naming_no_tool_is_reported_with_a_suggestion() -> None:
    composed = compose({"python": ["calc:functions", {"import": "calc:server", "tools": {"ad": {"enabled": False}}}]})
    assert composed.unknown_tool_keys() == ["python[1].tools.ad: this source has no tool 'ad' (did you mean 'add'?)"]


# -- refusals in the config's words, at the key at fault ----------------------------------------------


def compile_error(data: dict[str, Any]) -> ConfigError:
    """The `ConfigError` validating, building or compiling `data` raises."""
    with pytest.raises(ConfigError) as caught:
        _ = build(validate(data, environ={}), base_dir=FIXTURES).server.catalog.tools
    return caught.value


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (
            {"nope": {"hide": True}},
            "python[0].tools.shout.args.nope.hide: the tool has no argument 'nope' (it has: text)",
        ),
        (
            {"txet": {"inject": "env:X"}},
            "python[0].tools.shout.args.txet.inject: the tool has no argument 'txet' (did you mean 'text'?)",
        ),
        (
            {"nope": {"name": "q", "description": "d"}},
            "python[0].tools.shout.args.nope: the tool has no argument 'nope'",
        ),
        (
            {"text": {"hide": True}},
            "python[0].tools.shout.args.text.hide: a required argument cannot be hidden without a value: "
            "add `default:` or `inject:`",
        ),
        ({"text": {"hide": True, "name": "q"}}, "python[0].tools.shout.args.text: 'hide: true' removes the argument"),
    ],
)
def test_an_args_refusal_names_its_key_in_the_config_words(args: dict[str, Any], problem: str) -> None:
    """It said "ExcludeArgs names an argument..." and "give it a default (Arg(default=...))", at the tool."""
    error = compile_error({"python": [{"import": "calc:shout", "tools": {"shout": {"args": args}}}]})
    assert problem in str(error)
    assert "Arg(" not in str(error) and "ExcludeArgs" not in str(error) and "InjectArgs" not in str(error)


def test_every_problem_of_one_args_section_is_reported_at_once() -> None:
    args = {"text": {"hide": True}, "nope": {"description": "x"}, "txet": {"description": "y"}}
    error = compile_error({"python": [{"import": "calc:shout", "tools": {"shout": {"args": args}}}]})
    assert str(error) == (
        "3 problems:\n"
        "  - python[0].tools.shout.args.nope.description: the tool has no argument 'nope' (it has: text)\n"
        "  - python[0].tools.shout.args.txet.description: the tool has no argument 'txet' (did you mean 'text'?)\n"
        "  - python[0].tools.shout.args.text.hide: a required argument cannot be hidden without a value: "
        "add `default:` or `inject:`"
    )


@pytest.mark.parametrize(
    ("arg", "path"),
    [
        ({"default": "two"}, "args.a.default"),
        ({"inject": "two"}, "args.a.inject"),
        ({"hide": True, "default": "two"}, "args.a.default"),
    ],
)
def test_a_value_that_does_not_fit_is_reported_at_its_key(arg: dict[str, Any], path: str) -> None:
    error = compile_error({"python": [{"import": "calc:server", "tools": {"add": {"args": {"a": arg}}}}]})
    assert str(error) == f"python[0].tools.add.{path}: does not fit the argument's type"


def test_a_rule_refusing_a_tool_names_the_tool() -> None:
    rule = {"tools": "add", "args": {"a": {"hide": True}}}
    error = compile_error({"python": ["calc:server"], "transforms": [rule]})
    assert str(error).startswith("transforms[0].args.a.hide: tool 'add': a required argument cannot be hidden")


@pytest.mark.parametrize(
    ("entry", "path"),
    [
        ({"url": "not a url"}, "mcpServers.a.url"),
        ({"serverUrl": "ftp://host/mcp"}, "mcpServers.a.serverUrl"),
        ({"url": "ftp://host/sse", "type": "sse"}, "mcpServers.a.url"),
    ],
)
def test_a_bad_url_is_reported_at_its_key(entry: dict[str, Any], path: str) -> None:
    assert compile_error({"mcpServers": {"a": entry}}).path == path


def test_a_bad_openapi_base_url_is_reported_at_its_key() -> None:
    spec = str(Path(__file__).resolve().parents[2] / "examples" / "petstore.openapi.json")
    error = compile_error({"openapi": {"pets": {"spec": spec, "base_url": "ftp://pets"}}})
    assert error.path == "openapi.pets.base_url"
