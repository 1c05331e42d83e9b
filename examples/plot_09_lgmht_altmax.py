"""
LGMHT-proj and LGMHT-altmax (Sanghavi et al. 2007, Fig. 1-2)
============================================================

Sanghavi, Tan & Willsky learn the two tree structures for discrimination (eq. 4) and
then either project each class's empirical distribution on its tree (LGMHT-proj) or
learn the parameters by alternating convex minimisations of a Chernoff-type bound on
the training error (LGMHT-altmax, Lemmas 3.1-3.4). The paper finds altmax better on the
training samples and worse on new samples. Two random binary tree distributions over 20
variables (Section 4's generator with parameters in [0.3, 0.7]), K training samples per
class, averaged over a few draws (``discotree reproduce sanghavi-random-trees`` runs the
full experiment).
"""

import matplotlib.pyplot as plt
import numpy as np

from discotree import ChowLiuClassifier, DiscriminativeTreeClassifier
from discotree.datasets import random_binary_trees

sizes = [10, 20, 40, 80]
seeds = range(6)
models = {
    "Chow-Liu": lambda: ChowLiuClassifier(alpha=1.0),
    "LGMHT-proj": lambda: DiscriminativeTreeClassifier(alpha=1.0),
    "LGMHT-altmax": lambda: DiscriminativeTreeClassifier(alpha=1.0, parameters="altmax"),
}
train_error = {name: np.zeros(len(sizes)) for name in models}
test_error = {name: np.zeros(len(sizes)) for name in models}
for seed in seeds:
    _, _, truth = random_binary_trees(20, 1, random_state=seed, parameter_range=(0.3, 0.7))
    X_test, y_test, _ = random_binary_trees(20, 2000, random_state=100 + seed, models=truth)
    for i, k in enumerate(sizes):
        X, y, _ = random_binary_trees(20, k, random_state=200 + seed, models=truth)
        for name, make in models.items():
            clf = make().fit(X, y)
            train_error[name][i] += (1 - clf.score(X, y)) / len(seeds)
            test_error[name][i] += (1 - clf.score(X_test, y_test)) / len(seeds)

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), sharex=True)
for name in models:
    left.plot(sizes, test_error[name], marker="o", label=name)
    right.plot(sizes, train_error[name], marker="o", label=name)
left.set(xscale="log", xlabel="training samples per class K", ylabel="test error",
         title="new samples (Fig. 1)")  # fmt: skip
right.set(xscale="log", xlabel="training samples per class K", ylabel="training error",
          title="training samples (Fig. 2)")  # fmt: skip
for ax in (left, right):
    ax.set_xticks(sizes, [str(k) for k in sizes])
    ax.minorticks_off()
left.legend()
plt.tight_layout()
plt.show()
