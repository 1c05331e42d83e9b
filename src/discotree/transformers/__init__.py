"""Transformers: discretisation and table encoding."""

from .discretizer import Discretizer
from .encoder import TableEncoder

__all__ = ["Discretizer", "TableEncoder"]
