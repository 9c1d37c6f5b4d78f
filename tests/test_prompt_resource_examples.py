"""The `Example:` blocks of the prompt and resource modules run, and their names are exported."""

from __future__ import annotations

import doctest
import importlib

import pytest

import toolweave

MODULES = [
    "toolweave.core.invoke",
    "toolweave.core.message",
    "toolweave.core.prompt",
    "toolweave.core.resource",
    "toolweave.core.string_arguments",
    "toolweave.core.uri_template",
    "toolweave.middleware.hooks",
    "toolweave.server.components",
    "toolweave.server.prompts",
    "toolweave.server.prompts_and_resources",
    "toolweave.server.resources",
    "toolweave.server.uri_prefix",
    "toolweave.mcp.convert_components",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0


@pytest.mark.parametrize(
    "name",
    [
        "Message",
        "Prompt",
        "PromptArgument",
        "PromptCall",
        "PromptResult",
        "Resource",
        "ResourceRead",
        "ResourceResult",
    ],
)
def test_public_names_are_exported(name: str) -> None:
    assert name in toolweave.__all__ and hasattr(toolweave, name)


def test_all_stays_sorted() -> None:
    assert toolweave.__all__ == sorted(toolweave.__all__)
