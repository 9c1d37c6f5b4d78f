"""toolweave: compose MCP tools — wrap, reshape, mount and serve them.

Example:
    >>> import toolweave
    >>> server = toolweave.Server("demo")
    >>> @server.tool
    ... def greet(name: str) -> str:
    ...     '''Say hello.'''
    ...     return f"Hello, {name}!"
    >>> import anyio
    >>> anyio.run(server.call_tool, "greet", {"name": "Ada"}).text
    'Hello, Ada!'
"""

from toolweave.core.content import (
    Audio,
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    File,
    Image,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from toolweave.core.context import AuthInfo, ClientInfo, Context, get_context
from toolweave.core.decorator import tool
from toolweave.core.errors import (
    ConfigError,
    DuplicateError,
    InjectionError,
    InputRequired,
    InvalidArguments,
    InvalidResult,
    InvalidToken,
    MissingCapability,
    RedactedError,
    Rejected,
    SpecError,
    ToolError,
    ToolTimeout,
    ToolweaveError,
    TransformError,
    UnknownPrompt,
    UnknownResource,
    UnknownTool,
    UpstreamError,
    UpstreamFailed,
    VerifierUnavailable,
)
from toolweave.core.input import InputRequest, elicit, list_roots, sample
from toolweave.core.message import Message, PromptResult
from toolweave.core.prompt import Prompt, PromptArgument
from toolweave.core.resource import Resource, ResourceResult
from toolweave.core.result import ToolResult
from toolweave.core.tool import Tool, ToolAnnotations
from toolweave.explain import explain
from toolweave.middleware.base import Middleware, ToolCall
from toolweave.middleware.hooks import PromptCall, ResourceRead
from toolweave.middleware.selector import Selector
from toolweave.server.completion import CompletionRequest
from toolweave.server.remote import RemoteServer
from toolweave.server.server import Server
from toolweave.transforms import (
    Annotate,
    Arg,
    Authorize,
    ExcludeArgs,
    Forward,
    FromClaim,
    FromContext,
    FromEnv,
    FromHeader,
    InjectArgs,
    InjectContext,
    LimitResult,
    MapResult,
    MaskErrors,
    PromptsAsTools,
    Rename,
    ResourcesAsTools,
    SearchTools,
    Secret,
    TransformArgs,
)
from toolweave.version import VERSION

__version__ = VERSION

__all__ = [
    "Annotate",
    "Arg",
    "Audio",
    "AudioContent",
    "AuthInfo",
    "Authorize",
    "BlobResourceContents",
    "ClientInfo",
    "CompletionRequest",
    "ConfigError",
    "Context",
    "DuplicateError",
    "EmbeddedResource",
    "ExcludeArgs",
    "File",
    "Forward",
    "FromClaim",
    "FromContext",
    "FromEnv",
    "FromHeader",
    "Image",
    "ImageContent",
    "InjectArgs",
    "InjectContext",
    "InjectionError",
    "InputRequest",
    "InputRequired",
    "InvalidArguments",
    "InvalidResult",
    "InvalidToken",
    "LimitResult",
    "MapResult",
    "MaskErrors",
    "Message",
    "Middleware",
    "MissingCapability",
    "Prompt",
    "PromptArgument",
    "PromptCall",
    "PromptResult",
    "PromptsAsTools",
    "RedactedError",
    "Rejected",
    "RemoteServer",
    "Rename",
    "Resource",
    "ResourceLink",
    "ResourceRead",
    "ResourceResult",
    "ResourcesAsTools",
    "SearchTools",
    "Secret",
    "Selector",
    "Server",
    "SpecError",
    "TextContent",
    "TextResourceContents",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "ToolTimeout",
    "ToolweaveError",
    "TransformArgs",
    "TransformError",
    "UnknownPrompt",
    "UnknownResource",
    "UnknownTool",
    "UpstreamError",
    "UpstreamFailed",
    "VerifierUnavailable",
    "__version__",
    "elicit",
    "explain",
    "get_context",
    "list_roots",
    "sample",
    "tool",
]
