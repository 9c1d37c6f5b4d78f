"""Reading a function: its name, its parameters, its argument model and schema, its return.

Tools, prompts and resources made from functions share this: `parameters` reads the signature
(refusing `*args`, `**kwargs` and positional-only parameters, leaving out a `Context`
parameter), descriptions come from `Field`/`Annotated` metadata or the docstring, and
`build_model` turns the parameters into the one pydantic model that validates (and, through
`model_schema`, describes) the arguments. What a function returns is `core/returns.py`'s.

Example:
    >>> def search(q: str, limit: int = 10) -> list[str]:
    ...     '''Search.
    ...
    ...     Args:
    ...         q: what to look for
    ...     '''
    ...     return []
    >>> params, context_param, description = parameters(search, "search")
    >>> [(p.name, p.description) for p in params], context_param, description
    ([('q', 'what to look for'), ('limit', None)], None, 'Search.')
"""

from __future__ import annotations

import functools
import inspect
import keyword
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import PydanticJsonSchemaWarning

from toolweave.core.context import Context
from toolweave.core.docstrings import parse_docstring
from toolweave.core.fast_schema import default_fits, describable, json_default
from toolweave.core.plain_signature import ANNOTATED, plain_parameters, plain_type_hints
from toolweave.core.schema import object_schema, prune_titles

_BASEMODEL_NAMES = frozenset(dir(BaseModel))
_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of the function, as the schema and the validator see it."""

    name: str
    annotation: Any
    default: Any
    description: str | None


def described(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function whose name, docstring and type hints describe `fn`: a `functools.partial`'s
    wrapped function (its bound arguments are not parameters, its return is the function's).

    Example:
        >>> def add(a: int, b: int) -> int: ...
        >>> described(functools.partial(functools.partial(add, b=1))) is add, described(add) is add
        (True, True)
    """
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def callable_name(fn: Callable[..., Any], what: str = "tool") -> str:
    """The name a function's tool, prompt or resource gets by default (a partial: its function's).

    Example:
        >>> def add(a: int, b: int) -> int: ...
        >>> callable_name(functools.partial(add, b=10))
        'add'
    """
    fn = described(fn)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if name == "<lambda>":
        raise TypeError(f"a lambda has no usable name: pass name= when making a {what} from it")
    return name


