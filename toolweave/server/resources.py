"""Resources and resource templates in the generic pipeline: what differs from tools and prompts.

- the key is the URI (or URI template); `enable`/`disable` match the name or the URI;
- a mounted child's resource gets the mount prefix as the first path segment of its URI
  (`resource://invoices/{id}` under `billing` is `resource://billing/invoices/{id}`); a read
  reaches the child under its own URI and the contents come back under the parent's (those of
  the child's other resources too, `Links.read_result`);
- the chain folds `on_read_resource` (middleware whose `resources` selector matches);
- a read resolves the URI (a static resource is one lookup; all templates are compiled once into
  one pattern, and the first registered template that matches wins), converts a template's
  parameters once, and turns a failure into a `ToolError` (internal ones masked) that the edge
  serves as a JSON-RPC error; no match is `UnknownResource`;
- news that a resource's content changed (`server.resource_updated(uri)`) goes to the registry's
  update listeners: the clients subscribed to `uri`, and the server it is mounted in, which passes
  it on under its own URI.

Example:
    >>> from toolweave.server.server import Server
    >>> server = Server("demo")
    >>> @server.resource("resource://cities")
    ... def cities() -> list[str]:
    ...     return ["Paris", "Lima"]
    >>> [resource.uri for resource in server.resources.catalog.resources]
    ['resource://cities']
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolweave.core.context import AuthInfo, Context
from toolweave.core.errors import InvalidArguments, UnknownResource
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.uri_template import TemplateSet, check_length
from toolweave.core.validation import ArgumentErrors
from toolweave.middleware.hooks import ResourceRead, build_resource_chain, resource_runner
from toolweave.server.catalog import Catalog, Entry, guarded, raising
from toolweave.server.functions import ResourceFunction, original
from toolweave.server.listeners import Listeners
from toolweave.server.mount import Mount
from toolweave.server.registry import Owner, Registry
from toolweave.telemetry.spans import RESOURCE_URI

logger = logging.getLogger("toolweave.server")


@dataclass(frozen=True, slots=True)
class ResourceEntry(Entry[Resource]):
    """One exposed resource or template."""

    @property
    def resource(self) -> Resource:
        """The exposed resource."""
        return self.component


@dataclass(slots=True)
class ResourceCatalog(Catalog[ResourceEntry]):
    """The compiled view of a server's resources and resource templates."""

    unknown = UnknownResource

    static: dict[str, ResourceEntry] = field(init=False)
    templates: tuple[ResourceEntry, ...] = field(init=False)
    matcher: TemplateSet[ResourceEntry] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.static = {uri: entry for uri, entry in self.entries.items() if not entry.component.is_template}
        self.templates = tuple(entry for entry in self.entries.values() if entry.component.is_template)
        self.matcher = TemplateSet(
            [(entry.component.template, entry) for entry in self.templates if entry.component.template is not None]
        )

    @property
    def resources(self) -> tuple[Resource, ...]:
        """The static resources, in registration order."""
        return tuple(entry.component for entry in self.static.values())

    @property
    def resource_templates(self) -> tuple[Resource, ...]:
        """The resource templates, in registration order."""
        return tuple(entry.component for entry in self.templates)

    def resolve(
        self, uri: str, admits: Callable[[ResourceEntry], bool] | None = None
    ) -> tuple[ResourceEntry, dict[str, str]]:
        """The entry serving `uri` and the raw template parameters, or `UnknownResource`.

        A static resource wins over a template; among templates the first registered wins. With
        `admits`, entries it refuses are passed over, as if they did not exist. A URI longer than
        `MAX_URI_LENGTH` is `InvalidArguments`, before any template is tried.
        """
        entry = self.static.get(check_length(uri))
        if entry is not None and (admits is None or admits(entry)):
            return entry, {}
        found = self.matcher.match(uri, admits)
        if found is not None:
            return found
        raise UnknownResource(uri)

    def readable(self, uri: str, auth: AuthInfo | None) -> tuple[ResourceEntry, dict[str, str]] | None:
        """`resolve(uri)` as the caller `auth` sees the catalog; `None` when only what it may not
        read serves `uri`.

        A resource or template the caller may not read is passed over, so the next match serves
        the URI, exactly as if the forbidden one did not exist (its existence would show
        otherwise) — unless that match is a remote's, of the same upstream as the forbidden one:
        a remote's read passes the URI on, and the upstream answers with what it serves there,
        the forbidden resource itself.

        Raises:
            UnknownResource: nothing serves `uri`, whoever asks.
        """
        first = self.resolve(uri)
        if not self.rules() or self.admits(first[0], auth):
            return first
        try:
            found = self.resolve(uri, lambda entry: self.admits(entry, auth))
        except UnknownResource:
            return None
        return None if _one_upstream(first[0].component, found[0].component) else found

    def resolve_for(self, uri: str, ctx: Context) -> tuple[ResourceEntry, dict[str, str]]:
        """`readable(uri)` for the caller of `ctx`; a URI only forbidden resources serve is the
        unknown-error (logged), as if they did not exist."""
        found = self.readable(uri, ctx.auth)
        if found is None:
            self.refuse(uri, ctx)
        return found

    async def read(self, uri: str, ctx: Context) -> ResourceResult:
        """Read `uri` through its chain.

        Raises:
            UnknownResource: no enabled resource or template matches `uri`.
            InvalidArguments: a template parameter does not convert to its declared type, or
                `uri` is longer than `MAX_URI_LENGTH`.
            ToolError: the resource failed (an internal error arrives masked).
        """
        entry, raw = self.resolve_for(uri, ctx)
        resource = entry.component
        params: dict[str, Any] = raw
        if raw and resource.validator is not None:
            try:
                params = resource.validator.validate(raw, reject_extra=self.reject_extra)
            except ArgumentErrors as problems:
                raise InvalidArguments(resource.uri, problems.problems, kind="resource template") from None
        assert entry.handler is not None
        reading = entry.handler(ResourceRead(resource, uri, params, ctx))
        return await guarded(reading, raising(entry, "resource", uri, ctx))


