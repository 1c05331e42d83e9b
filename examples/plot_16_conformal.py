"""
Prediction sets with guaranteed coverage (MAPIE)
================================================

A conformal predictor turns any fitted classifier's probabilities into *sets* of
classes that contain the true class with a chosen probability, whatever the model,
provided the calibration rows and the new rows are exchangeable. MAPIE's
``SplitConformalClassifier`` does it for a model already fitted (``prefit=True``): its
``conformalize`` step uses held-out rows only. Here a TAN classifier on the digits
(8 x 8 images, 10 classes), at 90 % and 99 % confidence: the coverage measured on test
rows, and how many classes a set holds when the model is unsure (``pip install
mapie``; the docs extra installs it).

Beside it, discotree's own ``predict_uncertainty``: the knowledge uncertainty of the
rows whose sets hold more than one class against those whose sets hold one.
"""

import matplotlib.pyplot as plt
import numpy as np
from mapie.classification import SplitConformalClassifier
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from discotree import TANClassifier

X, y = load_digits(return_X_y=True)
X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, train_size=0.5, random_state=0)
X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, train_size=0.5, random_state=0)

tan = TANClassifier().fit(X_fit, y_fit)
conformal = SplitConformalClassifier(tan, confidence_level=[0.9, 0.99], prefit=True)
conformal.conformalize(X_cal, y_cal)
_, sets = conformal.predict_set(X_test)  # (rows, classes, confidence levels)

for k, level in enumerate((0.9, 0.99)):
    covered = sets[np.arange(len(y_test)), np.searchsorted(tan.classes_, y_test), k]
    sizes = sets[:, :, k].sum(axis=1)
    print(
        f"confidence {level:.2f}: coverage {covered.mean():.3f} on {len(y_test)} test rows, "
        f"mean set size {sizes.mean():.2f}, {np.mean(sizes > 1):.1%} of sets hold 2+ classes"
    )
print(f"TAN alone: accuracy {tan.score(X_test, y_test):.3f}")

# %%
# Rows with larger sets are the ones the model knows less about: their knowledge
# uncertainty (from the Dirichlet posteriors of the tables) is higher.
uncertainty = tan.predict_uncertainty(X_test, n_draws=50)
size_99 = sets[:, :, 1].sum(axis=1)
fig, ax = plt.subplots(figsize=(6, 4))
groups = [uncertainty.knowledge[size_99 == 1], uncertainty.knowledge[size_99 > 1]]
ax.boxplot(groups, tick_labels=["one class", "two or more"])
ax.set_xlabel("size of the 99 % prediction set")
ax.set_ylabel("knowledge uncertainty (nats)")
ax.set_title("TAN on digits: conformal sets and posterior uncertainty")
plt.tight_layout()
plt.show()
