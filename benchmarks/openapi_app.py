"""A minimal JSON API (Starlette) with its OpenAPI document, served by `bench_openapi` in a subprocess."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

ITEM = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "price": {"type": "number"}},
    "required": ["id", "name", "price"],
}
SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Items", "version": "1"},
    "paths": {
        "/items/{item_id}": {
            "get": {
                "operationId": "get_item",
                "parameters": [
                    {"name": "item_id", "in": "path", "required": True, "schema": {"type": "integer"}},
                    {"name": "currency", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": ITEM}}}},
            }
        }
    },
}


async def get_item(request: Request) -> JSONResponse:
    item_id = int(request.path_params["item_id"])
    return JSONResponse({"id": item_id, "name": f"item {item_id}", "price": 9.5})


app = Starlette(routes=[Route("/items/{item_id}", get_item)])
