"""What `toolweave list` shows: the tools, prompts and resources a client of a server will see.

Plain data: each component as the server's list sends it (`toolweave.mcp.convert`, the wire's
camelCase), plus toolweave's `access` (what a caller needs to see it), that the CLI renders as
tables or prints as JSON. (How each tool was made is `toolweave.explain`.)

Example:
    >>> import anyio
    >>> from toolweave import Server
    >>> server = Server("demo")
    >>> server.add_tool(lambda text: text, name="echo").name
    'echo'
    >>> [tool["name"] for tool in anyio.run(listing, server)["tools"]]
    ['echo']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolweave.core.context import Context
from toolweave.core.prompt import Prompt
from toolweave.core.resource import Resource
from toolweave.core.tool import Tool
from toolweave.mcp.convert import wire_tool
from toolweave.mcp.convert_components import to_mcp_prompt, to_mcp_resource, to_mcp_resource_template
from toolweave.server.server import Server


def _with_access(wire: dict[str, Any], component: Any) -> dict[str, Any]:
    """`wire`, with what a caller needs to see `component` (`access`: toolweave's own, not the wire's)."""
    if component.access is not None:
        wire["access"] = component.access.describe()
    return wire


def tool_info(tool: Tool) -> dict[str, Any]:
    """A tool as `tools/list` sends it (`wire_tool`: `inputSchema`, `outputSchema`, tags in `_meta`),
    with what a caller needs to see it (`access`)."""
    return _with_access(dict(wire_tool(tool)), tool)


def _sent(model: Any, component: Any) -> dict[str, Any]:
    """A prompt or resource as its list sends it (`model`, the SDK's, dumped as the SDK writes it
    to the wire), with what a caller needs to see it (`access`)."""
    return _with_access(model.model_dump(by_alias=True, mode="json", exclude_none=True), component)


async def listing(server: Server, ctx: Context | None = None) -> dict[str, list[dict[str, Any]]]:
    """The tools, prompts, resources and resource templates of `server` as `tools/list`,
    `prompts/list`, `resources/list` and `resources/templates/list` send them (under `tools`,
    `prompts`, `resources` and `resourceTemplates`): all of them, with what each needs (`access`),
    or — given `ctx` — what the caller of `ctx` will see."""
    found: tuple[Sequence[Tool], Sequence[Prompt], Sequence[Resource], Sequence[Resource]]
    if ctx is None:
        resources = server.resources.catalog
        found = (
            server.catalog.tools,
            server.prompts.catalog.prompts,
            resources.resources,
            resources.resource_templates,
        )
    else:
        found = (
            await server.list_tools(ctx),
            await server.list_prompts(ctx),
            await server.list_resources(ctx),
            await server.list_resource_templates(ctx),
        )
    tools, prompts, static, templates = found
    return {
        "tools": [tool_info(tool) for tool in tools],
        "prompts": [_sent(to_mcp_prompt(prompt), prompt) for prompt in prompts],
        "resources": [_sent(to_mcp_resource(resource), resource) for resource in static],
        "resourceTemplates": [_sent(to_mcp_resource_template(template), template) for template in templates],
    }
