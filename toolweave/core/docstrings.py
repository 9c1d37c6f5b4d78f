"""Read a tool description and per-parameter descriptions out of a docstring.

Google style (`Args:`), NumPy style (`Parameters` + dashes) and Sphinx style (`:param x:`) are
understood. The text above the parameter section is the description.

Example:
    >>> parse_docstring('''Add two numbers.
    ...
    ...     Args:
    ...         a: the first number
    ...         b: the second number
    ... ''')
    Docstring(description='Add two numbers.', params={'a': 'the first number', 'b': 'the second number'})
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_SECTIONS = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns|Return|Raises|Yields|Example|Examples|Note|Notes)"
    r":\s*$"
)
_GOOGLE_PARAM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_SPHINX_ANY = re.compile(r"^:(param|type|returns?|rtype|raises?)\b")
_NUMPY_RULE = re.compile(r"^-{3,}\s*$")
_ARG_SECTIONS = ("Args", "Arguments", "Parameters", "Params", "Keyword Args")


@dataclass(frozen=True, slots=True)
class Docstring:
    """A parsed docstring: the free text and each documented parameter."""

    description: str | None
    params: dict[str, str] = field(default_factory=dict)


def _join(lines: list[str]) -> str:
    return " ".join(line.strip() for line in lines if line.strip())


def _google(lines: list[str]) -> Docstring | None:
    # (a header starts its line, so only unindented lines are matched; `\s*$` allows trailing blanks)
    starts = [i for i, line in enumerate(lines) if line and not line[0].isspace() and _GOOGLE_SECTIONS.match(line)]
    if not starts:
        return None
    params: dict[str, str] = {}
    for start in starts:
        if lines[start].strip().rstrip(":") not in _ARG_SECTIONS:
            continue
        current: str | None = None
        base_indent = 0
        for line in lines[start + 1 :]:
            text = line.strip()
            if not text:
                continue
            indent = len(line) - len(line.lstrip())
            if not indent:  # the next section
                break
            match = _GOOGLE_PARAM.match(text)
            if match and (current is None or indent <= base_indent):
                current, base_indent = match.group(1).lstrip("*"), indent
                params[current] = match.group(2).strip()
            elif current:
                params[current] = f"{params[current]} {text}".strip()
    return Docstring("\n".join(lines[: starts[0]]).strip() or None, params)


def _numpy(lines: list[str]) -> Docstring | None:
    for i in range(1, len(lines)):
        if _NUMPY_RULE.match(lines[i].strip()) and lines[i - 1].strip() in ("Parameters", "Params", "Arguments"):
            params: dict[str, str] = {}
            current: str | None = None
            for line in lines[i + 1 :]:
                if _NUMPY_RULE.match(line.strip()):
                    params.pop(current or "", None)
                    break
                if line.strip() and not line[:1].isspace():
                    current = line.split(":")[0].strip()
                    params[current] = ""
                elif current and line.strip():
                    params[current] = f"{params[current]} {line.strip()}".strip()
            return Docstring("\n".join(lines[: i - 1]).strip() or None, params)
    return None


def _sphinx(lines: list[str]) -> Docstring | None:
    first = next((i for i, line in enumerate(lines) if _SPHINX_ANY.match(line.strip())), None)
    if first is None:
        return None
    params: dict[str, str] = {}
    current: str | None = None
    for line in lines[first:]:
        match = _SPHINX_PARAM.match(line.strip())
        if match:
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif _SPHINX_ANY.match(line.strip()):
            current = None
        elif current and line.strip():
            params[current] = _join([params[current], line])
    return Docstring("\n".join(lines[:first]).strip() or None, params)


def parse_docstring(doc: str | None) -> Docstring:
    """The description and parameter docs of a docstring (any of the three styles)."""
    if not doc:
        return Docstring(None)
    lines = inspect.cleandoc(doc).splitlines()
    for parser in (_google, _numpy, _sphinx):
        parsed = parser(lines)
        if parsed is not None:
            return parsed
    return Docstring("\n".join(lines).strip() or None)
