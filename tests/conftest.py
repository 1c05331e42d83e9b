"""Shared fixtures and hypothesis strategies."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

# Deterministic property tests: the same examples on every run (and in CI); set
# HYPOTHESIS_PROFILE=explore for fresh random examples.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SEEDS = [0, 1, 2]

#: The node ids of the tests marked slow (``tests/slow_tests.txt``).
SLOW_TESTS = frozenset(
    line.strip()
    for line in (Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
)


def pytest_collection_modifyitems(config, items):
    """Mark the tests of ``slow_tests.txt`` slow (the default run leaves them out:
    ``-m "not slow"`` in pyproject.toml; ``-m slow`` runs them), and refuse a slow run
    that no longer finds one of them (renamed or removed: the list must follow)."""
    collected = set()
    for item in items:
        if item.nodeid in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
            collected.add(item.nodeid)
    if config.getoption("markexpr") == "slow" and not config.args_source.name == "ARGS":
        missing = sorted(SLOW_TESTS - collected)
        if missing:
            raise pytest.UsageError(
                "tests/slow_tests.txt lists tests that were not collected: " + "; ".join(missing)
            )


@pytest.fixture(autouse=True, scope="session")
def _model_key_in_a_temporary_folder(tmp_path_factory):
    """Model files are signed with a per-user key; tests never touch the real one."""
    key = tmp_path_factory.mktemp("model-key") / "key"
    old = os.environ.get("DISCOTREE_KEY_FILE")
    os.environ["DISCOTREE_KEY_FILE"] = str(key)
    yield
    if old is None:
        os.environ.pop("DISCOTREE_KEY_FILE", None)
    else:
        os.environ["DISCOTREE_KEY_FILE"] = old


@pytest.fixture
def prediction_kernels_at_hand(monkeypatch) -> None:
    """A fit prepares its predictions whatever numba's cache holds (it leaves them to the
    first prediction where the cache is cold, as a fresh clone's is): tests of what
    it prepares do not depend on the tests run before them."""
    from discotree.models import k_dependence

    monkeypatch.setattr(k_dependence, "backoff_kernels_at_hand", lambda: True)
    monkeypatch.setattr(k_dependence, "kernels_at_hand", lambda: True)


@pytest.fixture(params=SEEDS)
def seed(request) -> int:
    """Every seeded test runs for several seeds; none may depend on one."""
    return request.param


@pytest.fixture
def rng(seed) -> np.random.Generator:
    return np.random.default_rng(seed)


@st.composite
def discrete_datasets(draw, max_rows=40, max_features=5, max_categories=4, max_classes=3):
    """(codes, class_index, weights, n_categories, n_classes) with missing values (-1).

    Covers one row, one category, a constant column, and weights that are all zero
    but one.
    """
    n_rows = draw(st.integers(1, max_rows))
    n_features = draw(st.integers(1, max_features))
    n_classes = draw(st.integers(1, max_classes))
    n_categories = np.array(
        draw(st.lists(st.integers(1, max_categories), min_size=n_features, max_size=n_features)),
        dtype=np.intp,
    )
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in n_categories]).astype(np.intp)
    missing_rate = draw(st.sampled_from([0.0, 0.2, 0.6]))
    codes[rng.random(codes.shape) < missing_rate] = -1
    class_index = rng.integers(0, n_classes, n_rows).astype(np.intp)
    kind = draw(st.sampled_from(["ones", "random", "integers", "one-nonzero"]))
    if kind == "ones":
        weights = np.ones(n_rows)
    elif kind == "random":
        weights = rng.random(n_rows) * 3
    elif kind == "integers":
        weights = rng.integers(0, 4, n_rows).astype(float)
    else:
        weights = np.zeros(n_rows)
        weights[rng.integers(n_rows)] = 2.5
    return codes, class_index, weights, n_categories, n_classes
