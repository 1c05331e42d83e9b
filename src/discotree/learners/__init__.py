"""Learners: statistics (or codes) in, a fitted model out.

The layer between the models (:mod:`discotree.models`) and the estimator shells
(:mod:`discotree.classifiers`): what chooses among models with data, such as the
number of steps of a structure search by cross-validation
(:mod:`~discotree.learners.step_selection`). Issue 30 moves every learner here, one
registry of them, so that ``fit``, ``partial_fit``, the alpha cross-validation and the
Dask engine call the same functions (``docs/design/architecture.md``).
"""
