"""
Boosting discriminative trees (Tan et al. 2010, Fig. 7)
=======================================================

Algorithm 2 of Tan et al. boosts pairs of tree models learnt from weighted data
(Real-AdaBoost with an exact line search). Each round adds a forest pair; the ensemble
is a likelihood ratio of two models that are Markov on the union of the rounds' edges
(Proposition 7). The staged training and test errors show the boosting curve
(``discotree reproduce tan-boosting-curves`` for the paper's MNIST pairs).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from discotree import BoostedGraphicalModelClassifier
from discotree.plotting import plot_boosting_curve

X, y = load_digits(return_X_y=True)
pair = np.isin(y, [1, 7])
X, y = (X[pair] > 7).astype(float), y[pair]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

clf = BoostedGraphicalModelClassifier(base="dt", n_estimators=20, alpha=1.0)
clf.fit(X_train, y_train)
print("rounds:", clf.n_estimators_, "edges in the union per class:",
      [len(edges) for edges in clf.edges_union_])  # fmt: skip

# %%
ax = plot_boosting_curve(clf, X_train, y_train, X_test, y_test)
ax.set_title("BGMC on digits 1 vs 7")
plt.tight_layout()
plt.show()
