"""The networks of :mod:`discotree.models.networks`, where export and import start
(re-exported here, their home before issue 30)."""

from ..models.networks import (
    Network,
    Variable,
    bif_identifier,
    checked_conditional,
    class_networks,
    evidence_of,
    feature_states,
    network_of,
    per_class_structure,
    to_networkx,
    to_pgmpy,
)

__all__ = [
    "Network",
    "Variable",
    "bif_identifier",
    "checked_conditional",
    "class_networks",
    "evidence_of",
    "feature_states",
    "network_of",
    "per_class_structure",
    "to_networkx",
    "to_pgmpy",
]
