"""The documentation's API reference lists every public name.

``docs/api/index.rst`` names objects one by one (autosummary) for the user-facing
modules and whole modules for the lower layers (their pages list the module's
``__all__``). A name added to an ``__all__`` without a place in the reference fails
here.
"""

import importlib
import re
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.rst"
LISTED = set(re.findall(r"^   ([A-Za-z_][\w.]*)$", API.read_text(), re.M))

# Modules whose names are listed one by one, as "<prefix>.<name>" ("" for discotree).
BY_NAME = {
    "discotree": "",
    "discotree.io": "io.",
    "discotree.io.onnx": "io.onnx.",
    "discotree.plotting": "plotting.",
    "discotree.explain": "explain.",
    "discotree.datasets": "datasets.",
    "discotree.evaluation": "evaluation.",
    "discotree.model_file": "model_file.",
    "discotree.output_files": "output_files.",
    "discotree.registry": "registry.",
}
# Lower layers: the module page is listed; autosummary documents its __all__.
BY_MODULE = [
    "discotree.models.discrete_forest",
    "discotree.models.gaussian_forest",
    "discotree.models.bayes_net",
    "discotree.models.conditional_likelihood",
    "discotree.models.exponential_tree",
    "discotree.models.lgmht_altmax",
    "discotree.models.kernel_density",
    "discotree.models.boosted_ensemble",
    "discotree.models.networks",
    "discotree.learners.boosting",
    "discotree.learners.fit_input",
    "discotree.learners.options",
    "discotree.models.protocol",
    "discotree.numerics",
    "discotree.missing_values",
    "discotree.stats.discriminative",
    "discotree.stats.gaussian",
    "discotree.stats.set_information",
    "discotree.stats.alpha_selection",
    "discotree.structure.spanning",
    "discotree.structure.chow_liu",
    "discotree.structure.discriminative",
    "discotree.structure.bayes_net_search",
    "discotree.structure.search_state",
    "discotree.learners.step_selection",
    "discotree.structure.generative",
    "discotree.structure.ear",
    "discotree.structure.submodular",
    "discotree.transformers.mdl",
    "discotree.sufficient_statistics",
]


@pytest.mark.parametrize("module_name", sorted(BY_NAME))
def test_every_public_name_is_in_the_reference(module_name):
    module = importlib.import_module(module_name)
    names = [n for n in module.__all__ if not n.startswith("__")]
    missing = [n for n in names if BY_NAME[module_name] + n not in LISTED]
    assert not missing, f"{module_name}: not in docs/api/index.rst: {missing}"


@pytest.mark.parametrize("module_name", BY_MODULE)
def test_every_lower_layer_module_has_a_page(module_name):
    module = importlib.import_module(module_name)
    assert module.__all__, f"{module_name} has no __all__ for its page to list"
    assert module_name.removeprefix("discotree.") in LISTED
