"""Fixtures of the reproductions' tests (the library's own are in tests/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(params=[0, 1, 2])
def rng(request) -> np.random.Generator:
    """Every seeded test runs for several seeds; none may depend on one."""
    return np.random.default_rng(request.param)
