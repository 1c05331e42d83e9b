"""
Missing features: summed out, not imputed
=========================================

discotree's models never impute: a feature missing at prediction time is summed out of
the model, so the prediction is the posterior given the observed features. Here we hide
a growing share of the test cells and compare TAN and naive Bayes (summing out) with the
same TAN behind a most-frequent imputer, and with scikit-learn's histogram gradient
boosting, which has its own missing-value rule (Pernkopf & Bilmes 2010, Section 6.6,
study the same question: ``discotree reproduce pernkopf-missing``).
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from discotree import NaiveBayesClassifier, TANClassifier
from discotree.plotting import plot_missing_robustness

X, y = load_digits(return_X_y=True)
X = (X > 7).astype(float)  # binarised 8 x 8 digits
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

models = {
    "TAN, summed out": TANClassifier(),
    "naive Bayes, summed out": NaiveBayesClassifier(),
    "TAN after imputation": make_pipeline(SimpleImputer(strategy="most_frequent"), TANClassifier()),
    "gradient boosting": HistGradientBoostingClassifier(max_iter=50, random_state=0),
}
for model in models.values():
    model.fit(X_train, y_train)

# %%
# The same hidden cells for every model, nested as the fraction grows.
ax = plot_missing_robustness(models, X_test, y_test, fractions=(0.0, 0.2, 0.4, 0.6, 0.8))
ax.set_title("binarised digits, features hidden at test time")
plt.tight_layout()
plt.show()
