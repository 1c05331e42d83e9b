"""
A first model
=============

Fit a TAN classifier and draw it.
"""

import matplotlib.pyplot as plt

from discotree import TANClassifier
from discotree.datasets import load_dataset
from discotree.plotting import plot_network

X, y = load_dataset("breast_cancer")
clf = TANClassifier().fit(X, y)
plot_network(clf)
plt.show()
