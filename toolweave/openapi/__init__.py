"""HTTP APIs described by OpenAPI 3.x as toolweave tools: one tool per operation.

Example:
    >>> from toolweave import RemoteServer
    >>> api = RemoteServer.openapi({"openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
    ...     "paths": {"/pets": {"get": {"operationId": "list_pets"}}}}, base_url="http://127.0.0.1:9")
    >>> [tool.name for tool in api.catalog.tools]
    ['list_pets']
"""

from toolweave.core.errors import SpecError
from toolweave.openapi.credentials import Credentials
from toolweave.openapi.operations import Operation, read_operations
from toolweave.openapi.routes import Routes
from toolweave.openapi.server import OpenAPIServer
from toolweave.openapi.spec import Spec, load_spec

__all__ = ["Credentials", "OpenAPIServer", "Operation", "Routes", "Spec", "SpecError", "load_spec", "read_operations"]
