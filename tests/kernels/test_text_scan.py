"""The JSON nesting scan against the depth of the parsed value (slow reference)."""

import json

import numpy as np
import pytest

from discotree.kernels.text_scan import json_nesting_depth


def _depth(value) -> int:
    """Reference: the nesting of the parsed value, by recursion."""
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


def _random_value(rng, depth):
    kind = rng.integers(0, 4 if depth < 12 else 2)
    if kind == 0:
        return rng.normal()
    if kind == 1:  # strings with brackets, quotes and backslashes in them
        return "".join(rng.choice(list('ab[]{}"\\,:'), size=rng.integers(0, 8)))
    if kind == 2:
        return [_random_value(rng, depth + 1) for _ in range(rng.integers(0, 4))]
    return {str(k) + '\\"{': _random_value(rng, depth + 1) for k in range(rng.integers(0, 4))}


@pytest.mark.parametrize("seed", range(40))
def test_depth_matches_the_parsed_value(seed):
    value = _random_value(np.random.default_rng(seed), 0)
    text = json.dumps(value)
    assert json_nesting_depth(text.encode()) == _depth(json.loads(text))


def test_deep_text_is_measured_without_recursion():
    assert json_nesting_depth(b"[" * 1_000_000 + b"]" * 1_000_000) == 1_000_000
