"""Print the figures the reliability tests measured (run with `-s` to see them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .measure import FIGURES


@pytest.fixture(scope="session", autouse=True)
def report_figures() -> Iterator[None]:
    yield
    if FIGURES:
        print("\nreliability figures:")
        for name, value in FIGURES.items():
            print(f"  {name}: {value}")
