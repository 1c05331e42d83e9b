"""The reproductions of discotree's five papers: their experiments, their classifier
names and their reports, and the harness that runs them (:mod:`.harness`: protocols,
metrics, the data folder, a cached runner, reports), a distribution of its own so that
``pip install discotree`` carries none of it.

Install it beside the library (``pip install -e ./reproductions`` from the repository):
``discotree`` then has the commands ``reproduce`` and ``bench``
(:mod:`discotree_reproductions.commands`, through the entry point ``discotree.commands``),
and ``discotree reproduce --list`` lists the reproductions
(:data:`discotree_reproductions.catalog.EXPERIMENTS`, through the entry point
``discotree.reproductions``); the papers' classifier names
(:data:`discotree_reproductions.names.CLASSIFIERS`) join ``discotree.registry``
through ``discotree.classifiers``. Every module here uses discotree's public API only.
"""
