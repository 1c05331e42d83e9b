"""Where :mod:`discotree.stats.alpha_selection` lived before it was named for what it
does: old imports and pickles name its contents here."""

from . import alpha_selection
from .alpha_selection import *  # noqa: F403  (every public name, as before)

__all__ = list(alpha_selection.__all__)
