"""`envFile`: environment variables for a stdio server from a dotenv file, as VS Code and Cursor read it.

One `KEY=VALUE` per line; blank lines and `#` comments are skipped, `export ` before a key is
allowed, and a value may be quoted (`"..."` understands `\\n`, `\\t`, `\\"` and `\\\\`; `'...'` is
taken as written), a comment after the closing quote; an unquoted value ends at ` #`.

Example:
    >>> parse_env_file('# tokens\\nexport TOKEN="a b"  # shared\\nREGION=eu  # default\\n')
    {'TOKEN': 'a b', 'REGION': 'eu'}
"""

from __future__ import annotations

import re
from pathlib import Path

from toolweave.core.errors import ConfigError

_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_QUOTED = re.compile(r"'([^']*)'" r'|"((?:[^"\\]|\\.)*)"')  # 'as written', or "with escapes"
_COMMENT = re.compile(r"\s*(?:#.*)?")  # what may follow a quoted value


def _value(raw: str) -> str:
    quoted = _QUOTED.match(raw)
    if quoted is not None and _COMMENT.fullmatch(raw, quoted.end()):
        single, double = quoted.groups()
        if single is not None:
            return single
        return re.sub(r"\\(.)", lambda match: _ESCAPES.get(match.group(1), match.group(0)), double)
    return raw.split(" #", 1)[0].rstrip()


def parse_env_file(text: str) -> dict[str, str]:
    """The variables `text` sets; a line that is not `KEY=VALUE` raises `ValueError` naming its number."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise ValueError(f"line {number} is not KEY=VALUE")
        found[match.group(1)] = _value(match.group(2))
    return found


def read_env_file(path: Path, *, where: str) -> dict[str, str]:
    """The variables the file at `path` sets, or a `ConfigError` at `where` (never showing a value)."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # (a byte order mark first is not part of a key)
    except OSError as error:
        raise ConfigError(f"cannot read the env file {str(path)!r}: {error.strerror or error}", path=where) from None
    except UnicodeDecodeError:
        raise ConfigError(f"the env file {str(path)!r} is not UTF-8 text", path=where) from None
    try:
        return parse_env_file(text)
    except ValueError as error:
        raise ConfigError(f"the env file {str(path)!r}: {error}", path=where) from None
