"""An extra that is not installed is told apart from one that is installed but broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.core.extras import installed, need


def test_a_missing_package_gets_the_install_hint() -> None:
    with pytest.raises(ImportError, match=r"^pip install 'toolweave\[demo\]'$"):
        need("toolweave_demo_extra_not_installed", "pip install 'toolweave[demo]'")


def test_an_installed_package_that_fails_to_import_raises_its_own_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "toolweave_broken_extra.py").write_text("import toolweave_dependency_it_lacks\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert installed("toolweave_broken_extra")
    with pytest.raises(ModuleNotFoundError, match="toolweave_dependency_it_lacks"):
        need("toolweave_broken_extra", "pip install 'toolweave[demo]'")
