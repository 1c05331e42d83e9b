"""Fitted models in the formats of the Bayesian-network ecosystem (BIF, XMLBIF)."""

from .bif import read_bif, read_xmlbif, write_bif, write_xmlbif
from .bif_reader import read_bif_network, read_xmlbif_network
from .json_model import load_json, save_json
from .networks import (
    Network,
    Variable,
    class_networks,
    evidence_of,
    feature_states,
    network_of,
    to_networkx,
    to_pgmpy,
)

__all__ = [
    "Network",
    "Variable",
    "class_networks",
    "evidence_of",
    "feature_states",
    "load_json",
    "network_of",
    "read_bif",
    "read_bif_network",
    "read_xmlbif",
    "read_xmlbif_network",
    "save_json",
    "to_networkx",
    "to_pgmpy",
    "write_bif",
    "write_xmlbif",
]
