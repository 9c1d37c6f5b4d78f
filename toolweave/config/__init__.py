"""Declarative config files: load, validate, and build a `Server` from them.

Example:
    >>> import pathlib, tempfile
    >>> from toolweave.config import build_file
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gateway.yaml"  # e.g. examples/wrap.yaml
    >>> _ = path.write_text("{server: {name: gateway}, middleware: {timeout: 30}}")
    >>> composed = build_file(path)
    >>> composed.server
    Server('gateway')
    >>> composed.server.run()  # serves over stdio until interrupted  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from toolweave.config.base import ConfigJsonSchema as _ConfigJsonSchema
from toolweave.config.build import build, build_file
from toolweave.config.composed import Composed
from toolweave.config.dialects import dialect_table as _dialect_table
from toolweave.config.from_client import build_client, client_config
from toolweave.config.live import LiveServer
from toolweave.config.loading import load_config
from toolweave.config.models import Config

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def config_schema() -> dict[str, Any]:
    """The JSON Schema of config files (for editor completion and validation).

    Example:
        >>> config_schema()["title"]
        'toolweave config'
    """
    schema = Config.model_json_schema(by_alias=True, mode="validation", schema_generator=_ConfigJsonSchema)
    return {"$schema": SCHEMA_DIALECT, **schema, "title": "toolweave config", "description": _DESCRIPTION}


_DESCRIPTION = (
    "A toolweave config file: MCP servers to mount (the server lists MCP clients write, as they are), "
    "Python imports, per-tool changes, middleware and transforms.\n\n"
    "Accepted dialects (`toolweave serve --from CLIENT` reads the client's own file):\n\n" + _dialect_table()
)


__all__ = [
    "Composed",
    "Config",
    "LiveServer",
    "build",
    "build_client",
    "build_file",
    "client_config",
    "config_schema",
    "load_config",
]
