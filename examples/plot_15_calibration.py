"""
Recalibrating a fitted model
============================

Naive Bayes multiplies evidence that is not independent, so its probabilities are
too sure of themselves. scikit-learn's ``CalibratedClassifierCV`` with a
``FrozenEstimator`` recalibrates a model that is already fitted, on held-out rows,
without fitting it again: here a sigmoid map (Platt scaling: two parameters, the safe
choice with 142 held-out rows; an isotonic map overfits them) for naive Bayes on the
breast-cancer data, against TAN, whose tree already takes the strongest dependencies
into account. Log-loss on a test set, and the reliability diagrams.
"""

import matplotlib.pyplot as plt
from sklearn.calibration import CalibratedClassifierCV, CalibrationDisplay
from sklearn.datasets import load_breast_cancer
from sklearn.frozen import FrozenEstimator
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from discotree import NaiveBayesClassifier, TANClassifier

X, y = load_breast_cancer(return_X_y=True)
X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, train_size=0.5, random_state=0)
X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, train_size=0.5, random_state=0)

nb = NaiveBayesClassifier(alpha=1.0).fit(X_fit, y_fit)
tan = TANClassifier(alpha=1.0).fit(X_fit, y_fit)
calibrated = CalibratedClassifierCV(FrozenEstimator(nb), method="sigmoid").fit(X_cal, y_cal)
models = {"naive Bayes": nb, "naive Bayes, recalibrated": calibrated, "TAN": tan}
for name, model in models.items():
    print(f"{name:28s} test log-loss {log_loss(y_test, model.predict_proba(X_test)):.3f}")

# %%
fig, ax = plt.subplots(figsize=(5.5, 4.5))
for name, model in models.items():
    CalibrationDisplay.from_estimator(model, X_test, y_test, n_bins=6, name=name, ax=ax)
ax.set_title("Reliability on the test rows")
plt.tight_layout()
plt.show()
