"""The reproductions by name: what ``discotree reproduce --list`` lists once this
distribution is installed (the entry point ``discotree.reproductions``)."""

from __future__ import annotations

from .boosting import bgmc_experiment, boosting_curves_reproduction, grid_reproduction
from .dorn import synthetic_experiment as dorn_synthetic_experiment
from .dorn import uci_experiment as dorn_uci_experiment
from .feature_selection import feature_selection_reproduction
from .harness.runner import reproduction
from .narasimhan import example_reproduction as narasimhan_example_reproduction
from .narasimhan import gaussian_reproduction as narasimhan_gaussian_reproduction
from .pernkopf import runtime_experiment as pernkopf_runtime_experiment
from .pernkopf import uci_experiment
from .pernkopf_2tree_cv import two_tree_cv_experiment
from .pernkopf_example import example_experiment as pernkopf_example_experiment
from .pernkopf_images import images_experiment as pernkopf_images_experiment
from .pernkopf_missing import missing_reproduction as pernkopf_missing_reproduction
from .pernkopf_orderings import orderings_reproduction
from .pernkopf_random_distributions import run_random_distributions
from .pernkopf_random_orders import render_random_orders, run_random_orders
from .pernkopf_svm import run_svm_comparison
from .pernkopf_synthetic import synthetic_experiment as pernkopf_synthetic_experiment
from .sanghavi import random_trees_experiment
from .tan import digits_trees_reproduction, gaussian_example_reproduction
from .tan_gaussian_digits import digits_gaussian_reproduction

__all__ = ["EXPERIMENTS"]

#: Reproductions by name: factories taking the data folder and returning an
#: Experiment (run by the cached harness) or a callable ``run(out_dir, n_jobs, progress)``.
EXPERIMENTS = {
    "pernkopf-uci": uci_experiment,
    "pernkopf-example": pernkopf_example_experiment,
    "pernkopf-runtime": pernkopf_runtime_experiment,
    "pernkopf-missing": pernkopf_missing_reproduction,
    "pernkopf-synthetic": pernkopf_synthetic_experiment,
    "pernkopf-images": pernkopf_images_experiment,
    "pernkopf-orderings": orderings_reproduction,
    "pernkopf-2tree-cv": two_tree_cv_experiment,
    "pernkopf-random-orders": reproduction(
        run_random_orders,
        "Pernkopf & Bilmes 2010, Table 8: TAN-RO-CR over 1000 random orderings per fold against "
        "TAN-OMI-CR.",
        render=render_random_orders,
    ),
    "pernkopf-random-distributions": reproduction(
        run_random_distributions,
        "Pernkopf & Bilmes 2010, Fig. 9: training CLL of TAN structures (OMI, minimum-MI and "
        "random orders, TAN-CMI, greedy TAN-CL, NB) on 1000 random distributions per N = 10..14.",
    ),
    "pernkopf-svm": reproduction(
        run_svm_comparison,
        "Pernkopf & Bilmes 2010, Tables 5-6: RBF SVMs against the best BN classifier "
        "(TAN-CR-CL) on MNIST and USPS: rates, parameter counts, fit and evaluation times.",
    ),
    "tan-gaussian-example": gaussian_example_reproduction,
    "sanghavi-random-trees": random_trees_experiment,
    "tan-digits-trees": digits_trees_reproduction,
    "tan-digits-gaussian": digits_gaussian_reproduction,
    "tan-boosting-curves": boosting_curves_reproduction,
    "tan-grid": grid_reproduction,
    "tan-bgmc": bgmc_experiment,
    "dorn-uci": dorn_uci_experiment,
    "dorn-synthetic": dorn_synthetic_experiment,
    "narasimhan-example": narasimhan_example_reproduction,
    "narasimhan-gaussian": narasimhan_gaussian_reproduction,
    "narasimhan-feature-selection": feature_selection_reproduction,
}
