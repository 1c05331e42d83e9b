"""Where :mod:`discotree.stats.alpha_selection` lived before it was named for what it
does (issue 30): old imports and pickles name its contents here."""

from .alpha_selection import (
    ALPHA_GRID,
    CALIBRATION_SCALES,
    ESS_GRID,
    ForestGrid,
    best_scale,
    choose_alpha,
    content_folds,
    distinct_row_hashes,
    forest_models_by_alpha,
    held_out_losses,
    row_hashes,
    select_alpha,
)

__all__ = [
    "ALPHA_GRID",
    "CALIBRATION_SCALES",
    "ESS_GRID",
    "ForestGrid",
    "best_scale",
    "choose_alpha",
    "content_folds",
    "distinct_row_hashes",
    "forest_models_by_alpha",
    "held_out_losses",
    "row_hashes",
    "select_alpha",
]
