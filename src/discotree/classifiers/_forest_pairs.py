"""Where :mod:`discotree.models.forest_pairs` lived: pickles written before it moved
(issue 30) name its classes here."""

from ..models.forest_pairs import STRUCTURE_ALPHA, ForestPair, GridScores, composite_scores

__all__ = ["STRUCTURE_ALPHA", "ForestPair", "GridScores", "composite_scores"]

_ForestPair = ForestPair  # the name before the class was public
