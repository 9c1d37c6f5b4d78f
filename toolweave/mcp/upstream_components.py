"""The prompts, resources and resource templates of an upstream, as toolweave `Prompt` / `Resource`.

`UpstreamComponents.refresh` lists what the upstream advertises (`prompts` and `resources`
capabilities of its `initialize` result; a list it does not advertise is empty, and so are the
templates of an upstream without `resources/templates/list`), following cursors, and hands the
converted objects to the `RemoteServer`, which recompiles and announces the change. A list that
did not change is not handed over again (no spurious `list_changed`). A list the upstream fails
to answer, or answers with an item the SDK finds invalid (a prompt argument without a name), keeps
its last known value (logged): the upstream's tools and other lists are served all the same, its
resource templates too when `resources/list` fails, and its resources when the templates' list does.

The converted objects run over the upstream's session:

- a `Prompt` keeps the upstream's name, title, description and arguments (strings, as MCP has
  them: names, titles, descriptions and required flags unchanged); getting it sends
  `prompts/get` with the arguments as given and returns the messages unchanged;
- a `Resource` keeps the upstream's URI (a template stays a template), name, title, description
  and MIME type; reading it sends `resources/read` with the upstream's own URI and returns the
  contents (text or blob, MIME types) unchanged;
- `complete` asks the upstream's `completion/complete` (no values when it does not advertise
  completions or fails, logged); `subscribe`/`unsubscribe` send `resources/subscribe` for the
  first and `resources/unsubscribe` after the last subscriber of a URI (handshake-era upstreams
  that advertise it; a subscription to one that does not is logged, since it hears of no
  update), again on every new session; a 2026-era upstream gets the URIs in its
  `subscriptions/listen` stream instead (see `Upstream`); the upstream's `notifications/resources/updated`
  become the remote's `resource_updated(uri)`;
- an upstream name or URI toolweave cannot expose (a name outside `[A-Za-z0-9_.-]{1,128}`, a URI
  without a scheme, a template beyond `{name}` expressions) is skipped with a warning.

Example:
    >>> pages = {  # an upstream's `prompts/list`, in two pages
    ...     None: mt.ListPromptsResult(prompts=[mt.Prompt(name="greet")], next_cursor="2"),
    ...     "2": mt.ListPromptsResult(prompts=[mt.Prompt(name="summarize")]),
    ... }
    >>> async def list_prompts(params: mt.PaginatedRequestParams | None) -> mt.ListPromptsResult:
    ...     return pages[params.cursor if params else None]
    >>> [prompt.name for prompt in anyio.run(all_pages, list_prompts, "prompts", "notes")]  # as `refresh` lists
    ['greet', 'summarize']
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp.types as mt
from mcp import ClientSession, MCPError
from pydantic import ValidationError

from toolweave.core.context import Context
from toolweave.core.errors import UpstreamError, UpstreamFailed
from toolweave.core.message import PromptResult
from toolweave.core.names import check_name
from toolweave.core.prompt import Prompt, PromptArgument
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.tool import Origin
from toolweave.mcp.convert import TAGS_META_KEY
from toolweave.mcp.convert_components import from_mcp_prompt_result, from_mcp_read_result
from toolweave.mcp.upstream_errors import describe_failure
from toolweave.server.completion import Completion, CompletionRequest

if TYPE_CHECKING:
    from toolweave.mcp.upstream import Upstream

logger = logging.getLogger("toolweave.upstream")
KINDS = ("prompts", "resources")
LISTS = {"prompts": ("prompts",), "resources": ("resources", "resource_templates")}
"""The upstream lists (fields of their answers) each kind is made of."""


MAX_PAGES = 1000
"""Pages of one list read from an upstream at most (an upstream handing out cursors forever)."""


async def all_pages(
    fetch: Callable[[mt.PaginatedRequestParams | None], Awaitable[Any]], field: str, label: str
) -> list[Any]:
    """Every item of upstream `label`'s paginated list (`field` of each page), following
    `next_cursor` until it ends, repeats, or `MAX_PAGES` pages were read (logged: the rest is
    left out)."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        page = await fetch(mt.PaginatedRequestParams(cursor=cursor) if cursor else None)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            return items
        if len(seen) + 1 >= MAX_PAGES:
            said = "[%s] the upstream's %s list goes on past %d pages; the rest is left out"
            logger.warning(said, label, field, MAX_PAGES)
            return items
        seen.add(cursor)


def _meta_and_tags(meta: dict[str, Any] | None) -> tuple[dict[str, Any] | None, frozenset[str]]:
    merged = dict(meta) if meta else {}
    tags = merged.pop(TAGS_META_KEY, None) or ()
    return merged or None, frozenset(tags)


