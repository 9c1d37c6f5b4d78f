"""The token issuer every auth test talks to, served on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.auth.issuer import Issuer
from tests.serving import served


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    issuer = Issuer()
    with served(issuer.app()) as url:
        issuer.base_url = url
        yield issuer
