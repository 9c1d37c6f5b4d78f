"""A small FastAPI app (pets, an API-key-guarded route, a slow route) whose generated spec the tests wrap.

The app records the headers of every request it answers (`received(app)`), so a test can show
what reached the API, not only what a route chose to read."""

from __future__ import annotations

from typing import Annotated

import anyio

from tests.optional import require

require("fastapi", "FastAPI (a dev extra) is not installed")

from fastapi import APIRouter, Cookie, Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, RedirectResponse
from pydantic import BaseModel

API_KEY = "sk-test-0123456789"


class NewPet(BaseModel):
    name: str
    tag: str | None = None


class Pet(NewPet):
    id: int


def received(app: FastAPI) -> list[list[tuple[str, str]]]:
    """The headers of each request `app` answered, in order, as they arrived."""
    return app.state.received  # type: ignore[no-any-return]


def _record(request: Request) -> None:
    request.app.state.received.append([(name.decode(), value.decode()) for name, value in request.headers.raw])


careless = APIRouter()


@careless.get("/echo", operation_id="echo_credentials", tags=["misc"])
def echo_credentials(request: Request) -> dict[str, str]:
    """Refuses every request, echoing its credentials whole and without their scheme, as careless APIs do."""
    sent = [request.headers.get(name, "") for name in ("authorization", "x-api-key", "cookie")]
    bare = [value.partition(" ")[2] for value in sent]
    raise HTTPException(401, f"bad credentials: {sent} (tokens {bare})")


@careless.get("/mirror", operation_id="mirror", tags=["misc"])
def mirror(request: Request, theme: str | None = Cookie(default=None)) -> dict[str, str | None]:
    """Answers 200 with the credentials it was sent, the query and the cookie, as careless APIs do."""
    sent = {name: request.headers.get(name) for name in ("authorization", "x-api-key", "x-app", "cookie")}
    return {**sent, "query": request.url.query, "theme": theme}


@careless.get("/moved", operation_id="moved", tags=["misc"])
def moved() -> RedirectResponse:
    return RedirectResponse("/pets?limit=1", status_code=302)


def petstore() -> FastAPI:
    """A fresh app with two pets."""
    app = FastAPI(title="Petstore", version="1.0", dependencies=[Depends(_record)])
    app.state.received = []
    pets: dict[int, Pet] = {1: Pet(id=1, name="Rex", tag="dog"), 2: Pet(id=2, name="Tom", tag="cat")}

    @app.get("/pets", operation_id="list_pets", tags=["pets"], summary="List pets")
    def list_pets(limit: int = 10, tag: str | None = None) -> list[Pet]:
        found = [pet for pet in pets.values() if tag is None or pet.tag == tag]
        return found[:limit]

    @app.get("/pets/{pet_id}", operation_id="get_pet", tags=["pets"], summary="Get one pet by id")
    def get_pet(pet_id: int) -> Pet:
        if pet_id not in pets:
            raise HTTPException(404, f"no pet {pet_id}")
        return pets[pet_id]

    @app.post("/pets", operation_id="create_pet", tags=["pets"], status_code=201, summary="Add a pet")
    def create_pet(pet: NewPet) -> Pet:
        created = Pet(id=max(pets) + 1, **pet.model_dump())
        pets[created.id] = created
        return created

    @app.delete("/pets/{pet_id}", operation_id="delete_pet", tags=["pets", "admin"], status_code=204)
    def delete_pet(pet_id: int) -> None:
        pets.pop(pet_id, None)

    @app.get("/search", operation_id="search", tags=["misc"])
    def search(q: str, ids: Annotated[list[int], Query()] = []) -> dict[str, object]:  # noqa: B006 - FastAPI copies it
        return {"q": q, "ids": ids}

    @app.get("/whoami", operation_id="whoami", tags=["misc"])
    def whoami(x_api_key: str = Header(), x_request_id: str | None = Header(default=None)) -> dict[str, str | None]:
        if x_api_key != API_KEY:
            raise HTTPException(401, f"bad key {x_api_key}")
        return {"user": "alice", "request_id": x_request_id}

    @app.get("/me", operation_id="me", tags=["misc"])
    def me(authorization: str | None = Header(default=None)) -> dict[str, str | None]:
        return {"authorization": authorization}

    @app.get("/weather", operation_id="weather", tags=["misc"])
    def weather(city: str, api_key: str) -> dict[str, str]:
        if api_key != API_KEY:
            raise HTTPException(403, "forbidden")
        return {"city": city, "sky": "clear"}

    @app.get("/slow", operation_id="slow", tags=["misc"])
    async def slow(seconds: float = 5.0) -> dict[str, bool]:
        await anyio.sleep(seconds)
        return {"done": True}

    @app.get("/readme", operation_id="readme", tags=["misc"], response_class=PlainTextResponse)
    def readme() -> str:
        return "x" * 10_000

    @app.get("/boom", operation_id="boom", tags=["misc"])
    def boom() -> dict[str, str]:
        raise HTTPException(500, "z" * 5000)

    app.include_router(careless)
    return app
