"""`${...}` references in config strings, expanded before validation.

- `${VAR}` and `${VAR:-default}`: environment variables (the `mcpServers` clients' spelling);
- `${env:VAR}`: the same, as VS Code and Cursor write it;
- `${input:id}`: a VS Code input, from `--input id=value` (`inputs=`), else the environment
  variable named `id`, else the input's `default` in the file's `inputs` list;
- `${workspaceFolder}` and `${userHome}`: the folder a VS Code or Cursor file belongs to, and the
  home folder (see `Variables.for_file`).

`$${...}` keeps a literal `${...}` (`$$` is one `$`) in toolweave's own files; a client's file
read by `--from` has no such escape (`Variables.dollars`), as no client reads `$$` as one `$`.
A default is plain text: it cannot hold another reference (`${A:-${B}}` is an error saying so,
never `B`'s value nor the text `${B}`). A reference that has
no value is an error naming the variable or input and the key path where it was used (never a
value); `expand_all` collects every such problem of a file at once. Values from the environment
and from inputs are secrets: each is returned with the reference it came from, and each string
holding one as it was written (`toolweave.core.shown.Expanded`), to be shown instead of the value.

Example:
    >>> expand({"headers": {"Authorization": "Bearer ${TOKEN:-none}"}}, environ={})
    {'headers': {'Authorization': 'Bearer none'}}
    >>> expand({"args": ["${input:root}"]}, variables=Variables({}, inputs={"root": "/srv"}))
    {'args': ['/srv']}
    >>> expand({"url": "${URL:-${FALLBACK}}"}, environ={"FALLBACK": "https://x"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    toolweave.core.errors.ConfigError: url: '${URL:-...}' holds a reference in its default: nested references ...
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolweave.config.paths import key_path
from toolweave.core.errors import ConfigError
from toolweave.core.shown import Expanded

_REFERENCE = re.compile(
    r"\$\$"
    r"|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}"  # ${VAR} / ${VAR:-default}
    r"|\$\{(env|input):([^}]*)\}"  # ${env:VAR} / ${input:id}
    r"|\$\{([^}]*)\}?"  # anything else: refused
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
WORKSPACE_FOLDERS = (".vscode", ".cursor")
"""Folders whose parent is the workspace of the config file inside them."""


class FromReference(str):
    """A config string that was one `${...}` reference and nothing else. Where a field takes a
    number or a boolean, its text is read as one (`timeout: ${TIMEOUT:-30}`, see
    `toolweave.config.base.StrictModel`); anywhere else it is the string it holds.

    Example:
        >>> expand({"timeout": "${T:-30}", "args": ["x${T:-30}"]}, environ={})
        {'timeout': '30', 'args': ['x30']}
        >>> [type(v).__name__ for v in expand({"a": "${T:-30}", "b": "x${T:-30}"}, environ={}).values()]
        ['FromReference', 'str']
    """

    __slots__ = ()


@dataclass(frozen=True)
class DeclaredInput:
    """What a file's `inputs` entry says of an input: how to describe it, its default, and the
    values a `pickString` input may take (None: any)."""

    description: str | None = None
    default: str | None = None
    options: tuple[str, ...] | None = None

    def named(self, name: str) -> str:
        """`input 'id' (its description)`, to name it in a message."""
        return f"input {name!r}" + (f" ({self.description})" if self.description else "")


@dataclass(frozen=True)
class Variables:
    """Where references get their values.

    Args:
        environ: The environment (`${VAR}`, `${env:VAR}`, and inputs not given otherwise).
        inputs: Values of `${input:id}` references given by the caller (`--input id=value`).
        declared: The file's `inputs` list by id.
        predefined: `${workspaceFolder}`, `${userHome}`.
        dollars: What `$$` stands for: `"$"` (toolweave's escape), or `"$$"` in a client's own
            file, where it is two dollars (a password `pa$$word` must reach the server as written).
    """

    environ: Mapping[str, str]
    inputs: Mapping[str, str] = field(default_factory=dict)
    declared: Mapping[str, DeclaredInput] = field(default_factory=dict)
    predefined: Mapping[str, str] = field(default_factory=dict)
    dollars: str = "$"

    @classmethod
    def for_file(
        cls,
        file: Path | None,
        data: Any,
        *,
        environ: Mapping[str, str] | None = None,
        inputs: Mapping[str, str] | None = None,
        client: bool = False,
        home: Path | None = None,
        cwd: Path | None = None,
    ) -> Variables:
        """The variables of a config file: its declared `inputs`, `${userHome}` (`home`, else the
        user's), and `${workspaceFolder}` — the folder holding the file's `.vscode`/`.cursor`
        folder, else `cwd` (else the current directory). A `client` file (read by `--from`) keeps
        its `$$` as written."""
        folder = cwd or Path.cwd()
        if file is not None and file.parent.name in WORKSPACE_FOLDERS:
            folder = file.parent.parent.resolve()
        return cls(
            os.environ if environ is None else environ,
            dict(inputs or {}),
            declared_inputs(data),
            {"workspaceFolder": str(folder), "userHome": str(home or Path.home())},
            "$$" if client else "$",
        )

    def input(self, name: str) -> str | None:
        """The value of `${input:name}`, or None when nothing gives it one."""
        for source in (self.inputs, self.environ):
            if name in source:
                return source[name]
        return self.declared.get(name, DeclaredInput()).default


def _options(item: dict[Any, Any]) -> tuple[str, ...] | None:
    """The values a `pickString` input may take: its `options`, each a string or `{label, value}`."""
    options = item.get("options")
    if item.get("type") != "pickString" or not isinstance(options, list):
        return None
    values = [option.get("value") if isinstance(option, dict) else option for option in options]
    return tuple(value for value in values if isinstance(value, str))


def declared_inputs(data: Any) -> dict[str, DeclaredInput]:
    """Each well-formed entry of a file's `inputs` list, by id (validation reports the others).

    Example:
        >>> pick = {"type": "pickString", "id": "env", "options": ["dev", {"label": "Live", "value": "prod"}]}
        >>> declared_inputs({"inputs": [pick]})
        {'env': DeclaredInput(description=None, default=None, options=('dev', 'prod'))}
    """
    items = data.get("inputs") if isinstance(data, dict) else None
    found: dict[str, DeclaredInput] = {}
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            description, default = item.get("description"), item.get("default")
            found[item["id"]] = DeclaredInput(
                description if isinstance(description, str) else None,
                default if isinstance(default, str) else None,
                _options(item),
            )
    return found


def input_ids(data: Any) -> frozenset[str]:
    """The ids of the inputs a parsed config file declares in `inputs` or refers to as `${input:id}`
    (in any string, a `disabled` server's too).

    Example:
        >>> data = {"inputs": [{"id": "token"}], "servers": {"a": {"args": ["${input:root}", "$${input:no}"]}}}
        >>> sorted(input_ids(data))
        ['root', 'token']
    """
    found = set(declared_inputs(data))

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.update(match.group(4) for match in _REFERENCE.finditer(value) if match.group(3) == "input")
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return frozenset(found)


def _unset_input(name: str, variables: Variables) -> str:
    if name in variables.declared:
        what = variables.declared[name].named(name)
    else:
        what = f"input {name!r} (not declared in 'inputs')"
    return f"{what} has no value: give it with --input {name}=VALUE or the environment variable {name}"


def _resolve(match: re.Match[str], variables: Variables) -> str:
    """The replacement of one reference, or a `ValueError` saying why there is none."""
    whole = match.group(0)
    if whole == "$$":
        return variables.dollars
    name, default, kind, argument, broken = match.groups()
    if name is not None:
        if default is not None and "${" in default:
            raise ValueError(
                f"'${{{name}:-...}}' holds a reference in its default: nested references are not supported "
                f"(set {name}, or write the default as plain text)"
            )
        if name in variables.predefined:
            return variables.predefined[name]
        value = variables.environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                hint = f"write ${{{name}:-default}} to give a default"
                raise ValueError(f"environment variable {name} is not set ({hint})")
            return default
        return value
    if kind == "env":
        if not _ENV_NAME.fullmatch(argument):
            raise ValueError(f"'${{env:{argument}}}' does not name an environment variable")
        value = variables.environ.get(argument)
        if value is None:
            raise ValueError(f"environment variable {argument} is not set")
        return value
    if kind == "input":
        if not argument.strip():
            raise ValueError("'${input:}' names no input: write ${input:id}, with the id of one of 'inputs'")
        found = variables.input(argument)
        if found is None:
            raise ValueError(_unset_input(argument, variables))
        declared = variables.declared.get(argument, DeclaredInput())
        if declared.options is not None and found not in declared.options:  # (the value may be a secret: not shown)
            choices = ", ".join(map(repr, declared.options))
            raise ValueError(f"{declared.named(argument)} takes one of its options ({choices}); the value given is not")
        return found
    shown = f"${{{broken}}}" if whole.endswith("}") else whole
    raise ValueError(
        f"{shown!r} is not a valid reference: write ${{NAME}}, ${{NAME:-default}}, ${{env:NAME}} or ${{input:id}}"
    )


def expand_string(
    text: str, environ: Mapping[str, str], where: tuple[Any, ...] = (), *, variables: Variables | None = None
) -> str:
    """`text` with every reference replaced (from `variables`, else from `environ` alone)."""
    if "$" not in text:
        return text
    known = variables if variables is not None else Variables(environ)
    try:
        return _REFERENCE.sub(lambda match: _resolve(match, known), text)
    except ValueError as error:
        raise ConfigError(str(error), path=key_path(where)) from None


def expand(
    data: Any,
    *,
    environ: Mapping[str, str] | None = None,
    where: tuple[Any, ...] = (),
    variables: Variables | None = None,
) -> Any:
    """A copy of parsed config `data` with references expanded in every string value (not in keys).

    Raises:
        ConfigError: for the first reference that cannot be expanded.
    """
    expanded, problems, _ = expand_all(data, environ=environ, where=where, variables=variables)
    if problems:
        raise problems[0]
    return expanded


def expand_all(
    data: Any,
    *,
    environ: Mapping[str, str] | None = None,
    where: tuple[Any, ...] = (),
    variables: Variables | None = None,
) -> tuple[Any, list[ConfigError], Expanded]:
    """`data` expanded as far as it can be, every reference that cannot be (an unexpanded string
    stays as written), and the values that came from the environment or from inputs, each with the
    reference it came from, and each string holding one as written (shown instead of the value
    wherever a command or URL is shown).

    `variables` gives the values (by default: `environ`, else `os.environ`, alone).

    Example:
        >>> data = {"a": "${A}", "b": "${B}", "c": "/opt/${C}"}
        >>> _, problems, secrets = expand_all(data, environ={"C": "s3cr3t"})
        >>> [str(p).split(" (")[0] for p in problems]
        ['a: environment variable A is not set', 'b: environment variable B is not set']
        >>> dict(secrets), secrets.written
        ({'s3cr3t': '${C}'}, {'/opt/s3cr3t': '/opt/${C}'})
    """
    known = variables if variables is not None else Variables(os.environ if environ is None else environ)
    problems: list[ConfigError] = []
    secrets: dict[str, str] = {}
    written: dict[str, str] = {}

    def walk(value: Any, at: tuple[Any, ...]) -> Any:
        if isinstance(value, str):
            try:
                expanded = expand_string(value, known.environ, at, variables=known)
            except ConfigError as error:
                problems.append(error)
                return value
            referenced = _referenced(value, known) if expanded != value else {}
            if referenced:
                secrets.update(referenced)
                written[expanded] = _as_written(value, known)
            whole = value != "$$" and _REFERENCE.fullmatch(value) is not None
            return FromReference(expanded) if whole else expanded
        if isinstance(value, dict):
            return {key: walk(item, (*at, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item, (*at, index)) for index, item in enumerate(value)]
        return value

    return walk(data, where), problems, Expanded(secrets, written)


def _secret(match: re.Match[str], variables: Variables) -> tuple[str, str] | None:
    """The secret value one reference gives (an environment variable's or an input's, not empty)
    and the reference, as shown instead of it; None for any other reference."""
    name, _, kind, argument, _ = match.groups()
    if name is not None and name not in variables.predefined:
        value, reference = variables.environ.get(name), match.group(0)  # `${NAME:-default}` keeps its default
    elif kind == "env":
        value, reference = variables.environ.get(argument), f"${{env:{argument}}}"
    elif kind == "input":
        value, reference = variables.input(argument), f"${{input:{argument}}}"
    else:
        return None
    return (value, reference) if value else None


def _referenced(text: str, variables: Variables) -> dict[str, str]:
    """The non-empty secret values `text` refers to (environment variables and inputs), each with
    its reference as written."""
    return dict(found for match in _REFERENCE.finditer(text) if (found := _secret(match, variables)))


def _as_written(text: str, variables: Variables) -> str:
    """`text` (which expands) expanded but for its secret references, kept as written.

    Example:
        >>> home = Variables({"TOKEN": "t0k3n"}, predefined={"workspaceFolder": "/ws"})
        >>> _as_written("${workspaceFolder}/run --token=${TOKEN} $$HOME ${MODE:-fast}", home)
        '/ws/run --token=${TOKEN} $HOME fast'
    """

    def shown(match: re.Match[str]) -> str:
        found = _secret(match, variables)
        return found[1] if found else _resolve(match, variables)

    return _REFERENCE.sub(shown, text)
