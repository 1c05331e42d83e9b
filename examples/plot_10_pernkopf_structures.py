"""
Generative and discriminative structures of TAN (Pernkopf & Bilmes 2010)
========================================================================

Pernkopf & Bilmes compare Bayesian network classifiers whose structure is chosen by the
conditional mutual information (TAN-CMI), by a greedy search on the training
classification rate (TAN-CR), or by their cheap order-based heuristic (TAN-OMI-CR:
order the features by conditional mutual information, then let each choose its parent
among its predecessors by the classification rate; Algorithm 1), with maximum likelihood
(ML) or conditional log-likelihood (CL) parameters. Their Table 1: the discriminative
structures are more accurate, OMI-CR nearly as accurate as CR at a fraction of the
search. Here 5-fold accuracy and structure time on two small sets (``discotree
reproduce pernkopf-uci`` runs the paper's 25 sets).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import StratifiedKFold, cross_validate

from discotree import Discretizer, TANClassifier

configurations = {
    "NB-ML": {"k": 0},
    "TAN-CMI-ML": {"structure": "cmi"},
    "TAN-OMI-CR-ML": {"structure": "omi-cr"},
    "TAN-CR-ML": {"structure": "cr"},
    "TAN-OMI-CR-CL": {"structure": "omi-cr", "parameters": "cl", "cl_max_iter": 30},
}
folds = StratifiedKFold(5, shuffle=True, random_state=0)
results = {}
for set_name, load in [("wine", load_wine), ("breast cancer", load_breast_cancer)]:
    X, y = load(return_X_y=True)
    for name, params in configurations.items():
        model = TANClassifier(alpha=1.0, discretizer=Discretizer(method="mdl"), **params)
        cv = cross_validate(model, X, y, cv=folds, return_estimator=True)
        seconds = np.mean([m.structure_seconds_ for m in cv["estimator"]])
        results[set_name, name] = (cv["test_score"].mean(), seconds)
        print(f"{set_name:14s} {name:14s} accuracy {cv['test_score'].mean():.3f}"
              f"  structure {1000 * seconds:7.1f} ms")  # fmt: skip

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
names = list(configurations)
for offset, set_name in enumerate(["wine", "breast cancer"]):
    accuracy = [results[set_name, n][0] for n in names]
    seconds = [results[set_name, n][1] for n in names]
    positions = np.arange(len(names)) + 0.4 * offset
    axes[0].bar(positions, accuracy, width=0.4, label=set_name)
    axes[1].bar(positions, np.maximum(seconds, 1e-5), width=0.4, label=set_name)
for ax in axes:
    ax.set_xticks(np.arange(len(names)) + 0.2, names, rotation=30, ha="right")
axes[0].set(ylim=(0.85, 1.0), ylabel="5-fold accuracy")
axes[1].set(yscale="log", ylabel="structure search (s)")
axes[0].legend()
plt.tight_layout()
plt.show()
