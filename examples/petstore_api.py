"""A tiny pets API (Starlette) with its OpenAPI document, for `examples/openapi.yaml`.

Run it with `python examples/petstore_api.py` (it answers on http://127.0.0.1:8123), then
`toolweave list examples/openapi.yaml` or `toolweave serve examples/openapi.yaml`.
"""

from __future__ import annotations

import os

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

PETS = {1: {"id": 1, "name": "Rex", "tag": "dog"}, 2: {"id": 2, "name": "Tom", "tag": "cat"}}
PET = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "integer", "readOnly": True}, "name": {"type": "string"}, "tag": {"type": "string"}},
}
SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Petstore", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:8123"}],
    "components": {"schemas": {"Pet": PET}},
    "paths": {
        "/pets": {
            "get": {
                "operationId": "list_pets",
                "tags": ["pets"],
                "summary": "List the pets in the store",
                "parameters": [
                    {"name": "tag", "in": "query", "schema": {"type": "string"}, "description": "Only this kind."},
                    {"name": "api_key", "in": "query", "required": True, "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "The pets", "content": {"application/json": {
                    "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}},
            },
            "post": {
                "operationId": "add_pet",
                "tags": ["pets", "write"],
                "summary": "Add a pet",
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}},
                "responses": {"201": {"description": "Added", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}}},
            },
        },
        "/pets/{pet_id}": {
            "get": {
                "operationId": "get_pet",
                "tags": ["pets"],
                "summary": "Get one pet by its id",
                "parameters": [{"name": "pet_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "The pet", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}}},
            },
            "delete": {
                "operationId": "delete_pet",
                "tags": ["pets", "write"],
                "parameters": [{"name": "pet_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"204": {"description": "Deleted"}},
            },
        },
    },
}
KEY = os.environ.get("PETSTORE_KEY", "demo-key")


async def openapi(request: Request) -> JSONResponse:
    return JSONResponse(SPEC)


async def pets(request: Request) -> Response:
    if request.method == "POST":
        body = await request.json()
        pet = {"id": max(PETS) + 1, "name": body["name"], **({"tag": body["tag"]} if "tag" in body else {})}
        PETS[pet["id"]] = pet
        return JSONResponse(pet, status_code=201)
    if request.query_params.get("api_key") != KEY:
        return JSONResponse({"detail": "bad api_key"}, status_code=403)
    tag = request.query_params.get("tag")
    return JSONResponse([pet for pet in PETS.values() if tag is None or pet.get("tag") == tag])


async def pet(request: Request) -> Response:
    pet_id = int(request.path_params["pet_id"])
    if request.method == "DELETE":
        PETS.pop(pet_id, None)
        return Response(status_code=204)
    if pet_id not in PETS:
        return JSONResponse({"detail": f"no pet {pet_id}"}, status_code=404)
    return JSONResponse(PETS[pet_id])


app = Starlette(
    routes=[
        Route("/openapi.json", openapi),
        Route("/pets", pets, methods=["GET", "POST"]),
        Route("/pets/{pet_id}", pet, methods=["GET", "DELETE"]),
    ]
)

if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=8123)
