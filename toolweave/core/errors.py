"""Every error toolweave raises, in one hierarchy.

```
ToolweaveError                      root: catch this to catch anything toolweave raises
 ├── ToolError                      raised by tool authors; the message always reaches the client
 │    ├── InvalidArguments          the call's arguments failed validation (lists each problem)
 │    ├── ToolTimeout               a deadline passed before the tool finished
 │    ├── UpstreamError             a mounted remote server went away or refused the arguments
 │    └── Rejected                  a policy turned the call away (rate limit, open circuit, ...)
 ├── UpstreamFailed                 an upstream answered with an internal error (masked)
 ├── InvalidResult                  a result breaks its output schema or the protocol (masked)
 ├── RedactedError                  a failure whose text held an injected secret, scrubbed (masked)
 ├── UnknownTool                    no enabled tool has that name   → JSON-RPC -32602
 ├── UnknownPrompt / UnknownResource                                → JSON-RPC -32602
 ├── MissingCapability              the call needs a client capability the client did not declare
 │                                                                  → JSON-RPC -32021
 ├── InputRequired                  the call needs input from the client first (see core/input.py)
 ├── ConfigError                    a config file is invalid: file, key path, what is wrong
 ├── DuplicateError (ValueError)    two components claim the same exposed name
 ├── TransformError (ValueError)    a transform does not fit its tool (raised at composition time)
 ├── SpecError (ValueError)         an OpenAPI document cannot be read or used (where, and what)
 ├── InjectionError                 an injected argument could not be filled at call time
 │                                  (internal: masked for clients, logged for operators)
 └── InvalidToken                   a bearer token was refused (HTTP 401; the reason is logged,
                                    never sent)
```

Any other exception raised by a tool is an *internal* error: with masking on (the default) the
client sees only `Error calling tool '<name>' (incident <id>)`, and the server logs the
traceback once under the same incident id (see `toolweave.core.masking`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolweave.core.names import quoted_name

if TYPE_CHECKING:
    from toolweave.core.input import InputRequest


class ToolweaveError(Exception):
    """The root of every error toolweave raises."""


class ToolError(ToolweaveError):
    """An error whose message is meant for the client (and the model).

    Raise it from a tool to return an `isError` result with exactly this message, whatever the
    masking policy. `tool`, when set, is the name the message quotes (as `'name'`): a server
    that exposes the tool under another name (a mount prefix, a rename) quotes that one instead.

    Example:
        >>> def divide(a: float, b: float) -> float:
        ...     if b == 0:
        ...         raise ToolError("b must not be zero")
        ...     return a / b
        >>> import anyio
        >>> from toolweave import Server
        >>> server = Server("calc")
        >>> _ = server.add_tool(divide)
        >>> result = anyio.run(server.call_tool, "divide", {"a": 1, "b": 0})
        >>> result.is_error, result.text
        (True, 'b must not be zero')
    """

    tool: str | None = None

    def for_tool(self, name: str) -> str:
        """The message as a client calling the tool `name` reads it.

        Example:
            >>> ToolTimeout("search", 2).for_tool("docs_search")
            "Tool 'docs_search' timed out after 2s"
        """
        message = str(self) or type(self).__name__
        if self.tool is None or self.tool == name:
            return message
        return message.replace(f"'{self.tool}'", f"'{name}'")

    def unattributed(self) -> ToolError:
        """This error, changed in place to quote no tool: its message stays as it is whatever name
        the boundary that answers it exposes (a prompt's error answered by the `get_prompt` tool).

        Example:
            >>> error = InvalidArguments("review", [ArgumentProblem("code", "Field required")])
            >>> error.unattributed().for_tool("get_prompt").splitlines()[0]
            "Invalid arguments for tool 'review':"
        """
        self.tool = None
        return self

    def quoting(self, name: str) -> ToolError:
        """This error, changed in place so that its message quotes `name` (for re-raising at a
        boundary that exposes the tool, prompt or resource under that name).

        Example:
            >>> str(UpstreamError("upstream 'up' did not answer prompt 'greet'", tool="greet").quoting("up_greet"))
            "upstream 'up' did not answer prompt 'up_greet'"
        """
        if self.tool is not None and self.tool != name:
            self.args = (self.for_tool(name),)
            self.tool = name
        return self


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One reason a call's arguments were refused: where (`path`) and what was expected."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class InvalidArguments(ToolError):
    """The arguments of a call failed validation against the exposed schema.

    The message lists every problem as `path: what was expected`; it never echoes the values.
    `kind` is `"prompt"` or `"resource"` when a prompt's arguments or a URI template's
    parameters did not convert (then served as JSON-RPC -32602).
    """

    def __init__(self, tool: str, problems: Sequence[ArgumentProblem], *, kind: str = "tool") -> None:
        self.tool = tool
        self.kind = kind
        self.problems = tuple(problems)
        lines = "\n".join(f"- {p}" for p in self.problems)
        super().__init__(f"Invalid arguments for {kind} '{tool}':\n{lines}")


class ToolTimeout(ToolError):
    """The tool did not finish within its time limit."""

    def __init__(self, tool: str, seconds: float) -> None:
        self.tool = tool
        self.seconds = seconds
        super().__init__(f"Tool '{tool}' timed out after {seconds:g}s")


class UpstreamError(ToolError):
    """A mounted remote server failed, went away, or could not be reached.

    `code` is the JSON-RPC error code the upstream answered with when it refused the request
    (e.g. -32602 for a prompt or resource it does not know), else `None`.
    """

    def __init__(self, message: str, *, code: int | None = None, tool: str | None = None) -> None:
        self.code = code
        self.tool = tool
        super().__init__(message)


class Rejected(ToolError):
    """A policy turned the call away before it ran (rate limit, concurrency, open circuit)."""

    def __init__(self, message: str, *, retry_after: float | None = None, tool: str | None = None) -> None:
        self.retry_after = retry_after
        self.tool = tool
        super().__init__(message)


class UpstreamFailed(ToolweaveError):
    """An upstream answered a request with an internal error (any JSON-RPC error but "invalid
    params" / "not found"). Internal: masked for clients like any failure, its message (which may
    hold the upstream's details) logged under the incident id."""


class InvalidResult(ToolweaveError):
    """A tool's successful result breaks its own output schema, or the protocol (structured
    content that is not a JSON object, or missing where an output schema promises it).

    Internal: clients get the masked message (sending it on would make their SDK raise); the
    server log names the tool and the first problem, never the value.
    """


class RedactedError(ToolweaveError):
    """Stands in for a failure whose own text held a value injected into the call and could not
    be scrubbed in place (pydantic's `ValidationError` quoting its input, say). Its message is
    `OriginalType: text` with each such value `[redacted]`; it keeps the original's traceback.
    Internal: masked for clients like the failure it replaces.
    """


class UnknownTool(ToolweaveError):
    """No enabled tool has this name. Served as JSON-RPC error -32602.

    `hint` (in-process calls only) says why the tool may be missing, e.g. a remote server is down.
    A name longer than any tool's is quoted cut (`quoted_name`).
    """

    def __init__(self, name: str, hint: str = "") -> None:
        self.name = name
        super().__init__(f"Unknown tool: {quoted_name(name)}{hint}")


class UnknownPrompt(ToolweaveError):
    """No enabled prompt has this name. Served as JSON-RPC error -32602.

    `hint` (in-process calls only) says why the prompt may be missing, as for `UnknownTool`.
    """

    def __init__(self, name: str, hint: str = "") -> None:
        self.name = name
        super().__init__(f"Unknown prompt: {quoted_name(name)}{hint}")


class UnknownResource(ToolweaveError):
    """No resource or template matches this URI. Served as JSON-RPC error -32602.

    `hint` (in-process calls only) says why the resource may be missing, as for `UnknownTool`.
    """

    def __init__(self, uri: str, hint: str = "") -> None:
        self.uri = uri
        super().__init__(f"Unknown resource: {uri}{hint}")


class MissingCapability(ToolweaveError):
    """The call needs a capability the client did not declare. Served as JSON-RPC error -32021.

    Raise it from a tool (it is never turned into an `isError` result); `capabilities` names
    what is missing in the wire's `ClientCapabilities` shape, e.g. `{"sampling": {}}`.

    Example:
        >>> import anyio
        >>> from toolweave.core.context import Context
        >>> async def summarize(text: str, ctx: Context) -> str:
        ...     if "sampling" not in ctx.client_capabilities:
        ...         raise MissingCapability("sampling")
        ...     ...
        >>> anyio.run(summarize, "a long text", Context())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        toolweave.core.errors.MissingCapability: ...sampling...
    """

    def __init__(self, *names: str, message: str | None = None) -> None:
        if not names:
            raise ValueError("name at least one missing capability")
        self.capabilities: dict[str, dict[str, object]] = {name: {} for name in names}
        listed = ", ".join(f"'{name}'" for name in names)
        super().__init__(message or f"This call requires the client capability {listed}")


class InputRequired(ToolweaveError):
    """Raised by a tool that needs input from the client before it can finish.

    `requests` maps names of your choice to `InputRequest`s (`elicit`, `sample`, `list_roots`);
    the call is made again with the answers in `ctx.input_responses` under the same names, and
    `state` (any string) in `ctx.request_state`. See `toolweave.core.input`.
    """

    def __init__(self, requests: Mapping[str, InputRequest], state: str | None = None) -> None:
        if not requests and state is None:
            raise ValueError("InputRequired needs at least one request or a state")
        self.requests = dict(requests)
        self.state = state
        super().__init__(f"input required: {', '.join(self.requests) or 'state only'}")


class ConfigError(ToolweaveError):
    """A config file is invalid. The message names the file, the key path and what is wrong."""

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None) -> None:
        self.file = file
        self.path = path
        where = ": ".join(part for part in (file, path) if part)
        super().__init__(f"{where}: {message}" if where else message)


class DuplicateError(ToolweaveError, ValueError):
    """Two components claim the same exposed name and the policy is `on_duplicate="error"`."""


class SpecError(ToolweaveError, ValueError):
    """An OpenAPI document that cannot be read or used, raised when its server is built.

    The message names the document (a path, a URL without secrets, or "the spec dict") and, when
    one part of it is at fault, the place in it (`paths./pets/{id}.get.parameters[0]`).
    """


class TransformError(ToolweaveError, ValueError):
    """A transform cannot be applied to a tool; raised when the tool is composed, never per call.

    The message names the tool and the argument (e.g. renaming onto an existing argument, hiding
    a required argument that has no default or source, an `Arg` for an argument that does not exist).
    A refusal of one argument also says which (`argument`), what kind of refusal it is (`problem`:
    `"required_hidden"`, `"default_mismatch"`, `"value_mismatch"`, `"rename"`) and the words about
    that argument (`detail`), for a caller that words it its own way (the config).
    """

    def __init__(
        self, message: str, *, argument: str | None = None, problem: str | None = None, detail: str | None = None
    ) -> None:
        super().__init__(message)
        self.argument, self.problem, self.detail = argument, problem, detail

    def within(self, prefix: str) -> TransformError:
        """This refusal with `prefix` before its message (the tool it happened in)."""
        return TransformError(f"{prefix}: {self}", argument=self.argument, problem=self.problem, detail=self.detail)


class InjectionError(ToolweaveError):
    """An injected argument could not be filled (a missing environment variable, header, claim...).

    It is an internal error: clients get the masked message, the server log names the argument and
    the source (the variable, header or claim), never a value.
    """


class InvalidToken(ToolweaveError):
    """A bearer token was refused: malformed, expired, wrongly signed, for another audience...

    The HTTP edge answers 401 with the spec's error code only; the message (why it was refused)
    is for the operator's log and never reaches the client.
    """


class VerifierUnavailable(InvalidToken):
    """A bearer token could not be checked now (not refused): the issuer's signing keys or its
    introspection endpoint could not be had. The HTTP edge answers 503 (try again), not 401 (which
    tells a client to get another token, from an identity provider that may be down too)."""


PROTOCOL_ANSWERS: tuple[type[ToolweaveError], ...] = (MissingCapability, InputRequired)
"""Raised by tools to answer the client at the protocol level (not results, and not failures):
middleware lets them through untouched (no retry, no circuit failure)."""
