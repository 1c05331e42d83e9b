"""Set-function minimisation and the submodular-supermodular procedure (003, Section 3),
checked against trying every subset."""

import itertools

import numpy as np
import pytest

from discotree.stats.set_information import (
    DiscreteSetEntropy,
    GaussianSetEntropy,
    set_information,
)
from discotree.structure.submodular import (
    byte_tables,
    exhaustive_minimum,
    mask_of,
    members,
    minimum_norm_point,
    modular_approximation,
    queyranne_minimum,
    submodular_supermodular,
    sum_over,
)


def _gaussian(rng, n):
    a = rng.normal(size=(n, n))
    cov = a @ a.T + 0.2 * np.eye(n)
    return GaussianSetEntropy(cov[None], cov, np.ones(1))


def _discrete(rng, n, n_samples=60):
    codes = rng.integers(0, 3, size=(n_samples, n))
    codes[:, 1] = (codes[:, 0] + rng.integers(0, 2, n_samples)) % 3
    return DiscreteSetEntropy(codes, rng.integers(0, 2, n_samples), rng.random(n_samples))


def _cut(rng, n):
    w = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.6), 1)
    w = w + w.T

    def cut(mask):
        inside = np.array([mask >> v & 1 for v in range(n)], dtype=bool)
        return float(w[np.ix_(inside, ~inside)].sum())

    return cut


def _symmetric_functions(rng, n):
    full = (1 << n) - 1
    gauss, disc = _gaussian(rng, n), _discrete(rng, n)
    return {
        "gaussian I(S; V-S)": lambda m: set_information(gauss, m, full ^ m),
        "discrete I(S; V-S)": lambda m: set_information(disc, m, full ^ m),
        "graph cut": _cut(rng, n),
    }


def _submodular_functions(rng, n):
    # symmetric submodular functions plus modular terms (no longer symmetric), entropies
    # and a concave function of a weighted size
    out = {}
    for name, f in _symmetric_functions(rng, n).items():
        m = rng.normal(scale=0.3, size=n)
        out[name + " + modular"] = lambda s, f=f, m=m: f(s) + sum(m[v] for v in members(s))
    gauss = _gaussian(rng, n)
    m = rng.normal(size=n)
    out["gaussian entropy + modular"] = lambda s: gauss.entropy(s) - sum(m[v] for v in members(s))
    weights = rng.random(n)
    out["sqrt of weight - modular"] = lambda s: (
        np.sqrt(sum(weights[v] for v in members(s))) - 0.4 * len(members(s))
    )
    out["graph cut"] = _cut(rng, n)  # minimum over all sets: the empty set
    return out


def _assert_exact(minimise, functions, n, abs):
    """``minimise(f, n)`` finds the minimum of every f of ``functions`` over the
    nonempty proper subsets (the exhaustive one, within ``abs``) and a subset with it."""
    for name, f in functions.items():
        subset, value = minimise(f, n)
        _, best_value = exhaustive_minimum(f, n)
        assert value == pytest.approx(best_value, abs=abs), name
        assert f(subset) == pytest.approx(value, abs=1e-12)
        assert 0 < subset < (1 << n) - 1  # nonempty and proper


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 3, 6])
def test_queyranne_is_exact_on_symmetric_submodular_functions(seed, n):
    rng = np.random.default_rng(seed)
    _assert_exact(queyranne_minimum, _symmetric_functions(rng, n), n, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 3, 7])
def test_minimum_norm_point_is_exact_on_submodular_functions(seed, n):
    rng = np.random.default_rng(seed)
    _assert_exact(minimum_norm_point, _submodular_functions(rng, n), n, abs=1e-8)


def test_test_functions_are_submodular():
    # the test functions above satisfy Definition 1 (else the checks prove nothing)
    rng = np.random.default_rng(0)
    n = 5
    for name, f in _submodular_functions(rng, n).items():
        for a, b in itertools.product(range(1 << n), repeat=2):
            assert f(a) + f(b) >= f(a | b) + f(a & b) - 1e-9, name


