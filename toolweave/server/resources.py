"""The resource registry of a server and its compiled resource catalog.

The catalog holds static resources in a dict (a read is one lookup) and all templates compiled
once into one pattern (`TemplateSet`): a URI that is no static resource is one regex match,
and the first registered template that matches wins. Mounted servers'
resources get the mount prefix as the first path segment of their URI:
`resource://invoices/{id}` mounted under `billing` is `resource://billing/invoices/{id}`.

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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolweave.core.context import Context
from toolweave.core.errors import PROTOCOL_ANSWERS, InvalidArguments, ToolError, UnknownResource
from toolweave.core.masking import ErrorPolicy, is_cancellation
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.uri_template import TemplateSet
from toolweave.core.validation import ArgumentErrors
from toolweave.middleware.hooks import ResourceHandler, ResourceRead, build_resource_chain, resource_runner
from toolweave.server.components import is_visible, keep_new, masked_failure
from toolweave.server.registry import Registry
from toolweave.server.uri_prefix import UriPrefix

if TYPE_CHECKING:
    from toolweave.middleware.base import Middleware
    from toolweave.server.mount import Mount



@dataclass(frozen=True, slots=True)
class ResourceEntry:
    """One exposed resource or template: the resource, its origin, and its prebuilt chain."""

    resource: Resource
    origin: str
    handler: ResourceHandler

    @classmethod
    def build(cls, resource: Resource, origin: str, middleware: tuple[Middleware, ...]) -> ResourceEntry:
        """Fold the middleware that applies to `resource` into its read path, once."""
        chain = [layer for layer in middleware if layer.applies_to_resource(resource)]
        inner = resource_runner(resource)
        return cls(resource, origin, build_resource_chain(chain, inner) if chain else inner)


@dataclass(slots=True)
class ResourceCatalog:
    """The compiled view of a server's resources and resource templates."""

    static: dict[str, ResourceEntry]
    templates: tuple[ResourceEntry, ...]
    reject_extra: bool = True
    errors: ErrorPolicy = field(default_factory=ErrorPolicy)
    cache: dict[str, Any] = field(default_factory=dict)
    """Scratch space for adapters (wire lists), dropped with the catalog."""
    matcher: TemplateSet[ResourceEntry] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.matcher = TemplateSet(
            [(entry.resource.template, entry) for entry in self.templates if entry.resource.template is not None]
        )

    @property
    def resources(self) -> tuple[Resource, ...]:
        """The static resources, in registration order."""
        return tuple(entry.resource for entry in self.static.values())

    @property
    def resource_templates(self) -> tuple[Resource, ...]:
        """The resource templates, in registration order."""
        return tuple(entry.resource for entry in self.templates)

    def resolve(self, uri: str) -> tuple[ResourceEntry, dict[str, str]]:
        """The entry serving `uri` and the raw template parameters, or `UnknownResource`.

        A static resource wins over a template; among templates the first registered wins.
        """
        entry = self.static.get(uri)
        if entry is not None:
            return entry, {}
        found = self.matcher.match(uri)
        if found is not None:
            return found
        raise UnknownResource(uri)

    async def read(self, uri: str, ctx: Context) -> ResourceResult:
        """Read `uri` through its chain.

        Raises:
            UnknownResource: no enabled resource or template matches `uri`.
            InvalidArguments: a template parameter does not convert to its declared type.
            ToolError: the resource failed (an internal error arrives masked).
        """
        entry, raw = self.resolve(uri)
        resource = entry.resource
        params: dict[str, Any] = raw
        if raw and resource.validator is not None:
            try:
                params = resource.validator.validate(raw, reject_extra=self.reject_extra)
            except ArgumentErrors as problems:
                raise InvalidArguments(resource.uri, problems.problems, kind="resource template") from None
        try:
            return await entry.handler(ResourceRead(resource, uri, params, ctx))
        except ToolError as error:
            error.quoting(uri)  # a message of a mounted resource quotes the URI the client read
            raise
        except PROTOCOL_ANSWERS:  # the resource asks the client for something: the edge answers it
            raise
        except BaseException as error:  # SystemExit, KeyboardInterrupt... from a resource: masked too
            if is_cancellation(error):
                raise
            raise masked_failure(self.errors, "resource", uri, error) from error


class ResourceRegistry(Registry[Resource, "ResourceCatalog"]):
    """The resources and templates of one server: local, listed by an upstream, or exposed by mounts."""

    kind = "resource"
    unknown = UnknownResource
    exposed = "exposed_resources"

    def key(self, component: Resource) -> str:
        return component.uri

    def label(self, key: str) -> str:
        return repr(key)

    def decorator(self, uri: str, options: dict[str, Any]) -> Callable[[Callable[..., Any]], Any]:
        """The body of `@server.resource(uri, ...)`: registers and returns the function unchanged."""
        if callable(uri):
            raise TypeError('@server.resource needs a URI: write @server.resource("resource://name")')

        def decorate(func: Callable[..., Any]) -> Any:
            self.add(Resource.from_function(func, uri, **options))
            return func

        return decorate

    def _compile(self) -> ResourceCatalog:
        server = self.server
        middleware = server.middleware
        static: dict[str, ResourceEntry] = {}
        templates: dict[str, ResourceEntry] = {}
        for resource, origin in self._candidates():
            if not is_visible(server, resource.enabled, resource.tags, (resource.name, resource.uri)):
                continue
            bucket = templates if resource.is_template else static
            if resource.uri in bucket:
                message = (
                    f"server {server.name!r}: resource {resource.uri!r} is claimed twice: "
                    f"by {bucket[resource.uri].origin} and by {origin}"
                )
                if not keep_new(server, message):
                    continue
            bucket[resource.uri] = ResourceEntry.build(resource, origin, middleware)
        return ResourceCatalog(
            static=static,
            templates=tuple(templates.values()),
            reject_extra=server.extra_args == "reject",
            errors=server.error_policy,
        )


def mounted_resources(mounted: Mount) -> list[tuple[Resource, str]]:
    """The resources of `mounted.child` as the parent sees them: URIs prefixed, read through the child."""
    child = getattr(mounted.child, "resources", None)
    if not isinstance(child, ResourceRegistry):
        return []
    prefix = UriPrefix(mounted.prefix)
    catalog = child.catalog
    found = []
    for entry in (*catalog.static.values(), *catalog.templates):
        resource = entry.resource
        exposed = resource.replace(uri=prefix.apply(resource.uri), run=_through_chain(entry, prefix))
        origin = f"{mounted.label} resource {resource.uri!r} (server {mounted.child.name!r})"
        found.append((exposed, origin))
    return found


def _through_chain(entry: ResourceEntry, prefix: UriPrefix) -> Callable[[str, dict[str, Any], Context], Any]:
    """The child's whole read path, given the parent's URI; contents keep the parent's URI."""
    handler, resource = entry.handler, entry.resource

    async def run(uri: str, params: dict[str, Any], ctx: Context) -> ResourceResult:
        child_uri = prefix.strip(uri)
        result = await handler(ResourceRead(resource, child_uri, params, ctx))
        return prefix.relabel(result, child_uri, uri)

    return run
