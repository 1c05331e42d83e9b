"""Where the discrete statistics lived before they were split by what they hold:
:mod:`~discotree.stats.pair_statistics` (the count tables),
:mod:`~discotree.stats.dirichlet` (smoothing) and :mod:`~discotree.stats.information`
(information measures). Old imports, pickles and model files name them here."""

from .dirichlet import PRIORS, cell_pseudo_count, check_smoothing, smoothed_conditional
from .information import (
    conditional_mutual_information,
    entropy,
    j_divergence,
    kl_divergence,
    mutual_information,
)
from .pair_statistics import PairStatistics as PairStatistics  # (old imports, pickles)
from .pair_statistics import category_index_map, class_univariate_counts

# (PairStatistics, imported above for old imports and pickles, is documented in its
# own module, stats.pair_statistics, and not listed here)
__all__ = [
    "PRIORS",
    "category_index_map",
    "cell_pseudo_count",
    "check_smoothing",
    "class_univariate_counts",
    "conditional_mutual_information",
    "entropy",
    "j_divergence",
    "kl_divergence",
    "mutual_information",
    "smoothed_conditional",
]
