"""
Why this class? Edge contributions of one prediction
====================================================

A tree-structured classifier's decision is a sum of terms: the class prior, one term per
observed feature and one per edge (eq. 6 of Tan et al. 2010). For a binary
discriminative tree pair, :func:`~discotree.explain.edge_contributions` returns each
term's share of the log-likelihood ratio of one sample; they add up to
``decision_function``. Missing features are summed out, so their terms vanish.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer

from discotree import DiscriminativeTreeClassifier
from discotree.explain import edge_contributions
from discotree.plotting import plot_edge_contributions

data = load_breast_cancer(as_frame=True)
X, y = data.data.iloc[:, :10], data.target.map({0: "malignant", 1: "benign"})
clf = DiscriminativeTreeClassifier().fit(X, y)

sample = X.iloc[[20]]
terms = edge_contributions(clf, sample)
print("sum of the terms:", round(sum(terms.values()), 6))
print("decision_function:", np.round(clf.decision_function(sample), 6))

# %%
# The largest terms: blue ones push towards the second class, red ones towards the
# first.
plot_edge_contributions(clf, sample, top=10)
plt.tight_layout()
plt.show()
