"""The demo KG, built once for the grounding tests (read-only: copy it before changing it)."""

from __future__ import annotations

import pytest

from kgrecall.kg import NetworkXStore
from kgrecall.kg.demo import build_demo_kg


@pytest.fixture(scope="session")
def demo() -> NetworkXStore:
    return build_demo_kg(progress=False)