def _one_upstream(forbidden: Resource, other: Resource) -> bool:
    """Whether a read of `other` goes to the upstream that serves `forbidden`."""
    one, two = forbidden.origin, other.origin
    return one is not None and two is not None and one.kind == two.kind == "remote" and one.source == two.source


class ResourceRegistry(Registry[Resource, ResourceCatalog]):
    """The resources and templates of one server: local, listed by an upstream, or exposed by mounts."""

    kind = "resource"
    unknown = UnknownResource

    def __init__(self, owner: Owner) -> None:
        super().__init__(owner)
        self._updates = Listeners()

    def key(self, component: Resource) -> str:
        return component.uri

    def label(self, key: str, *, clash: bool = False) -> str:
        return repr(key)

    def shown_by(self, component: Resource) -> tuple[str, ...]:
        return (component.name, component.uri)

    def exposed(self, entry: Entry[Resource], mount: Mount[Any]) -> Resource:
        handler, resource, uris, links = entry.handler, entry.component, mount.uris, mount.links
        assert handler is not None

        async def run(uri: str, params: dict[str, Any], ctx: Context) -> ResourceResult:
            child_uri = uris.strip(uri)
            result: ResourceResult = await handler(ResourceRead(resource, child_uri, params, ctx))
            return result if links is None else links.read_result(result, child_uri, uri)

        return resource.replace(uri=uris.apply(resource.uri), run=mount.traced(run, (RESOURCE_URI, resource.uri)))

    def build_entry(self, component: Resource, origin: str) -> ResourceEntry:
        chain = tuple(layer for layer in self.owner.middleware if layer.applies_to_resource(component))
        inner = resource_runner(component)
        handler = build_resource_chain(chain, inner) if chain else inner
        return ResourceEntry(component, origin, chain, handler, self.owner.error_policy)

    def build_catalog(self, entries: dict[str, Entry[Resource]]) -> ResourceCatalog:
        return ResourceCatalog(
            entries=entries,  # type: ignore[arg-type]
            reject_extra=self.owner.extra_args == "reject",
            errors=self.owner.error_policy,
        )

    def add_from(
        self, fn_or_resource: Callable[..., Any] | Resource, uri: str | None, options: dict[str, Any]
    ) -> Resource:
        """The body of `server.add_resource`: registers a ready `Resource`, or one made from a function."""
        if isinstance(fn_or_resource, Resource):
            if uri is not None or options:
                raise TypeError("uri and options apply when building a resource from a function, not to a Resource")
            return self.add(fn_or_resource)
        if uri is None:
            raise TypeError("add_resource(fn, uri): a resource made from a function needs its URI")
        return self.add(Resource.from_function(original(fn_or_resource), uri, **options))

    def decorator(self, uri: str, options: dict[str, Any]) -> Callable[[Callable[..., Any]], Any]:
        """The body of `@server.resource(uri, ...)`: registers the function, returns it (still callable)."""
        if callable(uri):
            raise TypeError('@server.resource needs a URI: write @server.resource("resource://name")')

        def decorate(func: Callable[..., Any]) -> Any:
            inner = original(func)
            made = self.add(Resource.from_function(inner, uri, **options))
            return ResourceFunction(inner, self, made.uri)

        return decorate

    def updated(self, uri: str) -> None:
        """Tell the update listeners that the content at `uri` changed (`Server.resource_updated`);
        a URI no resource or template serves (one past `MAX_URI_LENGTH` too) reaches no client:
        that is logged."""
        if not self.owner.is_remote:  # (a remote passes on its upstream's news, listed or not)
            try:
                self.catalog.resolve(uri)
            except (UnknownResource, InvalidArguments):
                logger.warning(
                    "server %r: resource_updated(%.200r) reaches no client: the server serves no resource there "
                    "(code of a mounted server tells its own server: child.resource_updated(...))",
                    self.owner.name,
                    uri,
                )
        self._updates.notify(uri)

    def subscribe_updates(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener(uri)` on every `updated(uri)`; returns an unsubscribe function."""
        return self._updates.add(listener)
