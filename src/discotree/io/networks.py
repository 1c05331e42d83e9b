"""The networks of :mod:`discotree.models.networks`, where export and import start
(re-exported here, their earlier home)."""

from ..models import networks
from ..models.networks import *  # noqa: F403  (every public name, as before)

__all__ = list(networks.__all__)
