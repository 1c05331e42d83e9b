"""The fit pipeline's contract (issue 52, item 1), checked over the source of
``discotree.classifiers``: no estimator probes or parks state in its ``__dict__``, no
private attribute is set outside ``__init__`` and the one assignment point
(``FitContractMixin._set_fitted``), and the base's docstring lists the hooks the
estimators override; TAN is a shell of under 120 code lines and no estimator
overrides more than 5 hooks (the issue's targets)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import discotree.classifiers as classifiers
from discotree.classifiers._base import DiscreteForestClassifierBase
from discotree.classifiers._incremental import IncrementalFitMixin
from discotree.learners.fit_input import FitInput

CLASSIFIERS = Path(classifiers.__file__).parent


def _trees() -> dict[str, ast.Module]:
    return {path.name: ast.parse(path.read_text()) for path in sorted(CLASSIFIERS.glob("*.py"))}


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _private_self_targets(target: ast.AST) -> list[str]:
    """The private ``self._x`` names an assignment target sets."""
    if isinstance(target, ast.Tuple | ast.List):
        return [name for item in target.elts for name in _private_self_targets(item)]
    if isinstance(target, ast.Attribute) and _is_self(target.value):
        name = target.attr
        if name.startswith("_") and not name.startswith("__"):
            return [name]
    return []


def dict_probes(tree: ast.Module) -> list[int]:
    """Lines that read or write an object's ``__dict__`` (or ``vars(self)``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            lines.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("vars", "setattr", "delattr")
            and node.args
            and _is_self(node.args[0])
        ):
            lines.append(node.lineno)
    return lines


def private_assignments(tree: ast.Module) -> list[tuple[int, str, str]]:
    """``(line, function, name)`` of each ``self._x = ...`` outside ``__init__``."""
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if function.name == "__init__":
            continue
        for node in ast.walk(function):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                for name in _private_self_targets(target):
                    found.append((node.lineno, function.name, name))
    return found


def test_no_dict_probes_in_the_classifiers():
    probes = {name: dict_probes(tree) for name, tree in _trees().items()}
    assert {name: lines for name, lines in probes.items() if lines} == {}


def test_no_private_attribute_set_outside_init_and_the_one_assignment_point():
    found = {name: private_assignments(tree) for name, tree in _trees().items()}
    assert {name: sets for name, sets in found.items() if sets} == {}


def test_the_checkers_see_what_they_forbid():
    source = ast.parse(
        "class A:\n"
        "    def __init__(self):\n        self._ok = 1\n"
        "    def fit(self):\n"
        "        self._a, self.b_ = 1, 2\n        self._c: int = 3\n"
        "        self.__dict__.pop('x', None)\n        setattr(self, 'y', 1)\n"
    )
    assert [name for _, _, name in private_assignments(source)] == ["_a", "_c"]
    assert sorted(dict_probes(source)) == [7, 8]


def _estimators() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(classifiers.__path__):
        module = importlib.import_module(f"discotree.classifiers.{info.name}")
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, DiscreteForestClassifierBase)
                and value is not DiscreteForestClassifierBase
                and value.__module__ == module.__name__
            ):
                found.append(value)
    return sorted(set(found), key=lambda cls: cls.__name__)


def hooks_of(estimator: type) -> set[str]:
    """The private methods of the base (and of ``partial_fit``'s mixin) that
    ``estimator`` overrides."""
    base = set(vars(DiscreteForestClassifierBase)) | set(vars(IncrementalFitMixin))
    return {
        name
        for name, value in vars(estimator).items()
        if name in base
        and name.startswith("_")
        and not name.startswith("__")
        and (inspect.isfunction(value) or isinstance(value, staticmethod | classmethod))
    }


def test_the_base_docstring_lists_the_hooks_the_estimators_override():
    doc = DiscreteForestClassifierBase.__doc__ or ""
    listed = set(re.findall(r"``(_[a-z_]+)``", doc.split("Hooks", 1)[1]))
    overridden = set().union(*(hooks_of(estimator) for estimator in _estimators()))
    assert listed == overridden
    for name in listed:  # each is a method of the base or of partial_fit's mixin
        assert hasattr(DiscreteForestClassifierBase, name) or hasattr(IncrementalFitMixin, name)


def test_at_most_five_hooks_per_estimator():
    counts = {estimator.__name__: len(hooks_of(estimator)) for estimator in _estimators()}
    assert max(counts.values()) <= 5, counts


def code_lines(path: Path) -> int:
    """Lines that are neither blank, comments nor docstrings."""
    source = path.read_text()
    strings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):  # docstrings (and bare strings)
                strings.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in strings
    )


def test_code_lines_count_code_only(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        '"""Doc\n\nstring."""\n\n# comment\nx = 1\n\n\ndef f():\n    """Doc."""\n    return x\n'
    )
    assert code_lines(path) == 3


def test_tan_is_a_shell():
    assert code_lines(CLASSIFIERS / "tan.py") < 120


def test_the_fit_input_is_immutable():
    data = FitInput(np.array([0, 1]), None, np.ones(2), 1.0, 1e-5)
    with pytest.raises(AttributeError):
        data.alpha = 2.0  # type: ignore[misc]
    assert data.with_(alpha=2.0).alpha == 2.0 and data.alpha == 1.0
