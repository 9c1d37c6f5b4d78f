"""YAML read as OpenAPI documents are written: with YAML 1.2's core schema, not PyYAML's YAML 1.1.

OpenAPI recommends YAML 1.2 and asks for JSON-compatible documents. PyYAML resolves plain scalars
by YAML 1.1's rules, which read values a spec author means as strings into other types: a date
(`2024-01-01`) becomes a `datetime.date`, so an `enum` of dates refused every string a model sent
(the tool list showed the same dates as strings); `NO`, `yes`, `on` and `off` become booleans
(`enum: [SE, NO, DK]`, the country codes); `10:30` becomes the number 630. Under the core schema
these are strings; only `null`, `true`/`false` (in any of their three spellings), decimal and
hexadecimal integers and decimal floats (with `.inf` and `.nan`) are read as other types. An
integer written with a leading zero (`0123`, a postal code) stays a string rather than becoming
an octal number, as YAML 1.1 has it.

Example:
    >>> load_yaml12("enum: [SE, NO, on]\\ndefault: 2024-01-01\\nat: 10:30\\nmax: 0x10\\nmin: -1.5e3\\nn: ~")
    {'enum': ['SE', 'NO', 'on'], 'default': '2024-01-01', 'at': '10:30', 'max': 16, 'min': -1500.0, 'n': None}
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_CORE_SCHEMA = (
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("tag:yaml.org,2002:int", r"[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(?:(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+0123456789.",
    ),
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:merge", r"<<", "<"),  # `<<: *base`, which specs use to share fields
)


class _CoreSchemaLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` resolving plain scalars by YAML 1.2's core schema (plain data only)."""

    yaml_implicit_resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}  # PyYAML's class table, started empty


for _tag, _pattern, _first in _CORE_SCHEMA:
    _CoreSchemaLoader.add_implicit_resolver(_tag, re.compile(rf"^(?:{_pattern})$"), list(_first))


def load_yaml12(text: str) -> Any:
    """`text` as data, its plain scalars read by YAML 1.2's core schema (`yaml.YAMLError` when it is not YAML)."""
    return yaml.load(text, Loader=_CoreSchemaLoader)  # a SafeLoader: builds plain data only