class UpstreamComponents:
    """Lists an upstream's prompts and resources and builds the objects that call them."""

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self._listed: dict[str, Any] = {}
        self._last: dict[str, list[Any]] = {}
        self._subscribers: dict[str, int] = {}
        self._changed = anyio.Event()

    def subscribed(self) -> list[str]:
        """The URIs that have subscribers, sorted."""
        return sorted(self._subscribers)

    async def subscriptions_changed(self) -> None:
        """Wait until a URI gets its first subscriber or loses its last."""
        await self._changed.wait()

    def _note_change(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    @property
    def _source(self) -> str:
        return f"{self.upstream.label} ({self.upstream.remote.target.describe()})"

    async def refresh(self, session: ClientSession, kinds: tuple[str, ...] = KINDS) -> None:
        """List the `kinds` ("prompts", "resources") the upstream advertises and update the remote."""
        capabilities = session.server_capabilities
        if "prompts" in kinds:
            await self._refresh("prompts", capabilities is not None and capabilities.prompts is not None, session)
        if "resources" in kinds:
            await self._refresh("resources", capabilities is not None and capabilities.resources is not None, session)

    async def _refresh(self, kind: str, advertised: bool, session: ClientSession) -> None:
        names = LISTS[kind]
        parts = [await self._listing(name, session) if advertised else [] for name in names]
        if all(part is None for part in parts):
            return  # nothing could be listed: every list keeps its last known value
        listed = [self._last.get(name, []) if part is None else part for name, part in zip(names, parts, strict=True)]
        self._last.update(zip(names, listed, strict=True))
        wire = [[item.model_dump(by_alias=True, exclude_none=True) for item in part] for part in listed]
        if wire == self._listed.get(kind):
            return
        self._listed[kind] = wire
        remote = self.upstream.remote
        if kind == "prompts":
            remote.set_remote_prompts(self._built(self._prompt, listed[0]))
        else:
            remote.set_remote_resources(self._built(self._resource, [*listed[0], *listed[1]]))

    async def _listing(self, name: str, session: ClientSession) -> list[Any] | None:
        """Every item of the upstream's list `name` (a field of `LISTS`), or `None` when it could
        not be listed (logged, naming the list and why)."""
        fetch = getattr(session, f"list_{name}")  # `list_prompts`, `list_resources`, `list_resource_templates`
        try:
            return await all_pages(lambda params: fetch(params=params), name, self.upstream.label)
        except MCPError as error:
            if name == "resource_templates" and error.error.code == mt.METHOD_NOT_FOUND:
                return []  # an upstream with resources but no templates may not serve the method at all
            reason = describe_failure(error)
        except ValidationError as error:
            reason = describe_failure(error)
        said = name.replace("_", " ")
        logger.warning("[%s] could not list the upstream's %s: %s", self.upstream.label, said, reason)
        return None

    # -- calls -----------------------------------------------------------------------------------

    async def get_prompt(self, name: str, arguments: dict[str, Any], ctx: Context) -> PromptResult:
        """Get the upstream's prompt `name` (`prompts/get`); the messages pass through unchanged."""
        strings = {key: value if isinstance(value, str) else str(value) for key, value in arguments.items()}
        request = mt.GetPromptRequest(params=mt.GetPromptRequestParams(name=name, arguments=strings))
        subject = f"prompt {name!r}"
        with self.upstream.traced("prompts/get", name) as span:
            result = await self.upstream.request(
                request, mt.GetPromptResult, ctx, subject=subject, action=subject, tool=name
            )
            span.answered(is_error=False)
        return from_mcp_prompt_result(result)

    async def read_resource(self, uri: str, ctx: Context) -> ResourceResult:
        """Read the upstream's resource `uri` (`resources/read`); the contents pass through unchanged."""
        request = mt.ReadResourceRequest(params=mt.ReadResourceRequestParams(uri=uri))
        subject = f"resource {uri!r}"
        with self.upstream.traced("resources/read", uri) as span:
            result = await self.upstream.request(
                request, mt.ReadResourceResult, ctx, subject=subject, action=subject, tool=uri
            )
            span.answered(is_error=False)
        return from_mcp_read_result(result)

    async def complete(self, request: CompletionRequest) -> Completion:
        """The upstream's suggestions for a prompt argument or template parameter, in its names."""
        session = self.upstream.session
        capabilities = session.server_capabilities if session is not None else None
        if capabilities is None or capabilities.completions is None:
            return Completion([], 0, False)
        ref: mt.PromptReference | mt.ResourceTemplateReference
        if request.kind == "prompt":
            ref = mt.PromptReference(type="ref/prompt", name=request.name)
        else:
            ref = mt.ResourceTemplateReference(type="ref/resource", uri=request.name)
        params = mt.CompleteRequestParams(
            ref=ref,
            argument=mt.CompletionArgument(name=request.argument, value=request.value),
            context=mt.CompletionContext(arguments=dict(request.arguments)) if request.arguments else None,
        )
        subject = f"completion of {request.kind} {request.name!r}"
        try:
            result = await self.upstream.request(
                mt.CompleteRequest(params=params),
                mt.CompleteResult,
                Context(),
                subject=subject,
                action=subject,
                for_caller=False,
            )
        except (UpstreamError, UpstreamFailed) as error:
            logger.warning("[%s] no completion values: %s", self.upstream.label, error)
            return Completion([], 0, False)
        found = result.completion
        return Completion.of([str(value) for value in found.values], found.total, bool(found.has_more))

    async def subscribe(self, uri: str) -> None:
        """Count a subscriber of `uri`; the first one subscribes at the upstream."""
        self._subscribers[uri] = self._subscribers.get(uri, 0) + 1
        if self._subscribers[uri] == 1:
            self._note_change()
            if self.upstream.session is not None:
                await self._send_subscription(self.upstream.session, uri, subscribe=True)

    async def unsubscribe(self, uri: str) -> None:
        """Count a subscriber of `uri` gone; after the last one the upstream is told."""
        left = self._subscribers.get(uri, 0) - 1
        if left > 0:
            self._subscribers[uri] = left
            return
        self._subscribers.pop(uri, None)
        if left == 0:
            self._note_change()
            if self.upstream.session is not None:
                await self._send_subscription(self.upstream.session, uri, subscribe=False)

    async def resubscribe(self, session: ClientSession) -> None:
        """Subscribe `session`, a new session still being opened, to every URI that has subscribers
        (those that get their first while it is told the others too: `subscribe` sends only over
        a session that is up)."""
        sent: set[str] = set()
        while unsent := [uri for uri in self._subscribers if uri not in sent]:
            for uri in unsent:
                sent.add(uri)
                await self._send_subscription(session, uri, subscribe=True)

    async def _send_subscription(self, session: ClientSession, uri: str, *, subscribe: bool) -> None:
        if self.upstream.era == "2026":
            return  # its `subscriptions/listen` stream carries the URIs
        capabilities = session.server_capabilities
        resources = capabilities.resources if capabilities is not None else None
        if resources is None or not resources.subscribe:
            if subscribe:
                said = "[%s] %r gets no updates: the upstream does not offer resource subscriptions"
                logger.warning(said, self.upstream.label, uri)
            return
        request: mt.SubscribeRequest | mt.UnsubscribeRequest
        if subscribe:
            request = mt.SubscribeRequest(params=mt.SubscribeRequestParams(uri=uri))
        else:
            request = mt.UnsubscribeRequest(params=mt.UnsubscribeRequestParams(uri=uri))
        verb = "subscribe to" if subscribe else "unsubscribe from"
        try:
            await self.upstream.request(
                request,
                mt.EmptyResult,
                Context(),
                subject=uri,
                action=f"{verb} {uri!r}",
                for_caller=False,
                over=session,
            )
        except (UpstreamError, UpstreamFailed) as error:
            logger.warning("[%s] could not %s %r: %s", self.upstream.label, verb, uri, error)

    # -- building ----------------------------------------------------------------------------------

    def _built(self, build: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        built = []
        for item in items:
            try:
                built.append(build(item))
            except ValueError as error:
                logger.warning("[%s] skipping an upstream component: %s", self.upstream.label, error)
        return built

    def _prompt(self, wire: mt.Prompt) -> Prompt:
        name = check_name(wire.name, "upstream prompt")
        meta, tags = _meta_and_tags(wire.meta)
        get = self.get_prompt

        async def run(arguments: dict[str, Any], ctx: Context) -> PromptResult:
            return await get(name, arguments, ctx)

        return Prompt(
            name=name,
            run=run,
            title=wire.title,
            description=wire.description,
            arguments=tuple(
                PromptArgument(arg.name, arg.description, bool(arg.required), arg.title) for arg in wire.arguments or ()
            ),
            tags=tags,
            meta=meta,
            origin=Origin("remote", self._source, name),
        )

    def _resource(self, wire: mt.Resource | mt.ResourceTemplate) -> Resource:
        uri = wire.uri if isinstance(wire, mt.Resource) else wire.uri_template
        meta, tags = _meta_and_tags(wire.meta)
        read = self.read_resource

        async def run(uri: str, params: dict[str, Any], ctx: Context) -> ResourceResult:
            return await read(uri, ctx)

        return Resource(
            uri=str(uri),
            name=wire.name,
            run=run,
            title=wire.title,
            description=wire.description,
            mime_type=wire.mime_type,
            tags=tags,
            meta=meta,
            origin=Origin("remote", self._source, str(uri)),
        )
