"""Shared numpydoc text of the estimators, written once and filled in at import.

The estimators share parameters (``prior``, ``epsilon``, ``max_categories`` ...), fitted
attributes (``classes_``, ``encoder_``, ``alpha_`` ...) and the parameters of ``fit``;
their text lives here, in :data:`DOCS` (with the doctest set-ups several model
docstrings share, ``example_*``), and a docstring names it by a placeholder line
``{name}``. :func:`fill_doc` (a decorator of classes and functions) replaces each such
line by the fragment, indented as the placeholder is, when the module that defines the
estimator is imported, so ``help()``, numpydoc, the doctests and the documentation all
read the filled text. An estimator whose text really differs (another default, another
meaning) keeps its own.

A placeholder is a line that holds nothing but ``{name}`` (``name`` a Python
identifier); braces elsewhere (``{"dirichlet", "bdeu"}``, ``{0, 1, 2}``) are text. A
placeholder that :data:`DOCS` does not hold is an error at import, naming the object.
The pattern is MNE-Python's ``fill_doc``/``docdict`` and pandas' ``@doc``.

Examples
--------
>>> @fill_doc
... def fit(X, y, sample_weight=None):
...     '''Fit.
...
...     Parameters
...     ----------
...     {sample_weight_fit}
...     '''
>>> print(fit.__doc__.splitlines()[4])
    sample_weight : array-like of shape (n_samples,), default=None
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["DOCS", "fill_doc", "filled"]

T = TypeVar("T")

#: A line that holds only ``{name}``: the indent, then the name.
_PLACEHOLDER = re.compile(r"^([ \t]*)\{([A-Za-z_][A-Za-z0-9_]*)\}[ \t]*$", re.MULTILINE)

_SMOOTHING_HDP = """\
``"hdp"``: the same back-off estimated by the hierarchical Dirichlet process of
Petitjean et al. 2018, concentrations sampled by Gibbs sampling (200 sweeps,
seeded by ``random_state``; :mod:`discotree.stats.hdp_counts`) from the counts,
so whole-number sample weights only; alpha, the structure and any
cross-validation use the ``"hierarchical"`` estimate, the sampler runs once
(``concentrations_``: the sampled concentrations' means, the root's first)."""

_SMOOTHING_HIERARCHICAL = """\
``"hierarchical"``: each table backs off to the feature's class-level table and
its marginal (the back-off of :class:`~discotree.KDBClassifier`, after Petitjean
et al. 2018), one concentration per level chosen by leave-one-out from the
counts (``concentrations_``); ``alpha`` then smooths the marginals and
``prior`` is not used."""

#: The fragments, each at column 0 (an entry's description indented by 4 spaces).
DOCS: dict[str, str] = {
    # ---------------------------------------------------------------- parameters
    # (the first lines of the entry: each estimator adds what its "auto" does)
    "alpha_auto": """\
alpha : float or "auto", default="auto"
    Dirichlet pseudo-count per cell, or ``"auto"``: chosen by cross-validation as
    for :class:`~discotree.NaiveBayesClassifier` (``alpha_``;
    ``docs/design/smoothing.md``).""",
    "prior": """\
prior : {"dirichlet", "bdeu"}, default="dirichlet"
    ``"dirichlet"``: ``alpha`` pseudo-counts in every cell of every table.
    ``"bdeu"``: ``alpha`` is an equivalent sample size spread over the cells of each
    family, ``alpha / (n_classes * r_parent * r_j)`` per cell, so that large tables
    are not over-smoothed (with ``alpha="auto"``, chosen on ``ESS_GRID``).""",
    "smoothing_hierarchical": _SMOOTHING_HIERARCHICAL,
    "smoothing_hdp": _SMOOTHING_HDP,
    "smoothing": 'smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"\n'
    + textwrap.indent(_SMOOTHING_HIERARCHICAL + "\n" + _SMOOTHING_HDP, "    "),
    "random_state_hdp": """\
random_state : int, RandomState instance, Generator or None, default=0
    The seed of the HDP sampler (``smoothing="hdp"``); not used otherwise.""",
    "epsilon": """\
epsilon : float, default=1e-5
    Probabilities that are still zero after smoothing are replaced by ``epsilon``
    (Pernkopf & Bilmes 2010, Section 6.1); only matters when ``alpha=0``.""",
    # (one fragment: the discretizer's text speaks of max_categories' columns)
    "encoding": """\
max_categories : int, default=10
    Numeric columns with more distinct values are discretised.
discretizer : Discretizer or None, default=None
    Used for those columns, fitted on the training data only; ``None`` means
    ``Discretizer()`` (5 equal-frequency bins).""",
    "var_smoothing": """\
