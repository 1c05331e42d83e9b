"""The typed learner options (:mod:`discotree.learners.options`): one default per
option name, the estimators' defaults equal to their options classes', every field
documented, and no untyped option read left."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

import discotree
from discotree.learners import options as options_module
from discotree.learners.options import KDependenceOptions, LearnerOptions, TANOptions
from discotree.learners.registry import LEARNERS, LearnerSpec

SRC = Path(discotree.__file__).parent

#: Every estimator of the package that maps its parameters onto a learner's options.
ESTIMATORS = [
    getattr(discotree, name)
    for name in discotree.__all__
    if inspect.isclass(getattr(discotree, name))
    and isinstance(getattr(getattr(discotree, name), "_options_class", None), type)
]

#: Every options class: those of the registry and of the module.
OPTIONS_CLASSES = sorted(
    {learner.options for learner in LEARNERS.values()}
    | {
        kind
        for kind in vars(options_module).values()
        if isinstance(kind, type) and issubclass(kind, LearnerOptions)
    },
    key=lambda kind: kind.__name__,
)


def _defaults(kind: type) -> dict[str, object]:
    return {
        f.name: f.default for f in dataclasses.fields(kind) if f.default is not dataclasses.MISSING
    }


def test_the_estimators_with_options_are_found():
    names = {e.__name__ for e in ESTIMATORS}
    assert {"TANClassifier", "KDBClassifier", "KDBEnsembleClassifier"} <= names
    assert len(ESTIMATORS) >= 10


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_every_estimator_default_is_its_options_default(estimator):
    kind = estimator._options_class
    signature = inspect.signature(estimator.__init__).parameters
    defaults = _defaults(kind)
    shared = [name for name in kind.estimator_fields() if name in signature]
    assert shared, f"{estimator.__name__} shares no parameter with {kind.__name__}"
    for name in shared:
        given = signature[name].default
        if name in defaults:
            assert given == defaults[name], (estimator.__name__, name, given, defaults[name])
        else:  # no default in the options: the estimator's differ, it always gives one
            assert given is not inspect.Parameter.empty, (estimator.__name__, name)


def test_one_default_per_option_name_across_learners():
    seen: dict[str, dict[str, object]] = {}
    for kind in OPTIONS_CLASSES:
        for name, default in _defaults(kind).items():
            seen.setdefault(name, {})[kind.__name__] = default
    clashes = {
        name: by_class
        for name, by_class in seen.items()
        if len({repr(default) for default in by_class.values()}) > 1
    }
    assert not clashes


@pytest.mark.parametrize("kind", OPTIONS_CLASSES, ids=lambda kind: kind.__name__)
def test_every_option_is_typed_documented_and_frozen(kind):
    assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen
    for f in dataclasses.fields(kind):
        assert f.metadata.get("doc"), f"{kind.__name__}.{f.name} has no docstring line"
        assert f.type not in (None, ""), f"{kind.__name__}.{f.name} has no type"


def test_every_learner_declares_its_options_class():
    for name, learner in LEARNERS.items():
        assert issubclass(learner.options, LearnerOptions), name
    assert LEARNERS["selective-kdb"].options is KDependenceOptions
    assert LEARNERS["tan-search"].options is TANOptions


def test_a_spec_holds_its_learners_options_class():
    spec = LearnerSpec("selective-kdb", 1.0, 1e-5, options={"k": 3})
    assert isinstance(spec.options, KDependenceOptions)
    assert (spec.options.k, spec.with_options(k=4).options.k) == (3, 4)
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_kept'"):
        LearnerSpec("selective-kdb", 1.0, 1e-5, options={"k": 3, "n_kept": 2})
    with pytest.raises(TypeError, match="takes KDependenceOptions, got TANOptions"):
        LearnerSpec("selective-kdb", 1.0, 1e-5, options=TANOptions(k=2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.options.k = 5  # type: ignore[misc]


def test_validate_names_the_parameter_the_allowed_values_and_the_value():
    with pytest.raises(ValueError, match=r"KDBClassifier: selection_loss must be one of "):
        KDependenceOptions(k=2, selection_loss="mse").validate("KDBClassifier")
    with pytest.raises(ValueError, match=r"smoothing must be one of .*got 'laplace'"):
        KDependenceOptions(k=2, smoothing="laplace").validate("KDBClassifier")
    KDependenceOptions(k=2).validate("KDBClassifier")  # (nothing raised)


def test_no_untyped_option_read_is_left():
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in sorted(SRC.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bspecs?(\[\d+\])?\.option\(", line)
    ]
    assert not found


#: Every estimator of the package (its first parameter may stay positional).
ALL_ESTIMATORS = [
    getattr(discotree, name)
    for name in discotree.__all__
    if inspect.isclass(getattr(discotree, name)) and hasattr(getattr(discotree, name), "get_params")
]


@pytest.mark.parametrize("estimator", ALL_ESTIMATORS, ids=lambda e: e.__name__)
def test_parameters_after_the_first_are_keyword_only(estimator):
    parameters = list(inspect.signature(estimator.__init__).parameters.values())[1:]
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert len(positional) <= 1, positional


@pytest.mark.parametrize(
    ("estimator", "params", "message"),
    [
        ("TANClassifier", {"k": 3}, "k must be 0, 1 or 2, got 3"),
        (
            "TANClassifier",
            {"structure_folds": 1},
            "structure_folds must be None or an integer >= 2",
        ),
        ("KDBClassifier", {"attribute_order": "x"}, "attribute_order must be 'mutual-information'"),
        (
            "KDBEnsembleClassifier",
            {"linear_weight": 2.0},
            r"linear_weight must be 'auto' or a number in \[0, 1\]",
        ),
        ("KDBEnsembleClassifier", {"n_bins": (5, 3)}, "n_bins as a range must be two integers"),
        (
            "DiscriminativeTreeClassifier",
            {"n_edges": "x"},
            "n_edges must be None, 'cv' or an integer",
        ),
        ("BoostedGraphicalModelClassifier", {"base": "x"}, r"base must be one of \['chow-liu'"),
        ("EARTreeClassifier", {"n_permutations": 0}, "n_permutations must be an integer >= 1"),
    ],
)
def test_the_table_and_the_rules_name_the_parameter(estimator, params, message):
    X, y = [[0, 1], [1, 0], [1, 1], [0, 0]], [0, 1, 1, 0]
    with pytest.raises(ValueError, match=f"{estimator}: {message}"):
        getattr(discotree, estimator)(**params).fit(X, y)
