"""`tests.optional.require`: a missing optional package skips, a broken one fails."""

from __future__ import annotations

import pytest

from tests.optional import require


def test_a_package_that_is_not_installed_skips_with_the_reason() -> None:
    with pytest.raises(pytest.skip.Exception, match="the demo extra is not installed"):
        require("toolweave_no_such_package", "the demo extra is not installed")


def test_an_installed_package_that_fails_to_import_fails() -> None:
    with pytest.raises(ModuleNotFoundError):
        require("json.no_such_module", "never shown")


def test_an_installed_package_is_imported() -> None:
    assert require("json.decoder", "never shown").__name__ == "json.decoder"
