"""`SearchTools`: a large catalog behind two tools, one that searches it and one that calls.

A model handed a thousand tool schemas reads a thousand schemas before it does anything.
Behind `SearchTools` a client lists three kinds of tool only: `search_tools` (finds tools by
what they do: their names, descriptions and argument names), `call_tool` (calls one of them by
name), and the tools named in `always`. Search answers with the matching tools' exposed
schemas, as `tools/list` would show them (only the tools the caller may see, under `Authorize`);
a call through `call_tool` runs the tool exactly as a direct call would — access, validation,
middleware, output check, error masking. The tools behind it are no longer the server's to a
parent that mounts it (a parent's transform cannot select them): put `SearchTools` on the
outermost server, and `Authorize` on the server that holds the tools.

Two strategies: `"bm25"` (ranked, for natural-language queries; see `toolweave.transforms.bm25`)
and `"regex"` (a pattern over the same text; tools whose name matches come first). The index
is built once per catalog compile, so a query never walks the catalog's schemas.

Example:
    >>> from toolweave import Server
    >>> server = Server("gateway")
    >>> @server.tool
    ... def create_invoice(customer: str, amount: float) -> str:
    ...     '''Create an invoice for a customer.'''
    ...     return "inv-1"
    >>> server.add_transform(SearchTools(always=["create_invoice"]))
    >>> [tool.name for tool in server.catalog.tools]
    ['create_invoice', 'search_tools', 'call_tool']
"""

from __future__ import annotations

import bisect
import itertools
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from toolweave.core.access import grant
from toolweave.core.content import TextContent
from toolweave.core.context import Context
from toolweave.core.errors import ToolError, UnknownTool
from toolweave.core.names import suggest
from toolweave.core.result import ToolResult, dump_json
from toolweave.core.tool import Tool, ToolAnnotations
from toolweave.transforms.bm25 import Admits, BM25Index, document
from toolweave.transforms.catalog import CatalogTransform, CatalogView

if TYPE_CHECKING:
    import regex

logger = logging.getLogger("toolweave.transforms")
Strategy = Literal["bm25", "regex"]
Finder = Callable[[str, int, Admits | None], list[int]]
"""`(query, limit, admits)`: the positions of the best matches, at most `limit`, of those `admits` admits."""

_FOUND_SCHEMA = {
    "type": "object",
    "properties": {"tools": {"type": "array", "items": {"type": "object"}}},
    "required": ["tools"],
}


def wire_form(tool: Tool) -> dict[str, Any]:
    """A tool as `tools/list` shows it (camelCase keys, unset ones left out)."""
    shown: dict[str, Any] = {"name": tool.name}
    if tool.title:
        shown["title"] = tool.title
    if tool.description:
        shown["description"] = tool.description
    shown["inputSchema"] = dict(tool.input_schema)
    if tool.output_schema is not None:
        shown["outputSchema"] = dict(tool.output_schema)
    if tool.annotations is not None and tool.annotations.to_dict():
        shown["annotations"] = tool.annotations.to_dict()
    return shown


