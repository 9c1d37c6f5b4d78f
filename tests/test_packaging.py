"""What the package says about itself: its license ships with it, and its documents point at
files that exist (they named a `DESIGN.md` the repository never held)."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_installed_package_carries_its_mit_license() -> None:
    metadata = importlib.metadata.metadata("toolweave")
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


def test_every_document_the_project_links_to_exists() -> None:
    """README and docs link to documents of the project by relative path: each one is there."""
    documents = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    linked = {
        (document.parent / target).resolve()
        for document in documents
        for target in re.findall(r"\]\(((?!https?:|#)[^)#\s]+)", document.read_text())
    }
    assert linked, "the README links to the project's documents"
    assert [path for path in linked if not path.exists()] == []


def test_no_file_of_the_project_names_a_design_document_it_does_not_hold() -> None:
    sources = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "toolweave").rglob("*.py")]
    assert [str(path) for path in sources if "DESIGN.md" in path.read_text()] == []
    assert (ROOT / "docs" / "architecture.md").exists()
