"""Transforms: pure `Tool -> Tool` functions, one per module, applied once at composition time.

- `Rename(name, title=, description=)`: a new tool name, title or description.
- `TransformArgs({"q": Arg(name=, description=, default=, type=, hide=, ...)})`: rename,
  redescribe, re-default, retype, hide and reorder arguments.
- `ExcludeArgs("debug", ...)`: remove arguments that have defaults; the default is used.
- `InjectArgs(user_id=FromContext("auth.subject"), api_key=FromEnv("KEY"), region="eu")`: hide
  arguments and fill them per call (`FromContext`, `FromHeader`, `FromClaim`, `FromEnv`, `Secret`,
  a callable, a constant).
- `InjectContext("context")`: pass the request `Context` into a parameter.
- `MaskErrors(message=, passthrough=)`: per-tool error masking.
- `Annotate(read_only=, destructive=, idempotent=, open_world=, title=, tags=, meta=)`: set or
  merge hints, tags and meta.
- `MapResult(fn, output_schema=)`: post-process results.
- `Authorize(scopes=, claims=, when=)`: only verified callers that pass see and use the tool (also
  prompts and resources: `server.add_transform(..., prompts=, resources=)`).
- `Forward(fn)` with `forward()` / `forward_raw()`: your own signature in front of the tool.
- `LimitResult(max_bytes=, max_items=)`: cut results down, visibly, within the output schema.

Catalog transforms reshape the whole compiled catalog (`server.add_transform(...)`):

- `SearchTools(strategy="bm25" | "regex", max_results=, always=)`: a search tool and a call tool
  in front of a large catalog.
- `PromptsAsTools()`, `ResourcesAsTools()`: prompts and resources for clients that only call tools.

Argument transforms fuse: stacked, they cost one argument rewrite per call (see `argmap`).

Example:
    >>> from toolweave import Tool
    >>> def search(q: str, api_key: str, debug: bool = False) -> list[str]:
    ...     return [q]
    >>> tool = Tool.from_function(search).with_transforms(
    ...     Rename("search_docs"),
    ...     TransformArgs({"q": Arg(name="query", description="Search terms")}),
    ...     ExcludeArgs("debug"),
    ...     InjectArgs(api_key=FromEnv("SEARCH_KEY")),
    ... )
    >>> tool.name, list(tool.input_schema["properties"])
    ('search_docs', ['query'])
"""

from toolweave.transforms.annotate import Annotate
from toolweave.transforms.args import Arg, TransformArgs
from toolweave.transforms.authorize import Authorize
from toolweave.transforms.catalog import CatalogTransform
from toolweave.transforms.components_as_tools import PromptsAsTools, ResourcesAsTools
from toolweave.transforms.exclude import ExcludeArgs
from toolweave.transforms.forward import Forward, forward, forward_raw
from toolweave.transforms.inject import InjectArgs
from toolweave.transforms.inject_context import InjectContext
from toolweave.transforms.limit_result import LimitResult
from toolweave.transforms.map_result import MapResult
from toolweave.transforms.mask import MaskErrors
from toolweave.transforms.rename import Rename
from toolweave.transforms.search import SearchTools
from toolweave.transforms.signature import NOT_SET
from toolweave.transforms.sources import FromClaim, FromContext, FromEnv, FromHeader, Secret, Source

__all__ = [
    "NOT_SET",
    "Annotate",
    "Arg",
    "Authorize",
    "CatalogTransform",
    "ExcludeArgs",
    "Forward",
    "FromClaim",
    "FromContext",
    "FromEnv",
    "FromHeader",
    "InjectArgs",
    "InjectContext",
    "LimitResult",
    "MapResult",
    "MaskErrors",
    "PromptsAsTools",
    "Rename",
    "ResourcesAsTools",
    "SearchTools",
    "Secret",
    "Source",
    "TransformArgs",
    "forward",
    "forward_raw",
]
