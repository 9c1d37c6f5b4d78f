"""The config file, as pydantic models: a superset of the `mcpServers` format MCP clients use.

```yaml
server: {name: gateway}
python:
  - "examples.local_tools:server"            # a toolweave Server, mounted
mcpServers:
  weather:                                   # an entry as in claude_desktop_config.json ...
    command: python3
    args: [lowlevel_weather.py]
    prefix: wx                               # ... plus toolweave's options
    tools:
      get_forecast: {description: "Forecast for a city.", args: {days: {default: 3}}}
middleware:
  logging: true
  timeout: 30
```

This module holds the root `Config` and its `inputs` and `catalog` sections; the parts live beside
it: the source entries in `entries`, per-tool changes and rules in `changes`, selectors and
middleware in `policies`, the `server` section in `settings`.

Example:
    >>> config = Config.model_validate({"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}})
    >>> config.mcp_servers["fs"].command
    'npx'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, PrivateAttr, StrictBool, model_validator

from toolweave.config.base import StrictModel, StrictPositiveInt
from toolweave.config.changes import AuthorizeSpec, TransformSpec
from toolweave.config.entries import McpServerEntry, OpenAPIEntry, PythonEntry, PythonSource
from toolweave.config.policies import MiddlewareSet
from toolweave.config.settings import ServerSettings
from toolweave.core.shown import Expanded


class SearchSpec(StrictModel):
    """List only a search tool and a call tool (and `always`) in front of the whole catalog."""

    strategy: Literal["bm25", "regex"] = Field("bm25", description="Ranked natural-language search, or a regex.")
    max_results: StrictPositiveInt = Field(5, description="The most tools one search returns.")
    always: list[str] = Field(default_factory=list, description="Tools still listed directly, by exposed name.")


class CatalogSpec(StrictModel):
    """What the composed server lists, for large catalogs and clients that only call tools."""

    search: SearchSpec | None = Field(None, description="Put the tools behind a search tool and a call tool.")
    prompts_as_tools: StrictBool = Field(False, description="Add list_prompts and get_prompt tools.")
    resources_as_tools: StrictBool = Field(False, description="Add list_resources and read_resource tools.")


class InputSpec(StrictModel):
    """A VS Code input variable, referenced as `${input:id}`. toolweave never prompts: the value comes
    from `--input id=value`, else the environment variable `id`, else `default`."""

    type: Literal["promptString", "pickString", "command"] = Field(
        "promptString", description="How VS Code asks for the value."
    )
    id: str = Field(description="The name `${input:<id>}` refers to.")
    description: str | None = Field(None, description="What the value is (shown when it is missing).")
    password: StrictBool = Field(False, description="Whether VS Code hides the value as it is typed.")
    default: str | None = Field(None, description="The value used when none is given.")
    options: list[Any] | None = Field(None, description="The choices of a 'pickString' input.")
    command: str | None = Field(None, description="The VS Code command of a 'command' input.")
    args: Any = Field(None, description="The arguments of a 'command' input.")


class Config(StrictModel):
    """A toolweave config file."""

    schema_url: str | None = Field(None, alias="$schema", description="The JSON Schema of this file, for editors.")
    server: ServerSettings = Field(
        default_factory=lambda: ServerSettings.model_validate({}),
        description="Settings of the composed server.",
    )
    python: list[PythonSource] = Field(
        default_factory=list,
        description="Python imports: 'module:attribute' strings or {import, prefix, tools, ...}.",
    )
    mcp_servers: dict[str, McpServerEntry] = Field(
        default_factory=dict,
        alias="mcpServers",
        description="MCP servers to mount, by name (the mcpServers format of Claude Desktop, Claude Code, "
        "Cursor, Windsurf, Cline).",
    )
    servers: dict[str, McpServerEntry] = Field(
        default_factory=dict,
        description="MCP servers to mount, by name, as VS Code's mcp.json writes them (the same entries as "
        "`mcpServers`).",
    )
    inputs: list[InputSpec] = Field(
        default_factory=list,
        description="VS Code's input variables, for `${input:id}` references (never prompted for).",
    )
    openapi: dict[str, OpenAPIEntry] = Field(
        default_factory=dict, description="HTTP APIs described by OpenAPI documents, by name: one tool per operation."
    )
    middleware: MiddlewareSet | None = Field(None, description="Middleware around every tool, outermost first.")
    catalog: CatalogSpec | None = Field(
        None, description="Tool search, prompts and resources as tools: applied to the whole composed catalog."
    )
    transforms: list[TransformSpec] = Field(
        default_factory=list, description="Changes applied to the tools a selector matches, in order."
    )
    authorize: list[AuthorizeSpec] = Field(
        default_factory=list,
        description="Access rules for prompts, resources and tools (HTTP with server.auth): the verified "
        "callers each rule admits see and use what it covers; for others it does not exist.",
    )
    _secrets: Expanded = PrivateAttr(default_factory=Expanded)
    _input_ids: frozenset[str] = PrivateAttr(default_factory=frozenset)

    @model_validator(mode="after")
    def _one_entry_per_name(self) -> Config:
        both = sorted(set(self.mcp_servers) & set(self.servers))
        if both:
            raise ValueError(f"{', '.join(map(repr, both))} defined under both 'mcpServers' and 'servers'")
        twice = sorted((set(self.mcp_servers) | set(self.servers)) & set(self.openapi))
        if twice:
            raise ValueError(f"{', '.join(map(repr, twice))} defined both as an MCP server and under 'openapi'")
        return self

    def server_entries(self) -> list[tuple[str, str, McpServerEntry]]:
        """Every MCP server entry as (the section it is under, its name, the entry)."""
        return [("mcpServers", name, entry) for name, entry in self.mcp_servers.items()] + [
            ("servers", name, entry) for name, entry in self.servers.items()
        ]

    @property
    def secrets(self) -> Expanded:
        """The values `${VAR}` expansion put into the file, each with its `${VAR}`: shown instead of
        the value wherever a command or URL is shown."""
        return self._secrets

    def with_secrets(self, secrets: Expanded) -> Config:
        """This config, knowing which of its values came from the environment."""
        self._secrets = secrets
        return self

    @property
    def input_ids(self) -> frozenset[str]:
        """The ids of the inputs the files read declare (`inputs`) or refer to (`${input:id}`)."""
        return self._input_ids

    def with_input_ids(self, ids: frozenset[str]) -> Config:
        """This config, knowing the ids of the inputs its files declare or refer to."""
        self._input_ids = ids
        return self

    @property
    def python_entries(self) -> list[PythonEntry]:
        """Every `python` item as a `PythonEntry` (strings are shorthand for `{import: ...}`)."""
        return [PythonEntry.model_validate({"import": item}) if isinstance(item, str) else item for item in self.python]
