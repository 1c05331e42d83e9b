"""One home per rule (issue 52, item 4): the class prior, the log-normalisation of joint
scores, the weighted classification rate and the tolerances live in
``discotree.numerics``, the missing-value test in ``discotree.missing_values``; a copy
of one of them anywhere else in the package fails this test.

The copies are found on the AST of every module of ``src/discotree``:

* class prior: ``np.log(a / b.sum())`` (or ``/ (b.sum() + n)``), the log of a share;
* log-normalisation: ``x - logsumexp(x, ...)`` or ``x -= logsumexp(x, ...)`` (scipy's or
  ``log_sum_exp``);
* classification rate: ``np.mean(a == b)``, ``(a == b).mean()``, or a division of a sum
  holding ``a == b`` (``w @ (a == b)``, ``w[a == b].sum()``, ``np.sum(w * (a == b))``)
  by a sum;
* tolerances: a bare ``1e-12`` literal;
* missing values: ``x < 0``, ``x >= 0``, ``x == -1`` or ``x != -1`` on category codes
  (an expression naming ``codes``, ``code``, ``...values``, ``column``, ``cells``,
  ``xi``, ``xj``, ``xp``), outside ``missing_values.py`` and the kernels listed in
  :data:`INLINE_ALLOWED` (bit tricks of hot loops: one branch for several codes).

Each detector is also run on a snippet of the old copies it replaced, so that the test
can fail.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "discotree"

#: Comparisons on code-like names that stay inline (module, source text): comparisons
#: with 0 of other things than category codes (hash slots, cell ids, costs). The bit
#: tricks of the hot loops that test several codes in one branch (``(x | cell) >= 0``,
#: ``(a | b | key) < 0`` in ``kernels/family_counts.py``) are not flagged. The list
#: only shrinks: an entry no longer found fails the test.
INLINE_ALLOWED = {
    ("kernels/encode.py", "slot_code[s] >= 0"),  # a hash table's used slot
    ("kernels/encode.py", "slot_code[k] >= 0"),
    ("kernels/encode.py", "code[t] >= 0"),
    ("feature_selection.py", "values < 0"),  # per-feature costs
}

CODE_NAME = re.compile(r"code|values$|^(column|cells|xi|xj|xp)$")

Finding = tuple[str, int, str]


def _is_call(node: ast.AST, name: str) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == name) or (
        isinstance(func, ast.Attribute) and func.attr == name
    )


def _contains(node: ast.AST, test: Callable[[ast.AST], bool]) -> bool:
    return any(test(n) for n in ast.walk(node))


def _is_equality(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.Eq | ast.NotEq)


def class_priors(tree: ast.AST) -> Iterator[ast.AST]:
    """``np.log(a / <...>.sum() ...)``: the log of a share of a sum."""
    for node in ast.walk(tree):
        if _is_call(node, "log") and node.args:  # type: ignore[union-attr]
            arg = node.args[0]  # type: ignore[union-attr]
            if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Div):
                if _contains(arg.right, lambda n: _is_call(n, "sum")):
                    yield node


def log_normalisations(tree: ast.AST) -> Iterator[ast.AST]:
    """``x - logsumexp(x, ...)`` and ``x -= logsumexp(x, ...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            left, right = node.left, node.right
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Sub):
            left, right = node.target, node.value
        else:
            continue
        summed = _is_call(right, "logsumexp") or _is_call(right, "log_sum_exp")
        if summed and right.args:  # type: ignore[union-attr]
            if ast.unparse(right.args[0]) == ast.unparse(left):  # type: ignore[union-attr]
                yield node


def classification_rates(tree: ast.AST) -> Iterator[ast.AST]:
    """``np.mean(a == b)``, ``(a == b).mean()``, and a weighted sum of ``a == b``
    (``w @ (a == b)``, ``w[a == b].sum()``, ``np.sum(w * (a == b))``, or of a name
    assigned such a comparison) divided by a sum."""
    hits = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_equality(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def equality(n: ast.AST) -> bool:
        return _is_equality(n) or (isinstance(n, ast.Name) and n.id in hits)

    def weighted(n: ast.AST) -> bool:
        """``w @ eq``, ``w * eq``, ``w[eq].sum()``."""
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult | ast.Mult):
            return equality(n.left) or equality(n.right)
        if _is_call(n, "sum") and isinstance(n.func, ast.Attribute):  # type: ignore[union-attr]
            owner = n.func.value  # type: ignore[union-attr]
            return isinstance(owner, ast.Subscript) and equality(owner.slice)
        return False

    for node in ast.walk(tree):
        if _is_call(node, "mean"):
            func, args = node.func, node.args  # type: ignore[union-attr]
            target = args[0] if args else getattr(func, "value", None)
            if target is not None and _is_equality(target):
                yield node
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = node.left, node.right
            if _contains(left, weighted):
                if _contains(right, lambda n: _is_call(n, "sum")):
                    yield node