class _Lines:
    """Texts joined into one, so a pattern scans them all in one pass (then each hit is checked
    against its own text)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self.starts = list(itertools.accumulate((len(text) + 1 for text in texts[:-1]), initial=0))
        self.joined = "\n".join(text.replace("\n", " ") for text in texts)

    def matching(self, pattern: regex.Pattern[str], limit: int, admits: Admits, deadline: float) -> list[int]:
        """The positions of the first `limit` texts (of those `admits` admits) that `pattern` matches.

        One search per text at most: after a hit the scan moves on to the next text, so a
        pattern matching everywhere (`''`, `^`, `x*`) costs no more than one matching once.
        """
        found: list[int] = []
        at = 0
        while self.texts and len(found) < limit:
            match = pattern.search(self.joined, at, timeout=_left(deadline))
            if match is None:
                break
            position = bisect.bisect_right(self.starts, match.start()) - 1
            if admits(position) and pattern.search(self.texts[position], timeout=_left(deadline)):
                found.append(position)
            if position + 1 >= len(self.starts):
                break
            at = self.starts[position + 1]
        return found


_PATTERN_PARTS = re.compile(
    r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]"  # an escape, a set: plain text here
    r"|(?P<open>\()|(?P<close>\))\s*(?P<repeated>[+*]|\{[\d\s,]*\})?"  # a group, and whether it repeats
    r"|(?P<repeat>[+*]|\{[\d\s,]*\})",  # a repeat of what precedes it
    re.DOTALL,
)
_UNPARSED = re.compile(r"\(\?(?:#|[\w-]*x)")
"""A comment group or the verbose flag: parentheses and spaces `_costly` cannot read as written."""
_MAX_COUNT = 100
"""The largest count a client's `{n}`, `{n,}`, `{n,m}` may give: compiling `x{4294967294}` lays
the repeat out in memory (24 GB, before any time budget starts), so a larger one is text."""
_MAX_PATTERN = 200
_REGEX_SECONDS = 0.05
"""The most time one regex search may take: a client's pattern runs on the server, and some
(`(.|.)*!`, `.*.*.*!`) backtrack for hours over ordinary text, so matching stops at this budget."""


def _hint(name: str, exposed: list[str]) -> str:
    close = suggest(name, exposed)
    return f" (did you mean {close!r}?)" if close else ""


def _named(arguments: dict[str, Any]) -> str | None:
    name = arguments.get("name")
    return name if isinstance(name, str) else None


def _everything(position: int) -> bool:
    return True


def _visible(needs: Sequence[int], passed: int) -> Admits:
    """Whether the tool at a position is one a caller may see: `needs[position]` is the bit of the
    rule it needs (0: none), `passed` the bits of the rules the caller passes (`grant`)."""
    return lambda position: needs[position] & passed == needs[position]


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.001)


def _costly(query: str) -> bool:
    """Whether `query`, as a pattern, could cost the server without bound: too long, a count
    above `_MAX_COUNT`, a comment or the verbose flag (not read here), or a repeated group
    holding a repeat at any depth (`(a+)+`, the shape of catastrophic backtracking, and
    `((x{99})){99}`, counts that multiply when compiled).

    Example:
        >>> [_costly(query) for query in ("x{3}", "x{4294967294}", "(a+)+", "((x{9})|y){9}", "(ab)+c*")]
        [False, True, True, True, False]
    """
    if len(query) > _MAX_PATTERN or _UNPARSED.search(query):
        return True
    holds = [False]  # for each open group (and the whole pattern): does it hold a repeat?
    for part in _PATTERN_PARTS.finditer(query):
        count = part["repeat"] or part["repeated"]
        if count and count.startswith("{") and any(int(n) > _MAX_COUNT for n in re.findall(r"\d+", count)):
            return True
        if part["open"]:
            holds.append(False)
        elif part["close"] and len(holds) > 1:
            inner = holds.pop()
            if inner and part["repeated"]:
                return True
            holds[-1] = holds[-1] or inner or bool(part["repeated"])
        elif part["repeat"]:
            holds[-1] = True
    return False


def _pattern(query: str) -> regex.Pattern[str]:
    """The client's pattern, or the query as literal text when it is not a pattern or could cost
    the server without bound (see `_costly`: a client's regex runs on the server, it must stay cheap)."""
    import regex  # only the regex strategy needs it (~10 ms to import)

    if not _costly(query):
        try:
            return regex.compile(query, regex.IGNORECASE | regex.MULTILINE)
        except regex.error:
            pass
    return regex.compile(regex.escape(query[:_MAX_PATTERN]), regex.IGNORECASE)


def _regex_finder(documents: Sequence[str], names: Sequence[str]) -> Finder:
    name_lines, document_lines = _Lines(names), _Lines(documents)

    def find(query: str, limit: int, admits: Admits | None = None) -> list[int]:
        pattern = _pattern(query)
        deadline = time.monotonic() + _REGEX_SECONDS
        allowed = admits or _everything
        try:
            by_name = name_lines.matching(pattern, limit, allowed, deadline)
            if len(by_name) >= limit:
                return by_name
            taken = set(by_name)
            more = document_lines.matching(
                pattern, limit - len(by_name), lambda i: i not in taken and allowed(i), deadline
            )
            return by_name + more
        except TimeoutError:
            raise ToolError(f"the pattern {query[:80]!r} takes too long to match: give a simpler one") from None

    return find


@dataclass(frozen=True)
class SearchTools(CatalogTransform):
    """List only a search tool, a call tool and the tools in `always` (see the module docs).

    Attributes:
        strategy: `"bm25"` (ranked natural-language search) or `"regex"`.
        max_results: The most tools one search returns.
        always: Tools still listed directly (names as this server exposes them). One the catalog
            has never exposed (a typo) is refused when the catalog compiles; one it exposed
            before and no longer does (disabled, removed meanwhile) is left out with an error
            logged until it is back.
        search_tool: The search tool's name.
        call_tool: The call tool's name.

    Example:
        >>> import anyio
        >>> from toolweave import Server
        >>> server = Server("gateway")
        >>> _ = server.add_tool(lambda: ["Rex"], name="list_pets", description="List the pets in the store.")
        >>> server.add_transform(SearchTools(max_results=3))
        >>> found = anyio.run(server.call_tool, "search_tools", {"query": "which pets are there"})
        >>> [tool["name"] for tool in found.structured_content["tools"]]
        ['list_pets']
    """

    strategy: Strategy = "bm25"
    max_results: int = 5
    always: Sequence[str] = ()
    search_tool: str = "search_tools"
    call_tool: str = "call_tool"
    _seen: set[str] = field(default_factory=set, init=False, repr=False, compare=False)
    """The `always` names the catalog has exposed so far."""

    def __post_init__(self) -> None:
        if self.strategy not in ("bm25", "regex"):
            raise ValueError(f"SearchTools strategy must be 'bm25' or 'regex', not {self.strategy!r}")
        if not isinstance(self.max_results, int) or self.max_results < 1:
            raise ValueError(f"SearchTools max_results must be a positive integer, not {self.max_results!r}")
        if isinstance(self.always, str):
            object.__setattr__(self, "always", (self.always,))

    def describe(self) -> str:
        return f"SearchTools({self.strategy})"

    def reaches(self, tool: Tool) -> Callable[[dict[str, Any]], str | None] | None:
        """The call tool names the tool it calls in its `name` argument."""
        return _named if tool.name == self.call_tool else None

    def front(self, catalog: CatalogView) -> list[Tool]:
        """The `always` tools, the search tool and the call tool, with the index built now."""
        always = set(self.always)
        exposed = [tool.name for tool in catalog.tools]
        missing = sorted(always.difference(exposed))
        seen = self._seen
        seen.update(always.intersection(exposed))
        if missing:
            named = ", ".join(f"{name!r}{_hint(name, exposed)}" for name in missing)
            message = f"SearchTools always names tools the catalog does not expose: {named}"
            if not seen.issuperset(missing):  # never there: a mistake, not a tool gone for now
                raise ValueError(message)
            logger.error("%s; they are left out until they are back", message)  # (disabled, removed meanwhile)
        listed = [tool for tool in catalog.tools if tool.name in always]
        behind = [tool for tool in catalog.tools if tool.name not in always]
        documents = [document(tool) for tool in behind]
        if self.strategy == "bm25":
            find: Finder = BM25Index(documents).search
        else:
            find = _regex_finder(documents, [tool.name for tool in behind])
        shown = [wire_form(tool) for tool in behind]
        texts = [dump_json(item) for item in shown]
        search = self._search(find, behind, shown, texts)
        return [*listed, search, self._call(catalog, {tool.name for tool in catalog.tools})]

    def _search(self, find: Finder, behind: list[Tool], shown: list[dict[str, Any]], texts: list[str]) -> Tool:
        limit, count = self.max_results, len(behind)
        rules = tuple(dict.fromkeys(tool.access for tool in behind if tool.access is not None))
        bit = {rule: 1 << index for index, rule in enumerate(rules)}
        needs = [0 if tool.access is None else bit[tool.access] for tool in behind]  # the rule a tool needs, as a bit
        restricted = bool(rules)

        async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            admits: Admits | None = None
            if restricted:  # only the tools this caller may see, still the best `limit` of them
                admits = _visible(needs, grant(rules, ctx.auth))  # each rule checked once, not per tool
            found = find(arguments["query"], limit, admits)
            text = '{"tools":[' + ",".join(texts[i] for i in found) + "]}"
            return ToolResult([TextContent(text)], {"tools": [shown[i] for i in found]})

        how = "natural-language query" if self.strategy == "bm25" else "regular expression"
        tools = "tools" if restricted else f"{count} tools"  # (a count tells of tools a caller may not see)
        return Tool(
            name=self.search_tool,
            description=(
                f"Search the {tools} of this server by what they do (a {how}). Returns the best "
                f"matches, up to {limit}, with their input schemas; call one with `{self.call_tool}`."
            ),
            input_schema={
                "type": "object",
                "properties": {"query": {"type": "string", "description": f"What the tool should do (a {how})."}},
                "required": ["query"],
            },
            output_schema=_FOUND_SCHEMA,
            output_checked=True,
            annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
            varies_with=(lambda ctx: grant(rules, ctx.auth),) if restricted else (),  # (a `Cache` keys on the view)
            run=run,
        )

    def _call(self, catalog: CatalogView, reachable: set[str]) -> Tool:
        """The call tool: any tool of `reachable` (the catalog's: behind the search, or listed in
        `always`, which a model may call either way), never the search and call tools themselves.

        It may run as an MCP task when a tool it reaches may: a client that accepts tasks then
        gets one for a long call made through it, whichever tool it reaches."""
        search = self.search_tool
        tasks = any(tool.task_support != "none" for tool in catalog.tools)

        async def run(arguments: dict[str, Any], ctx: Context) -> ToolResult:
            name = arguments["name"]
            unknown = ToolError(f"no tool named {name!r} behind this server: find one with `{search}` first")
            if name not in reachable:
                raise unknown
            try:  # the tool's own call path: access, validation, middleware, output check, masking
                return await catalog.call(name, arguments.get("arguments") or {}, ctx)
            except UnknownTool:  # a tool this caller may not use is one it cannot know of
                raise unknown from None

        return Tool(
            name=self.call_tool,
            description=f"Call a tool found with `{search}`, by its name, with arguments matching its input schema.",
            input_schema={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name, as the search returned it."},
                    "arguments": {"type": "object", "description": "The tool's arguments.", "default": {}},
                },
                "required": ["name"],
            },
            task_support="optional" if tasks else "none",
            varies_with=None,  # its answer is the reached tool's: a `Cache` keys that one, in its own chain
            run=run,
        )
