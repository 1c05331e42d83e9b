"""Sphinx configuration of the discotree documentation site.

Build with ``make -C docs html`` (warnings are errors). The reproduction pages are
generated at build time from the committed ``results/*/results.md`` (see
``_reproduction_pages``), the figure of each user-guide page from the installed package
(``_figures.py``), the API pages by autosummary, the gallery by sphinx-gallery
from ``examples/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
# One OpenMP thread for the gallery's scikit-learn models: on a busy 2-core machine their
# threads wait for each other (plot_02's gradient boosting: 37 to 250 s instead of 2 s).
os.environ.setdefault("OMP_NUM_THREADS", "1")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS))

from _figures import write_user_guide_figures  # noqa: E402
from _missing_values_table import write_missing_values_table  # noqa: E402
from _reproductions import write_reproduction_pages  # noqa: E402
from _scaling_table import write_scaling_table  # noqa: E402

import discotree  # noqa: E402

project = "discotree"
author = "the discotree developers"
copyright = "2026, the discotree developers"
release = discotree.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "**.ipynb_checkpoints",
    "user_guide/_figures/*.md",  # generated tables, included by their pages
    "design/_generated/*.md",
]
templates_path = ["_templates"]

# API reference: one generated page per public name.
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = False
autodoc_default_options = {"inherited-members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = f"discotree {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_static_path = ["_static"]
html_css_files = ["custom.css"]  # wrapped titles and gallery output
html_show_sourcelink = False

# The gallery: every example runs at each build (all of them in under a minute on 2
# cores, so CI builds them in full; no fast mode is needed).
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "show_memory": False,
    "within_subsection_order": "FileNameSortKey",
    "reference_url": {"discotree": None},
    "matplotlib_animations": False,
    "remove_config_comments": True,
}

write_reproduction_pages(ROOT / "results", DOCS / "reproductions")


# one figure per user-guide page, drawn from the package at every build
write_user_guide_figures(DOCS / "user_guide" / "_figures")
# the scaling page's table of what every estimator supports, from their scaling tags
write_scaling_table(DOCS / "user_guide" / "_figures" / "scaling_support.md")
# the design note's table of what every learner does with missing values, from the registry
write_missing_values_table(DOCS / "design" / "_generated" / "missing_values.md")
