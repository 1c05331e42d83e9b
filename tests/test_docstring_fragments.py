"""The shared docstring text (:mod:`discotree.docstrings`): placeholders are filled,
indented as they stand, an unknown one fails at decoration, and no estimator's
rendered docstring keeps a placeholder."""

import functools
import inspect
import re

import pytest
from numpydoc.docscrape import ClassDoc

import discotree
from discotree.docstrings import DOCS, fill_doc, filled
from discotree.fitting import available_if_explained

PLACEHOLDER = re.compile(r"^\s*\{[A-Za-z_]\w*\}\s*$", re.M)


def test_placeholders_are_filled_at_their_indent():
    @fill_doc
    class Example:
        """An example.

        Parameters
        ----------
        {encoding}
        k : {0, 1, 2}, default=1
            Braces that are no placeholder stay.

        Attributes
        ----------
        {alpha_}
        """

        def fit(self, X, y, sample_weight=None):
            """Fit.

            Parameters
            ----------
            {X_fit}
            {y_fit}
            {sample_weight_fit}
            """

        @property
        def size(self):
            """The size.

            Returns
            -------
            int
                {smoothing_hdp}
            """

    doc = ClassDoc(Example)
    assert [p.name for p in doc["Parameters"]] == ["max_categories", "discretizer", "k"]
    assert doc["Parameters"][0].desc == [
        "Numeric columns with more distinct values are discretised."
    ]
    assert doc["Parameters"][2].type == "{0, 1, 2}, default=1"
    assert [a.name for a in doc["Attributes"]] == ["alpha_", "alpha_cv_losses_"]
    fit_lines = Example.fit.__doc__.splitlines()
    assert fit_lines[4] == " " * 12 + "X : array-like or DataFrame of shape (n_samples, n_features)"
    assert fit_lines[5].startswith(" " * 16 + "Numeric, categorical")
    assert "sample_weight : array-like" in Example.fit.__doc__
    size_lines = Example.size.__doc__.splitlines()
    assert size_lines[-2].startswith(" " * 16 + "(``concentrations_``")
    assert not PLACEHOLDER.search(Example.__doc__ + Example.fit.__doc__)


def test_unknown_placeholder_fails_with_its_name():
    with pytest.raises(ValueError, match=r"Broken: unknown docstring placeholder \{alpah\}"):

        @fill_doc
        class Broken:
            """Broken.

            Parameters
            ----------
            {alpah}
            """

    with pytest.raises(ValueError, match=r"Broken\.fit: unknown .*\{nope\}"):

        @fill_doc
        class Broken:
            """Fine."""

            def fit(self):
                """Fit.

                {nope}
                """


def test_wrapped_and_conditional_methods_are_filled():
    def passthrough(method):
        @functools.wraps(method)
        def wrapper(*args, **kwargs):
            return method(*args, **kwargs)

        return wrapper

    @fill_doc
    class Example:
        @available_if_explained(lambda self: True)
        @passthrough
        def predict(self, X):
            """Predict.

            Parameters
            ----------
            {X_predict}
            """

    assert "Columns as at fit time" in inspect.getdoc(Example.predict)
    assert "Columns as at fit time" in inspect.getdoc(Example().predict)


def test_functions_and_docless_objects():
    @fill_doc
    def f():
        """F.

        {n_features_in_}
        """

    assert f.__doc__.splitlines()[2] == "        n_features_in_ : int"

    @fill_doc
    class NoDoc:
        value = 3

    assert NoDoc.__doc__ is None
    assert filled("no placeholder {here}") == "no placeholder {here}"


@pytest.mark.parametrize("name", sorted(DOCS))
def test_fragments_are_at_column_zero(name):
    lines = DOCS[name].splitlines()
    assert lines[0] == lines[0].lstrip() and not DOCS[name].endswith("\n")
    assert all(line == line.rstrip() and "\t" not in line for line in lines)


def _public_objects():
    for name in discotree.__all__:
        obj = getattr(discotree, name)
        if inspect.isclass(obj):
            yield obj
            for member in vars(obj).values():
                yield from (member, getattr(member, "fget", None))


def test_no_rendered_docstring_keeps_a_placeholder():
    left = [
        getattr(obj, "__qualname__", repr(obj))
        for obj in _public_objects()
        if isinstance(getattr(obj, "__doc__", None), str) and PLACEHOLDER.search(obj.__doc__)
    ]
    assert not left