@pytest.mark.parametrize("seed", range(4))
def test_modular_approximation_is_a_lower_bound_tight_on_prefixes(seed):
    rng = np.random.default_rng(seed)
    n = 6
    full = (1 << n) - 1
    oracle = _discrete(rng, n)

    def g(m):
        return set_information(oracle, m, full ^ m, given_class=True)

    permutation = [int(v) for v in rng.permutation(n)]
    h = modular_approximation(g, permutation)
    g_empty = g(0)
    for mask in range(1 << n):
        assert g_empty + sum(h[v] for v in members(mask)) <= g(mask) + 1e-12
    for i in range(n + 1):
        prefix = mask_of(permutation[:i])
        assert g_empty + sum(h[v] for v in members(prefix)) == pytest.approx(g(prefix))


def _ear_problems(n, count):
    rng = np.random.default_rng(1)
    full = (1 << n) - 1
    for _ in range(count):
        oracle = _discrete(rng, n, 80)
        yield (
            lambda m, oracle=oracle: set_information(oracle, m, full ^ m, given_class=True),
            lambda m, oracle=oracle: set_information(oracle, m, full ^ m),
        )


@pytest.mark.parametrize("minimizer", ["min-norm", "queyranne", "exhaustive"])
def test_submodular_supermodular_descends_to_a_local_minimum(minimizer):
    n = 5
    for trial, (f, g) in enumerate(_ear_problems(n, 12)):
        for extra in ({}, {"n_permutations": 3, "single_moves": True}):
            result = submodular_supermodular(
                f, g, n, minimizer=minimizer, random_state=trial, **extra
            )
            _, best_value = exhaustive_minimum(lambda m, f=f, g=g: f(m) - g(m), n)
            assert 0 < result.subset < (1 << n) - 1
            assert result.value == pytest.approx(f(result.subset) - g(result.subset))
            assert result.value >= best_value - 1e-12
            assert result.value == pytest.approx(min(result.history))
            if minimizer != "queyranne":  # exact minimisers: the objective never rises
                assert all(b <= a + 1e-10 for a, b in itertools.pairwise(result.history))
            if extra:  # no single element added or removed improves the result
                for v in range(n):
                    move = result.subset ^ (1 << v)
                    if 0 < move < (1 << n) - 1:
                        assert f(move) - g(move) >= result.value - 1e-9


def test_more_permutations_find_the_optimum_more_often():
    # a local method: how often it finds the best split of 5 elements (exhaustive), for
    # Algorithm 1 as written and with the stronger local minima of Section 3's end
    n = 5
    hits = {"plain": 0, "stronger": 0}
    for trial, (f, g) in enumerate(_ear_problems(n, 12)):
        _, best_value = exhaustive_minimum(lambda m, f=f, g=g: f(m) - g(m), n)
        plain = submodular_supermodular(f, g, n, random_state=trial)
        stronger = submodular_supermodular(
            f, g, n, n_permutations=5, single_moves=True, random_state=trial
        )
        hits["plain"] += plain.value <= best_value + 1e-9
        hits["stronger"] += stronger.value <= best_value + 1e-9
    assert hits["plain"] >= 6
    assert hits["stronger"] >= max(hits["plain"], 9)


def test_masks_and_byte_tables():
    values = list(np.arange(1, 21) * 0.5)
    tables = byte_tables(values, 0.0)
    for mask in [0, 1, 0b1011, (1 << 20) - 1, 1 << 19 | 1 << 8]:
        assert sum_over(tables, mask, 0.0) == pytest.approx(sum(values[v] for v in members(mask)))
        assert mask_of(members(mask)) == mask
    bits = byte_tables([1 << v for v in [3, 9, 17]], 0)
    assert sum_over(bits, 0b101, 0) == (1 << 3) | (1 << 17)


def test_ground_sets_too_small_are_refused():
    for minimize in (queyranne_minimum, minimum_norm_point, exhaustive_minimum):
        with pytest.raises(ValueError, match="at least 2"):
            minimize(lambda m: 0.0, 1)
    with pytest.raises(ValueError, match="minimizer"):
        submodular_supermodular(lambda m: 0.0, lambda m: 0.0, 3, minimizer="nope")
