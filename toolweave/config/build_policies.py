"""The policies a config asks for, as library objects: selectors, per-tool changes and
`transforms` rules, middleware stacks, the catalog's transforms, and the verifier of `server.auth`.

Each function takes one section's model (`changes`, `policies`, `settings`, `models`) and the
key path it was written at; a library object that refuses its options is a `ConfigError` there.

Example:
    >>> from toolweave.config.changes import ToolSpec
    >>> spec = ToolSpec.model_validate({"name": "sum", "enabled": False})
    >>> patch_transforms(spec, tool="add", where="tools.add")[0]
    Visibility(enabled=False, reason='enabled: false at tools.add')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from typing import Any

from toolweave.auth import IntrospectionVerifier, JWTVerifier, Verifier
from toolweave.config.args import ArgChanges
from toolweave.config.changes import ArgSpec, ToolPatch, ToolSpec
from toolweave.config.inject import parse_inject
from toolweave.config.models import CatalogSpec, Config
from toolweave.config.paths import call_at, key_path
from toolweave.config.policies import MiddlewareSet, SelectorSpec
from toolweave.config.settings import AuthSpec
from toolweave.config.steps import Steps, Visibility
from toolweave.middleware import (
    Cache,
    CircuitBreaker,
    ConcurrencyLimit,
    Logging,
    Progress,
    RateLimit,
    Retry,
    Timeout,
)
from toolweave.middleware.base import Middleware
from toolweave.middleware.selector import Selector
from toolweave.tasks.transform import RunAsTask
from toolweave.transforms import (
    Annotate,
    Arg,
    Authorize,
    ExcludeArgs,
    FromClaim,
    FromContext,
    FromEnv,
    FromHeader,
    InjectArgs,
    LimitResult,
    MaskErrors,
    PromptsAsTools,
    Rename,
    ResourcesAsTools,
    SearchTools,
    Secret,
    TransformArgs,
)

MIDDLEWARE_CLASSES: dict[str, type[Middleware]] = {
    "logging": Logging,
    "timeout": Timeout,
    "progress": Progress,
    "retry": Retry,
    "rate_limit": RateLimit,
    "concurrency": ConcurrencyLimit,
    "circuit_breaker": CircuitBreaker,
    "cache": Cache,
}
INJECT_CLASSES: dict[str, Callable[[str], Any]] = {
    "context": FromContext,
    "header": FromHeader,
    "claim": FromClaim,
    "env": FromEnv,
}


# -- selectors -------------------------------------------------------------------------------------


def selector(spec: str | list[str] | SelectorSpec | None) -> Selector | None:
    """A `Selector` from a config selector (a glob, a list of globs, or an object)."""
    if spec is None:
        return None
    if isinstance(spec, SelectorSpec):
        return Selector(
            spec.names or None,
            tags=spec.tags or None,
            read_only=spec.read_only,
            idempotent=spec.idempotent,
            destructive=spec.destructive,
            open_world=spec.open_world,
        )
    return Selector.coerce(spec)


# -- per-tool changes and rules --------------------------------------------------------------------


def inject_source(value: Any, *, where: str, secrets: Collection[str] = ()) -> Any:
    """The `InjectArgs` source for a config `inject` value (`"claim:sub"` → `FromClaim("sub")`).

    A constant holding a value expanded from the environment (`"${API_KEY}"`, one of `secrets`)
    is a `Secret`: redacted from what the tool returns, like `"env:API_KEY"`.
    """
    parsed = parse_inject(value)
    if parsed.kind == "value":
        if isinstance(parsed.argument, str) and any(secret in parsed.argument for secret in secrets):
            return Secret(parsed.argument)
        return parsed.argument
    return INJECT_CLASSES[parsed.kind](parsed.argument)


def arg_transforms(
    args: dict[str, ArgSpec], *, where: str, tool: str | None = None, secrets: Collection[str] = ()
) -> list[Any]:
    """`ExcludeArgs`, `InjectArgs` and `TransformArgs` for a tool's `args` section (in that order),
    as one `ArgChanges` step (a refusal names the key at fault); `tool`: the tool of a `tools.<name>`
    entry, None for a `transforms` rule."""
    excluded = [name for name, spec in args.items() if spec.hide and spec.model_fields_set <= {"hide"}]
    injected = {name: spec.inject for name, spec in args.items() if spec.inject is not None}
    changed = {name: spec for name, spec in args.items() if name not in excluded and name not in injected}
    steps: list[Any] = []
    if excluded:
        steps.append(call_at(ExcludeArgs, *excluded, where=where))
    if injected:
        sources = {
            name: inject_source(value, where=key_path((name, "inject"), start=where), secrets=secrets)
            for name, value in injected.items()
        }
        steps.append(call_at(InjectArgs, where=where, **sources))
    if changed:
        mapping = {
            name: call_at(
                Arg, where=key_path((name,), start=where), **{key: getattr(spec, key) for key in spec.model_fields_set}
            )
            for name, spec in changed.items()
        }
        steps.append(call_at(TransformArgs, mapping, where=where))
    return [ArgChanges(tuple(steps), args, where, tool)] if steps else []


def patch_transforms(patch: ToolPatch, *, tool: str | None, where: str, secrets: Collection[str] = ()) -> list[Any]:
    """The transforms for one `tools.<name>` entry or one `transforms[i]` rule, in a fixed order
    (`secrets`: the values expanded from the environment, see `inject_source`)."""
    steps: list[Any] = []
    if patch.enabled is not None:
        steps.append(Visibility(patch.enabled, f"enabled: {str(patch.enabled).lower()} at {where}"))
    steps.extend(arg_transforms(patch.args, where=f"{where}.args", tool=tool, secrets=secrets))
    if isinstance(patch, ToolSpec) and ({"name", "title", "description"} & patch.model_fields_set):
        changes = {key: getattr(patch, key) for key in ("title", "description") if key in patch.model_fields_set}
        steps.append(call_at(Rename, patch.name or tool, where=where, **changes))
    hints = patch.annotations.model_dump(exclude_none=True) if patch.annotations else {}
    if hints or patch.tags:
        steps.append(call_at(Annotate, where=where, **hints, **({"tags": set(patch.tags)} if patch.tags else {})))
    if patch.scopes is not None or patch.claims is not None:
        steps.append(call_at(Authorize, patch.scopes or (), claims=patch.claims, where=where))
    if patch.mask_errors is not None:
        options = patch.mask_errors.model_dump(exclude_none=True)
        steps.append(call_at(MaskErrors, where=f"{where}.mask_errors", **options))
    if patch.task_support is not None:
        steps.append(RunAsTask(patch.task_support))
    if patch.limit_result is not None:
        steps.append(call_at(LimitResult, where=f"{where}.limit_result", **patch.limit_result.model_dump()))
    return steps


def rule_transforms(config: Config) -> Iterable[tuple[Any, Selector | None]]:
    """The top-level `transforms` rules as (transform, selector) pairs, in order."""
    for index, rule in enumerate(config.transforms):
        where = f"transforms[{index}]"
        steps = patch_transforms(rule, tool=None, where=where, secrets=list(config.secrets))
        if steps:
            yield Steps(tuple(steps), where=where), selector(rule.tools)


# -- middleware --------------------------------------------------------------------------------------


def middleware_stack(spec: MiddlewareSet | None, *, where: str) -> list[Middleware]:
    """The middleware of a `middleware` section, in the order written (first = outermost)."""
    if spec is None:
        return []
    stack: list[Middleware] = []
    for kind in spec.order:
        value = getattr(spec, kind)
        here = f"{where}.{kind}"
        cls = MIDDLEWARE_CLASSES[kind]
        if value is True:
            options: dict[str, Any] = {}
        elif isinstance(value, int | float):
            options = {"default": float(value)}
        else:
            options = value.model_dump(exclude_unset=True, exclude={"tools"})
            if "level" in options:
                options["level"] = logging.getLevelName(options["level"].upper())
            tools = selector(value.tools)
            if tools is not None:
                options["tools"] = tools
        stack.append(call_at(cls, where=here, **options))
    return stack


# -- the catalog -----------------------------------------------------------------------------------


def catalog_transforms(spec: CatalogSpec | None, *, where: str) -> list[Any]:
    """The catalog transforms of the `catalog` section, in a fixed order: prompts and resources
    as tools first (so search finds them too), then search."""
    if spec is None:
        return []
    steps: list[Any] = []
    if spec.prompts_as_tools:
        steps.append(PromptsAsTools())
    if spec.resources_as_tools:
        steps.append(ResourcesAsTools())
    if spec.search is not None:
        steps.append(call_at(SearchTools, where=f"{where}.search", **spec.search.model_dump()))
    return steps


# -- verified callers ------------------------------------------------------------------------------


def http_auth(spec: AuthSpec, *, where: str) -> dict[str, Any]:
    """The `http_app` options of a `server.auth` section: the verifier and what the edge announces."""
    scopes = spec.required_scopes
    verifier: Verifier
    if spec.introspection is not None:
        found = spec.introspection
        verifier = call_at(
            IntrospectionVerifier,
            found.url,
            client_id=found.client_id,
            client_secret=found.client_secret,
            issuer=spec.issuer,
            audience=spec.audience or spec.resource_url,
            required_scopes=scopes,
            where=f"{where}.introspection",
        )
    else:
        verifier = call_at(
            JWTVerifier,
            jwks_uri=spec.jwks_uri,
            public_key=spec.public_key,
            issuer=spec.issuer,
            audience=spec.audience or spec.resource_url,
            algorithms=spec.algorithms,
            required_scopes=scopes,
            token_types=spec.token_types,
            where=where,
        )
    return {
        "auth": verifier,
        "resource_url": spec.resource_url,
        "authorization_servers": spec.authorization_servers,
        "allow_anonymous": spec.allow_anonymous,
    }