var_smoothing : float, default=0.0
    ``distribution="gaussian"``: added to every class variance (see
    :class:`~discotree.DiscriminativeTreeClassifier`).""",
    "density_floor": """\
density_floor : float, default=1e-3
    Densities (of standardised features) below this are raised to it before the
    log (Remark 2).""",
    "kde": """\
kde : {"auto", "binned", "exact"}, default="auto"
    Linear binning on a grid with kernel smoothing (O(L + grid) per feature or
    pair; :mod:`discotree.kernels.kde`), direct O(L) kernel sums per query, or
    whichever costs fewer operations for the class and query sizes at hand.""",
    # ---------------------------------------------------------- fitted attributes
    "classes_": """\
classes_ : ndarray of shape (n_classes,)
    Labels of the samples with positive weight.""",
    "class_count_": """\
class_count_ : ndarray of shape (n_classes,)
    Weight of each class in the training data.""",
    "class_log_prior_": """\
class_log_prior_ : ndarray of shape (n_classes,)
    Log of the class frequencies (the maximum-likelihood class prior).""",
    "n_categories_": """\
n_categories_ : ndarray of shape (n_features,)
    Number of categories (or bins) of each encoded feature.""",
    "encoder_": """\
encoder_ : TableEncoder
    The encoding of the columns learnt at fit time (categories, bins).""",
    "fit_memory_estimate_": """\
fit_memory_estimate_ : float
    The peak memory of the fit in bytes, estimated before counting and checked
    against the ``memory_limit`` configuration key (``benchmarks/bench_memory.py``).""",
    "alpha_": """\
alpha_ : float
    The pseudo-count used: ``alpha``, or the one ``alpha="auto"`` chose.
alpha_cv_losses_ : ndarray of shape (2, n_grid)
    ``alpha="auto"`` only: for each value of the grid, the summed held-out weight
    of errors (row 0, the criterion) and log-loss (row 1, the tie-break) of the
    cross-validation.""",
    "edge_names_": """\
edge_names_ : list of list of (str, str)
    ``edges_`` with feature names (``feature_names_in_``, else ``x0``, ``x1``, ...).""",
    "n_features_in_": """\
n_features_in_ : int
    Number of features seen at fit time.""",
    "feature_names_in_": """\
feature_names_in_ : ndarray of str
    Only when fitted on a DataFrame with string column names.""",
    "standardisation_": """\
mean_, scale_ : ndarray of shape (n_features,)
    The standardisation of the features (the densities see standardised data).""",
}
#: The fitted attributes of every classifier of encoded discrete tables.
DOCS["discrete_fit_attributes"] = "\n".join(
    DOCS[name]
    for name in (
        "classes_",
        "class_count_",
        "class_log_prior_",
        "n_categories_",
        "encoder_",
        "n_features_in_",
        "feature_names_in_",
    )
)
DOCS |= {
    # ------------------------------------------------- fit and predict parameters
    "X_fit": """\
X : array-like or DataFrame of shape (n_samples, n_features)
    Numeric, categorical, string or boolean columns; NaN/None is missing.""",
    "X_fit_numeric": """\
X : array-like or DataFrame of shape (n_samples, n_features)
    Numeric columns, complete (kernel density estimates need every value).""",
    "y_fit": """\
y : array-like of shape (n_samples,)
    Class labels (two or more classes with positive weight).""",
    "sample_weight_fit": """\
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative weights; a weight of k counts a sample k times.""",
    "X_predict": """\
X : array-like or DataFrame of shape (n_samples, n_features)
    Columns as at fit time; NaN/None is missing (summed out).""",
}

#: The doctest set-up of the small kDB of the model docstrings (in a module that
#: imports ``numpy as np``; the second also ``KDependenceModel``): two binary
#: attributes, the second under the first.
_KDB_TABLES = """\
>>> from discotree.stats.family_tables import prefix_family_tables
>>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
>>> y = np.array([0, 1, 1, 0])
>>> tables = prefix_family_tables(codes, y, None, 2, np.array([2, 2]), [(), (0,)])"""
DOCS |= {
    # ------------------------------------------------- examples of the models
    "example_kdb_tables": _KDB_TABLES,
    "example_kdb_model": _KDB_TABLES
    + "\n>>> model = KDependenceModel(np.array([2, 2]), [0, 1], [(), (0,)], tables, 1.0, 0.0)",
    # a Naive Bayes fitted on iris (the examples of what a fitted classifier offers)
    "example_iris_nb": """\
>>> from sklearn.datasets import load_iris
>>> from discotree import NaiveBayesClassifier
>>> X, y = load_iris(return_X_y=True)
>>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)""",
    # (a module that imports numpy as np, LogisticModel): two classes, a one-hot
    # feature of 2 categories and a numeric one of 3 (values -1, 0, 1)
    "example_logistic_model": """\