def bare_tolerances(tree: ast.AST) -> Iterator[ast.AST]:
    """A ``1e-12`` literal."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            if node.value == 1e-12:
                yield node


def _names(node: ast.AST) -> Iterator[str]:
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            yield n.id
        elif isinstance(n, ast.Attribute):
            yield n.attr


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def missing_tests(tree: ast.AST) -> Iterator[ast.AST]:
    """``codes < 0``, ``codes >= 0``, ``codes == -1``, ``codes != -1`` on codes."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        op, value = node.ops[0], _number(node.comparators[0])
        missing = (isinstance(op, ast.Lt | ast.GtE) and value == 0) or (
            isinstance(op, ast.Eq | ast.NotEq) and value == -1
        )
        if missing and any(CODE_NAME.search(name) for name in _names(node.left)):
            yield node


#: detector, module of the one definition (``None``: no copy anywhere but that module)
RULES: dict[str, tuple[Callable[[ast.AST], Iterator[ast.AST]], str]] = {
    "class prior": (class_priors, "numerics.py"),
    "log-normalisation": (log_normalisations, "numerics.py"),
    "classification rate": (classification_rates, "numerics.py"),
    "1e-12 tolerance": (bare_tolerances, "numerics.py"),
    "missing-value test": (missing_tests, "missing_values.py"),
}


def findings(detector: Callable[[ast.AST], Iterator[ast.AST]]) -> list[Finding]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text()
        for node in detector(ast.parse(source)):
            text = ast.get_source_segment(source, node) or ""
            out.append((path.relative_to(ROOT).as_posix(), node.lineno, text))
    return out


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_rule_has_one_home(rule):
    detector, home = RULES[rule]
    found = findings(detector)
    at_home = [f for f in found if f[0] == home]
    copies = [
        f
        for f in found
        if f[0] != home and not (rule == "missing-value test" and (f[0], f[2]) in INLINE_ALLOWED)
    ]
    assert at_home, f"the {rule} is no longer defined in {home}"
    assert not copies, f"copies of the {rule} outside {home}: {copies}"
    if rule == "missing-value test":
        stale = INLINE_ALLOWED - {(f[0], f[2]) for f in found}
        assert not stale, f"listed in INLINE_ALLOWED but gone (remove them): {stale}"


def test_the_definitions_are_where_the_package_says():
    from discotree import missing_values, numerics

    for name in ("class_log_prior", "normalise_log", "weighted_accuracy", "argmax_with_ties"):
        assert getattr(numerics, name).__module__ == "discotree.numerics"
    for name in ("observed", "is_missing", "complete_rows"):
        assert getattr(missing_values, name).__module__ == "discotree.missing_values"
    fitting = (ROOT / "fitting.py").read_text()
    assert "def argmax_with_ties" not in fitting and "SCORE_TIE_RTOL" not in fitting


OLD_COPIES = {
    "class prior": [
        "log_prior = np.log(prior / prior.sum())",
        "p = np.log(class_totals(class_index, w, n_classes) / w.sum())",
        "p = np.log((prior_counts + 1.0) / (prior_counts.sum() + n_classes))",
    ],
    "log-normalisation": [
        "out = joint - logsumexp(joint, axis=1, keepdims=True)",
        "out = joint - logsumexp(joint, axis=2, keepdims=True)",
        "log_w -= logsumexp(log_w)",
        "out = joint - log_sum_exp(joint, axis=1, keepdims=True)",
    ],
    "classification rate": [
        "a = float(np.mean(model.predict(test) == truth))",
        "wrong = labels != y\ne = float(held @ wrong) / max(float(held.sum()), 1e-300)",
        "a = float(w[pred == y].sum()) / w.sum()",
        "a = np.sum(w * (pred == y)) / w.sum()",
        "a = (labels == y).mean()",
        "e = np.mean(p != truth)",
    ],
    "1e-12 tolerance": ["better = value < best - 1e-12", "sd = np.where(sd > 1e-12, sd, 1.0)"],
    "missing-value test": [
        "complete = (codes >= 0).all(axis=1)",
        "missing = np.any(codes < 0)",
        "seen = column >= 0",
        "out = np.where(codes == -1, np.nan, codes)",
        "missing |= codes[:, p] < 0",
        "here = values[i] >= 0",
        "keys = np.where(node_values < 0, -1, keys)",
    ],
}

#: Forms that are not copies of the rule (must not be flagged).
NOT_COPIES = {
    "class prior": ["x = np.log(joint[nz] / (pc @ px)[nz])", "x = np.log(weights / total)"],
    "log-normalisation": ["m = logsumexp(posteriors, axis=0) - np.log(len(members))"],
    "classification rate": [
        "rates = total / weights.sum()",
        "rows = y == c\nmean = w @ values[rows] / w.sum()",
    ],
    "1e-12 tolerance": ["x = 1e-9"],
    "missing-value test": ["root = pa < 0", "bad = alpha < 0", "up = parent >= 0"],
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_detector_finds_the_old_copies(rule):
    detector, _ = RULES[rule]
    for snippet in OLD_COPIES[rule]:
        assert list(detector(ast.parse(snippet))), f"{rule}: missed {snippet!r}"
    for snippet in NOT_COPIES[rule]:
        assert not list(detector(ast.parse(snippet))), f"{rule}: flagged {snippet!r}"
