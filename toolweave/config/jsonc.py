"""JSON with comments (JSONC), as VS Code writes `mcp.json`: `//` and `/* */` comments and
trailing commas.

`plain_json` blanks them out character for character (newlines stay), so a parser's line and
column numbers still point into the file as written.

Example:
    >>> import json
    >>> json.loads(plain_json('{"servers": {}, // none yet\\n "inputs": [1, 2,],}'))
    {'servers': {}, 'inputs': [1, 2]}
"""

from __future__ import annotations

import json


def _blank(text: str) -> str:
    return "".join(char if char == "\n" else " " for char in text)


def plain_json(text: str) -> str:
    """`text` without comments and trailing commas (each replaced by spaces; strings untouched).

    Raises:
        json.JSONDecodeError: a `/*` comment is not closed (at its start).
    """
    out: list[str] = []
    comma: int | None = None  # index in `out` of a comma that may turn out to be trailing
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == '"':
            end = index + 1
            while end < size and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[index : end + 1])
            index, comma = end + 1, None
            continue
        pair = text[index : index + 2]
        if pair in ("//", "/*"):
            end = text.find("\n", index) if pair == "//" else text.find("*/", index + 2)
            if end < 0 and pair == "/*":
                raise json.JSONDecodeError("a '/*' comment is not closed with '*/'", text, index)
            end = size if end < 0 else (end if pair == "//" else end + 2)
            out.append(_blank(text[index:end]))
            index = end
            continue
        if char in "}]" and comma is not None:
            out[comma] = " "
        if char == ",":
            comma = len(out)
        elif not char.isspace():
            comma = None
        out.append(char)
        index += 1
    return "".join(out)
