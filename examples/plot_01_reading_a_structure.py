"""
Reading a learnt structure
==========================

A TAN classifier on a table with named columns: the class is a parent of every
feature, and each feature has at most one feature parent, chosen by the conditional
mutual information I(X_i; X_j | C) (Friedman et al., 1997; Pernkopf & Bilmes 2010,
Section 4.3). :func:`~discotree.plotting.plot_network` draws it with the feature
names; the edge widths are the informations that chose the edges.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer

from discotree import TANClassifier
from discotree.plotting import plot_network

frame = load_breast_cancer(as_frame=True).frame
X = frame[["mean radius", "mean texture", "mean smoothness", "mean concavity",
           "mean symmetry", "worst area", "worst concave points"]]  # fmt: skip
y = frame["target"].map({0: "malignant", 1: "benign"})

clf = TANClassifier().fit(X, y)

# %%
# Each feature's parents, by name (the class is implied):
for feature, parents in zip(X.columns, clf.attribute_parents_, strict=True):
    print(f"{feature:22s} <- {[X.columns[p] for p in parents]}")

# %%
# The same structure as a picture. ``clf.to_networkx()`` gives the graph itself.
plot_network(clf)
plt.show()

# %%
# In a notebook, the fitted classifier shows itself: scikit-learn's parameter box,
# then the learned network (the class in the middle, the attribute edges drawn) and
# its main facts. (``clf.edge_names_`` lists the same edges by name.)
print(clf.edge_names_[0])
clf
