"""Reading a config file: JSON (comments allowed), TOML or YAML → `${...}` expansion →
validated `Config`.

Every failure is a `ConfigError` naming the file, the key path and what is wrong; nothing is
built or started from an invalid file.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gateway.yaml"
    >>> _ = path.write_text("mcpServers:\\n  weather: {command: python3, args: [weather.py], env: {KEY: '${KEY}'}}\\n")
    >>> config = load_config(path, environ={"KEY": "k-1"})
    >>> sorted(config.mcp_servers), config.mcp_servers["weather"].env
    (['weather'], {'KEY': 'k-1'})
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from toolweave.config.dialects import CLIENTS
from toolweave.config.envvars import Variables, expand_all, input_ids
from toolweave.config.jsonc import plain_json
from toolweave.config.models import Config
from toolweave.config.problems import describe
from toolweave.config.unique_keys import KeysTwice, load_json, load_yaml
from toolweave.core.errors import ConfigError
from toolweave.core.names import advice

FORMATS = {".json": "json", ".jsonc": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml"}


def read_text(path: Path) -> str:
    """The file's text (without the byte order mark Windows editors write first), or a
    `ConfigError` saying why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError("cannot read the config file: it does not exist", file=str(path)) from None
    except IsADirectoryError:
        raise ConfigError("cannot read the config file: it is a directory", file=str(path)) from None
    except PermissionError:
        raise ConfigError("cannot read the config file: permission denied", file=str(path)) from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"cannot read the config file: not UTF-8 text ({error.reason})", file=str(path)) from None
    except OSError as error:
        raise ConfigError(f"cannot read the config file: {error.strerror or error}", file=str(path)) from None


def parse_text(text: str, fmt: str, file: str) -> Any:
    """Parse `text` as `fmt` (`"json"` — with comments and trailing commas, as VS Code writes it —,
    `"toml"` or `"yaml"`); a key given twice in one mapping is an error naming its key path (and
    lines)."""
    try:
        if fmt == "json":
            try:
                return load_json(text)
            except json.JSONDecodeError:
                return load_json(plain_json(text))
        if fmt == "toml":
            return tomllib.loads(text)
        return load_yaml(text)
    except KeysTwice as error:
        raise problems_error([str(twice) for twice in error.found], file=file) from None
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}", file=file
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"invalid TOML: {error}", file=file) from None
    except RecursionError:
        raise ConfigError(f"invalid {fmt.upper()}: nested too deeply to read", file=file) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "could not parse"
        raise ConfigError(f"invalid YAML{where}: {problem}", file=file) from None