def target(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The callable whose signature and type hints describe `fn` (callable objects: `__call__`)."""
    if inspect.isroutine(fn) or isinstance(fn, functools.partial):
        return fn
    bound: Callable[..., Any] | None = getattr(fn, "__call__", None)  # noqa: B004 - callable objects
    return bound if bound is not None else fn


def docstring(fn: Callable[..., Any], reads: Callable[..., Any]) -> str | None:
    """The docstring describing `fn` (`reads` is its `target`): its own, else one it inherits; a
    callable object's `__call__`'s, else its class's (the `__call__` inherited from `type` would
    describe every such object as "Call self as a function.").

    Example:
        >>> class Greeter:
        ...     '''Greet someone.'''
        ...     def __call__(self, name: str) -> str: ...
        >>> docstring(Greeter(), target(Greeter()))
        'Greet someone.'
    """
    documented = described(reads)
    own = documented.__doc__
    if isinstance(own, str):
        return own
    instance = described(fn)
    if instance is not documented and not inspect.isroutine(instance):  # read through its `__call__`
        return inspect.getdoc(instance)
    return inspect.getdoc(documented)  # (`parse_docstring` cleans the text itself)


def is_context(annotation: Any) -> bool:
    if annotation is Context:
        return True
    if type(annotation) is type:  # any other plain class (the common case, answered quickly)
        return False
    if type(annotation) is ANNOTATED:  # (`Annotated[Context, "the request"]`)
        return is_context(get_args(annotation)[0])
    # (`__origin__`, not `typing.get_origin`: this runs for every parameter of every tool read)
    if type(annotation) is types.UnionType or getattr(annotation, "__origin__", None) is typing.Union:
        args = [arg for arg in annotation.__args__ if arg is not type(None)]
        return len(args) == 1 and args[0] is Context
    return False


def type_hints(target: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations; `Context` resolves even where the module imported it locally."""
    function = described(inspect.unwrap(target))
    local = {"Context": Context}
    plain = plain_type_hints(function, local)
    if plain is not None:
        return plain
    try:
        return typing.get_type_hints(function, localns=local, include_extras=True)
    except Exception:
        pass
    namespace = {**getattr(function, "__globals__", {}), **local}
    hints = {}
    for name, annotation in getattr(function, "__annotations__", {}).items():
        try:
            hints[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
        except Exception:
            hints[name] = annotation
    return hints


def in_class_body(fn: Callable[..., Any]) -> bool:
    """Whether `fn` is a function defined in a class body, taken from the class (not bound).

    Example:
        >>> class Shop:
        ...     def buy(self, item: str) -> str: ...
        >>> in_class_body(Shop.buy), in_class_body(Shop().buy), in_class_body(in_class_body)
        (True, False, False)
    """
    owner, _, _ = getattr(fn, "__qualname__", "").rpartition(".")
    return inspect.isfunction(fn) and bool(owner) and not owner.endswith("<locals>")


def split_annotated(annotation: Any) -> tuple[Any, str | None]:
    """`Annotated[T, "doc", ...]` → the annotation without plain strings, and the string."""
    if type(annotation) is not ANNOTATED:
        return annotation, None
    base, *metadata = get_args(annotation)
    docs = [item for item in metadata if isinstance(item, str)]
    if not docs:
        return annotation, None
    rest = [item for item in metadata if not isinstance(item, str)]
    return (Annotated[(base, *rest)] if rest else base), docs[-1]


def _signature_parameters(
    fn: Callable[..., Any], target: Callable[..., Any], name: str, what: str
) -> list[tuple[str, Any, Any]]:
    """`[(name, default or ..., annotation)]` by `inspect.signature`; `TypeError` for unsupported parameter kinds."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} {name!r}: cannot read the signature of {fn!r}: {error}") from None
    found = []
    for param in signature.parameters.values():
        where = f"{what} {name!r}, parameter {param.name!r}"
        if param.kind is param.VAR_POSITIONAL:
            raise TypeError(f"{where}: *args is not supported; {what}s take named arguments only")
        if param.kind is param.VAR_KEYWORD:
            raise TypeError(f"{where}: **kwargs is not supported; declare each argument")
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"{where}: positional-only parameters are not supported; remove the '/'")
        default = ... if param.default is inspect.Parameter.empty else param.default
        found.append((param.name, default, param.annotation))
    return found


def parameters(
    fn: Callable[..., Any], name: str, what: str = "tool", hints: Mapping[str, Any] | None = None
) -> tuple[list[Parameter], str | None, str | None]:
    """The schema parameters, the name of the `Context` parameter, and the docstring description.

    `what` names the kind of thing being built ("tool", "prompt", "resource") in error messages;
    `hints` are `fn`'s resolved type hints, if the caller already has them.
    """
    if inspect.isclass(cls := described(fn)):  # (its signature would be `type.__call__`'s: *args, **kwargs)
        raise TypeError(
            f"{what} {name!r}: {cls.__qualname__} is a class; make the {what} from a function, "
            "a method or an instance with __call__"
        )
    reads = target(fn)
    plain = plain_parameters(reads)
    if plain is None:
        found = _signature_parameters(fn, reads, name, what)
    else:  # every annotation of a plain function is in its type hints
        found = [(param_name, default, _EMPTY) for param_name, default in plain]
    if found and found[0][0] == "self" and in_class_body(reads):
        raise TypeError(
            f"{what} {name!r}: {reads.__qualname__} is a method taken from its class (its first parameter, self, "
            f"is no argument a client can send): register an instance's method (instance.{reads.__name__}), or "
            "make it a @staticmethod"
        )
    if hints is None:
        hints = type_hints(reads)
    doc = parse_docstring(docstring(fn, reads))
    params: list[Parameter] = []
    context_param = None
    for param_name, default, raw_annotation in found:
        annotation = hints.get(param_name, raw_annotation)
        if isinstance(annotation, str):  # (`type_hints` could not resolve it)
            raise TypeError(
                f"{what} {name!r}, parameter {param_name!r}: its annotation {annotation!r} cannot be resolved: "
                f"define or import what it names in the function's module before the {what} is made "
                "(a name local to an enclosing function is not seen)"
            )
        if annotation is _EMPTY:
            annotation = Any
        elif is_context(annotation):
            if context_param is not None:  # (it would be passed into one, and every call would fail)
                raise TypeError(
                    f"{what} {name!r}, parameter {param_name!r}: a second Context parameter (the first is "
                    f"{context_param!r}); take the request Context once"
                )
            context_param = param_name
            continue
        annotation, inline_doc = split_annotated(annotation)
        params.append(Parameter(param_name, annotation, default, inline_doc or doc.params.get(param_name)))
    return params, context_param, doc.description


def check_defaults(params: Iterable[Parameter], name: str, what: str = "tool") -> None:
    """`TypeError` for a parameter whose default is not a value of its type (see `check_default`).

    Example:
        >>> check_defaults([Parameter("n", int, "three", None)], "count")
        Traceback (most recent call last):
        ...
        TypeError: tool 'count', parameter 'n': the default given for it ('three') does not fit its type int
    """
    for param in params:
        check_default(param.name, param.default, param.annotation, name, what)


def check_default(param_name: str, default: Any, annotation: Any, name: str, what: str = "tool") -> None:
    """`TypeError` unless `default` `fits_its_type`: `n: int = "three"` would be listed as an
    integer defaulting to a string, and passed that string.

    Example:
        >>> check_default("n", 3, int, "count"), check_default("z", "x", complex, "count")
        (None, None)
    """
    if not fits_its_type(default, annotation):
        raise _unfit_default(param_name, default, annotation, name, what)


def _unfit_default(param_name: str, default: Any, annotation: Any, name: str, what: str, why: str = "") -> TypeError:
    annotation = split_annotated(annotation)[0]
    if type(annotation) is ANNOTATED:  # (`Annotated[int, Field(ge=1)]`: the int, `why` says the rest)
        annotation = get_args(annotation)[0]
    plain_class = isinstance(annotation, type) and not isinstance(annotation, types.GenericAlias)
    shown = annotation.__name__ if plain_class else str(annotation).replace("typing.", "")
    return TypeError(
        f"{what} {name!r}, parameter {param_name!r}: the default given for it ({default!r}) "
        f"does not fit its type {shown}{f' ({why})' if why else ''}"
    )


def _check_model_defaults(model: type[BaseModel], fields: Mapping[str, Parameter], name: str, what: str) -> None:
    """`TypeError` for a JSON default the model's own validator refuses, where `fits_its_type` leaves
    it to pydantic (`color: Color = "blue"`, `when: datetime = "soon"`, `n: Annotated[int,
    Field(ge=1)] = 0`, `colors: list[Color] = ["red", "blue"]`), which never validates a default:
    the function was passed it as it is. A default that is not JSON (a sentinel, an enum member, a
    set, a `Field(...)`) and a `None` default pass, as there; a type the direct schema writer
    describes is `fits_its_type`'s (`check_defaults`)."""
    blank = model.model_construct()
    for field_name, param in fields.items():
        default = param.default
        if default is ... or default is None or not _json_data(default):
            continue
        if describable(param.annotation):
            continue
        try:
            model.__pydantic_validator__.validate_assignment(blank, field_name, default)
        except ValidationError as error:
            why = error.errors(include_url=False)[0]["msg"]
            raise _unfit_default(param.name, default, param.annotation, name, what, why) from None


def _json_data(value: Any) -> bool:
    """Whether `value` is JSON: a `json_default`, or a list or string-keyed dict of JSON."""
    if isinstance(value, list):
        return all(_json_data(item) for item in value)
    if isinstance(value, dict):
        return all(type(key) is str and _json_data(item) for key, item in value.items())
    return json_default(value)


def fits_its_type(default: Any, annotation: Any) -> bool:
    """Whether a parameter's default is a value of its type, checked for the simple types and
    JSON defaults the direct schema writer knows, without pydantic (registering thousands of
    tools stays cheap); other types and defaults, no default (`...`) and a `None` default pass
    (`name: str = None`, the implicit `Optional` PEP 484 once allowed, is common and pydantic
    accepts it).

    Example:
        >>> fits_its_type(3, int), fits_its_type("three", Annotated[int, "how many"])
        (True, False)
    """
    if default is ... or default is None or not json_default(default):
        return True
    annotation = split_annotated(annotation)[0]  # (`Annotated[int, "how many"]`: the int)
    return default_fits(default, annotation) or not describable(annotation)


def _field_name(name: str, index: int) -> str:
    safe = name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")
    return name if safe and name not in _BASEMODEL_NAMES and not name.startswith("model_") else f"arg{index}_"


def has_default(param: Parameter) -> bool:
    if isinstance(param.default, FieldInfo):
        return not param.default.is_required()
    return param.default is not ...


def build_model(
    tool_name: str, params: Iterable[Parameter], *, extra: str = "ignore", what: str = "tool"
) -> tuple[type[BaseModel], dict[str, str]]:
    """A pydantic model validating the parameters, and {field name: argument name} where they differ."""
    fields: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    by_field: dict[str, Parameter] = {}
    for index, param in enumerate(params):
        annotation = param.annotation
        current = FieldInfo.from_annotated_attribute(annotation, param.default)
        extra_info: dict[str, Any] = {}
        if param.description and current.description is None:
            extra_info["description"] = param.description
        field_name = _field_name(param.name, index)
        if field_name != param.name:
            renamed[field_name] = param.name
            extra_info["alias"] = param.name
        if extra_info:
            annotation = Annotated[annotation, Field(**extra_info)]
        fields[field_name] = (annotation, param.default)
        by_field[field_name] = param
    config = ConfigDict(extra=extra, arbitrary_types_allowed=False)  # type: ignore[typeddict-item]
    try:
        model = create_model(f"{tool_name}_arguments", __config__=config, **fields)
    except Exception as error:
        raise TypeError(f"{what} {tool_name!r}: cannot build an argument schema: {error}") from None
    _check_model_defaults(model, by_field, tool_name, what)
    return model, renamed


def model_schema(tool_name: str, model: type[BaseModel]) -> dict[str, Any]:
    """The tool input schema of a model: by alias, without generated titles, always an object."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
            schema = model.model_json_schema(by_alias=True)
    except Exception as error:
        raise TypeError(f"tool {tool_name!r}: cannot describe the arguments as JSON Schema: {error}") from None
    return object_schema(prune_titles(schema))
