"""The prompt and resource registries of a `RemoteServer`: the upstream's components, then local ones.

They are the plain registries with one more source. The upstream session (see
`toolweave.mcp.upstream_components`) replaces the upstream's prompts or resources whenever it
lists them again; the registry then recompiles and announces the change, so a parent that mounts
the remote follows it like any child server (its clients get `list_changed`).

Example:
    >>> from toolweave.core.message import PromptResult
    >>> from toolweave.core.prompt import Prompt, PromptArgument
    >>> from toolweave.server.server import Server
    >>> async def render(arguments, ctx):
    ...     return PromptResult([])
    >>> registry = UpstreamPrompts(Server("gh"))
    >>> registry.set_upstream([Prompt(name="triage", run=render, arguments=(PromptArgument("issue"),))])
    >>> [prompt.name for prompt in registry.catalog.prompts]
    ['triage']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource
from toolweave.server.prompts import PromptRegistry
from toolweave.server.resources import ResourceRegistry

if TYPE_CHECKING:
    from toolweave.server.server import Server


class UpstreamPrompts(PromptRegistry):
    """A prompt registry that also exposes the prompts an upstream listed last."""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self._upstream: dict[str, Prompt] = {}

    def set_upstream(self, prompts: Iterable[Prompt]) -> None:
        """Replace the upstream's prompts and announce the change."""
        self._upstream = {prompt.name: prompt for prompt in prompts}
        self.changed()

    @property
    def upstream(self) -> dict[str, Prompt]:
        """The upstream's prompts, by name."""
        return dict(self._upstream)

    def _candidates(self) -> list[tuple[Prompt, str]]:
        origin = f"remote server {self.server.name!r}"
        found = [(prompt, f"prompt {name!r} of {origin}") for name, prompt in self._upstream.items()]
        return found + super()._candidates()


class UpstreamResources(ResourceRegistry):
    """A resource registry that also exposes the resources and templates an upstream listed last."""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self._upstream: dict[str, Resource] = {}

    def set_upstream(self, resources: Iterable[Resource]) -> None:
        """Replace the upstream's resources and templates and announce the change."""
        self._upstream = {resource.uri: resource for resource in resources}
        self.changed()

    @property
    def upstream(self) -> dict[str, Resource]:
        """The upstream's resources and templates, by URI (or URI template)."""
        return dict(self._upstream)

    def _candidates(self) -> list[tuple[Resource, str]]:
        origin = f"remote server {self.server.name!r}"
        found = [(resource, f"resource {uri!r} of {origin}") for uri, resource in self._upstream.items()]
        return found + super()._candidates()
