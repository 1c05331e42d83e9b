"""
Feature selection under a shared cost
=====================================

Narasimhan & Bilmes (2005, Section 2.1) choose the feature set S minimising
``k c(S) - g(S)`` by the submodular-supermodular procedure, for a submodular cost c.
The useful case is a cost shared by groups of features: a lab panel, a sensor or a
query that returns several columns at once costs the same whichever of its columns are
used. Here the 13 wine measurements come in three panels of equal price;
:class:`~discotree.GroupCost` charges each panel once. The same selector with a cost
per feature of the same total spreads its choice over the panels and pays for more of
them.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine
from sklearn.model_selection import cross_val_score

from discotree import GroupCost, NaiveBayesClassifier, SubmodularFeatureSelector

X, y = load_wine(return_X_y=True)
panels = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11, 12]]
costs = {
    "one price per panel": GroupCost(panels),
    "the same total, per feature": np.full(X.shape[1], len(panels) / X.shape[1]),
}
weights = [0.01, 0.03, 0.1, 0.3]
used, accuracy = {}, {}
for name, cost in costs.items():
    used[name], accuracy[name] = [], []
    for k in weights:
        support = SubmodularFeatureSelector(cost=cost, cost_weight=k).fit(X, y).support_
        used[name].append(sum(bool(support[p].any()) for p in panels))
        score = cross_val_score(NaiveBayesClassifier(), X[:, support], y, cv=5).mean()
        accuracy[name].append(score)
        print(f"{name:28s} k={k:<5} features {np.flatnonzero(support)} accuracy {score:.3f}")

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
for name in costs:
    left.plot(weights, used[name], marker="o", label=name)
    right.plot(weights, accuracy[name], marker="o", label=name)
left.set(xscale="log", xlabel="cost weight k", ylabel="panels paid for", yticks=[1, 2, 3])
right.set(xscale="log", xlabel="cost weight k", ylabel="5-fold accuracy (naive Bayes)")
left.legend()
plt.tight_layout()
plt.show()
