"""
Exporting to pyAgrum, checked by its exact inference
====================================================

:func:`~discotree.io.write_xmlbif` writes a fitted TAN classifier as one Bayesian
network whose class node is a parent of every feature. pyAgrum (an independent engine)
loads it, and its exact inference (``LazyPropagation``) gives the posterior of the class
given the observed features. Here a third of the test cells are missing: pyAgrum sums
them out from the network, discotree from its own model, and the two posteriors agree
to rounding.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pyagrum as gum
from sklearn.datasets import load_breast_cancer

from discotree import TANClassifier
from discotree.io import evidence_of, write_xmlbif

data = load_breast_cancer(as_frame=True)
X, y = data.data.iloc[:, :8], data.target
clf = TANClassifier(alpha=1.0).fit(X, y)

test = X.iloc[::5].copy()
hidden = np.random.default_rng(0).random(test.shape) < 1 / 3
test = test.mask(hidden)  # NaN: missing

folder = Path(tempfile.mkdtemp())
path = write_xmlbif(clf, folder / "tumours.bifxml")[0]
bn = gum.loadBN(str(path))
theirs = []
for evidence in evidence_of(clf, test):
    inference = gum.LazyPropagation(bn)
    inference.setEvidence(evidence)
    inference.makeInference()
    theirs.append(inference.posterior("class").toarray()[1])
ours = clf.predict_proba(test)[:, 1]
print(f"largest difference over {len(ours)} rows: {np.abs(ours - np.array(theirs)).max():.1e}")

# %%
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.plot([0, 1], [0, 1], color="0.7", linewidth=1)
ax.scatter(ours, theirs, s=14)
ax.set_xlabel("discotree: P(benign | observed features)")
ax.set_ylabel("pyAgrum LazyPropagation on the exported network")
ax.set_title("the same posteriors, a third of the cells missing")
plt.show()