def validate(
    data: Any,
    *,
    file: str | None = None,
    environ: Mapping[str, str] | None = None,
    inputs: Mapping[str, str] | None = None,
    client: bool = False,
    home: Path | None = None,
    cwd: Path | None = None,
) -> Config:
    """A `Config` from parsed data: references expanded (`inputs` give `${input:id}` values; in a
    `client`'s own file `$$` is no escape; `home` and `cwd` are the home and project folders, the
    current ones by default), then validated."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("the top level must be a mapping (an object / table)", file=file)
    variables = Variables.for_file(
        Path(file) if file else None, data, environ=environ, inputs=inputs, client=client, home=home, cwd=cwd
    )
    active, disabled = _set_aside_disabled(data)
    try:
        expanded, unset, secrets = expand_all(active, variables=variables)
    except RecursionError:  # (a parser reads deeper than a walk over what it read can go)
        raise ConfigError("nested too deeply to read", file=file) from None
    for section, entries in disabled.items():  # checked as written: a skipped server needs no value
        expanded[section] = {**expanded[section], **entries}
    problems = [str(error) for error in unset]  # reported together with the validation problems
    try:
        config = Config.model_validate(expanded)
    except ValidationError as error:
        problems += [line for line in describe(error) if line not in problems]
    if problems:
        raise problems_error(problems, file=file, hint=_client_file_hint(data))
    return config.with_secrets(secrets).with_input_ids(input_ids(data))


def check_inputs(config: Config, inputs: Mapping[str, str] | None, *, file: str | None = None) -> None:
    """Refuse a given input that none of the config's files declares or refers to: a misspelt
    `--input` id was ignored, and the input's default or environment variable used instead.

    Raises:
        ConfigError: naming each such id, with the nearest known one.
    """
    known = sorted(config.input_ids)
    problems = [
        f"input {name!r} is given (--input), but no file declares it in 'inputs' or uses ${{input:{name}}}; "
        + advice(name, known, f"the inputs are {', '.join(map(repr, known))}" if known else "there are none")
        for name in sorted(set(inputs or ()).difference(known))
    ]
    if problems:
        raise problems_error(problems, file=file)


SERVER_SECTIONS = ("mcpServers", "servers", "openapi")
"""The sections whose entries may be `disabled: true`."""


def _set_aside_disabled(data: dict[Any, Any]) -> tuple[dict[Any, Any], dict[str, dict[Any, Any]]]:
    """`data` without its `disabled: true` server entries, and those entries by section: their
    `${VAR}` and `${input:id}` references are not asked for (a client skips such a server).

    Example:
        >>> active, disabled = _set_aside_disabled({"servers": {"a": {"url": "${U}", "disabled": True}, "b": {}}})
        >>> active, disabled
        ({'servers': {'b': {}}}, {'servers': {'a': {'url': '${U}', 'disabled': True}}})
    """
    active, disabled = dict(data), {}
    for section in SERVER_SECTIONS:
        entries = data.get(section)
        if not isinstance(entries, dict):
            continue
        skipped = {
            name: entry for name, entry in entries.items() if isinstance(entry, dict) and entry.get("disabled") is True
        }
        if skipped:
            active[section] = {name: entry for name, entry in entries.items() if name not in skipped}
            disabled[section] = skipped
    return active, disabled


def _client_file_hint(data: dict[Any, Any]) -> str | None:
    """For a client's own settings file (its servers beside keys toolweave does not know, or in
    the `mcp` block of VS Code's `settings.json`), how to read just its servers."""
    foreign = set(data).difference(field.alias or name for name, field in Config.model_fields.items())
    if foreign and {"mcpServers", "servers"} & set(data):
        return f"an MCP client's settings file? `--from {'|'.join(CLIENTS)} FILE` reads only its servers"
    block = data.get("mcp")
    if isinstance(block, dict) and "servers" in block:
        return "VS Code's settings.json? `--from vscode FILE` reads the servers of its 'mcp' block"
    return None


def problems_error(problems: list[str], *, file: str | None, hint: str | None = None) -> ConfigError:
    """One `ConfigError` listing every problem of a file (just the problem when there is one),
    and a `hint` after them."""
    if len(problems) == 1:
        message = problems[0]
    else:
        listed = "\n".join(f"  - {line}" for line in problems)
        message = f"{len(problems)} problems:\n{listed}"
    return ConfigError(f"{message}\n{hint}" if hint else message, file=file)


def read_data(path: str | os.PathLike[str]) -> Any:
    """The parsed contents of the file at `path`, by its suffix (other names are read as YAML,
    which also reads JSON)."""
    file = Path(path)
    text = read_text(file)
    return parse_text(text, FORMATS.get(file.suffix.lower(), "yaml"), str(file))


def load_config(
    path: str | os.PathLike[str],
    *,
    environ: Mapping[str, str] | None = None,
    inputs: Mapping[str, str] | None = None,
) -> Config:
    """Read, parse, expand and validate the config file at `path`.

    Args:
        path: A `.json` (or `.jsonc`), `.toml`, `.yaml` or `.yml` file (other names are read as YAML, which
            also reads JSON).
        environ: Variables for `${VAR}` expansion; `os.environ` by default.
        inputs: Values for `${input:id}` references (before the environment variable `id`).

    Raises:
        ConfigError: naming the file, the key path and what is wrong.
    """
    return validate(read_data(path), file=str(path), environ=environ, inputs=inputs)