>>> model = LogisticModel(
...     coef=np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]]),
...     intercept=np.zeros(2),
...     n_categories=np.array([2, 3]),
...     values=[None, np.array([-1.0, 0.0, 1.0])],
... )""",
    # (a module that imports numpy as np, Rows): 200 rows, the class set by attribute 0
    "example_logistic_rows": """\
>>> rng = np.random.default_rng(0)
>>> codes = rng.integers(0, 3, size=(200, 2))
>>> y = (codes[:, 0] == 2).astype(np.intp)
>>> rows = Rows(codes, y, np.ones(200), 2, np.array([3, 3]))""",
    # a Naive Bayes fitted on a string and a numeric column (the raw ONNX inputs)
    "example_mixed_columns": """\
>>> import pandas as pd
>>> from discotree import NaiveBayesClassifier
>>> X = pd.DataFrame({"colour": ["red", "blue"] * 10, "size": range(20)})
>>> clf = NaiveBayesClassifier().fit(X, [0, 1] * 10)""",
    # the data of the fits in passes, and the callable giving its two batches per pass
    "example_batch_halves": """\
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 3, (300, 4))
>>> y = (X[:, 0] + X[:, 1]) % 2
>>> halves = lambda: [(X[:150], y[:150]), (X[150:], y[150:])]""",
}


def filled(doc: str, where: str = "docstring", docs: Mapping[str, str] = DOCS) -> str:
    """``doc`` with every placeholder line ``{name}`` replaced by ``docs[name]``, each
    of its lines indented as the placeholder is.

    Parameters
    ----------
    doc : str
        A docstring.
    where : str, default="docstring"
        What it documents, for the error message.
    docs : mapping of str to str, default=DOCS
        The fragments.

    Returns
    -------
    str
        The filled docstring (``doc`` itself when it has no placeholder).

    Raises
    ------
    ValueError
        For a placeholder that ``docs`` does not hold; the message names ``where``,
        the placeholder and the known names.

    Examples
    --------
    >>> print(filled("Attributes\\n    ----------\\n    {n_features_in_}"))
    Attributes
        ----------
        n_features_in_ : int
            Number of features seen at fit time.
    """

    def fragment(match: re.Match[str]) -> str:
        indent, name = match.group(1), match.group(2)
        if name not in docs:
            raise ValueError(
                f"{where}: unknown docstring placeholder {{{name}}}; the fragments of "
                f"discotree.docstrings.DOCS are {sorted(docs)}."
            )
        return textwrap.indent(docs[name], indent, lambda line: True)

    return _PLACEHOLDER.sub(fragment, doc)


def _documented(value: Any) -> Iterator[Any]:
    """The objects whose ``__doc__`` a class attribute shows: the attribute and what it
    wraps (a property's getter, a class or static method's function, a descriptor's
    ``fn`` as scikit-learn's ``available_if`` keeps it, ``functools.wraps``'
    ``__wrapped__``), each once."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen or isinstance(item, str | int | float | tuple):
            continue
        seen.add(id(item))
        yield item
        for name in ("fget", "__func__", "fn", "__wrapped__"):
            try:
                stack.append(getattr(item, name, None))
            except Exception:  # an object whose __getattr__ raises: it wraps nothing
                continue


def _fill_object(obj: Any, where: str) -> None:
    doc = getattr(obj, "__doc__", None)
    if isinstance(doc, str) and _PLACEHOLDER.search(doc):
        try:
            obj.__doc__ = filled(doc, where)
        except AttributeError:  # a read-only __doc__ (a builtin): nothing of ours
            pass


def fill_doc(obj: T) -> T:
    """Decorator: fill the placeholders of a function's docstring, or of a class's and
    its own methods' (properties, class and static methods included).

    Parameters
    ----------
    obj : class or function
        Its docstrings may hold placeholder lines ``{name}`` (``name`` a key of
        :data:`DOCS`).

    Returns
    -------
    class or function
        ``obj`` itself, its docstrings filled in place.

    Raises
    ------
    ValueError
        At import, for a placeholder that :data:`DOCS` does not hold.

    Examples
    --------
    >>> @fill_doc
    ... class Example:
    ...     '''An example.
    ...
    ...     Attributes
    ...     ----------
    ...     {n_features_in_}
    ...     '''
    >>> print(Example.__doc__.splitlines()[-2].strip())
    Number of features seen at fit time.
    """
    name = getattr(obj, "__qualname__", repr(obj))
    _fill_object(obj, name)
    if isinstance(obj, type):
        for attribute, value in vars(obj).items():
            for item in _documented(value):
                _fill_object(item, f"{name}.{attribute}")
    return obj
