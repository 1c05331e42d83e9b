"""
Forest density classifier on non-Gaussian forests (Dorn et al.)
===============================================================

Dorn, Moscovich, Nadler & Spiegelman classify numeric data whose classes are forest
graphical models with arbitrary marginals: the logs of all univariate and bivariate
kernel density estimates of each class are the features of a linear SVM (eq. 4 and
6). Here two classes of 10 features with heavy-tailed (t3) marginals, as their
Section 5.1; its balanced error against linear discriminant analysis, Gaussian naive
Bayes and kernel naive Bayes as the training set grows (``discotree reproduce
dorn-synthetic`` runs their grid).
"""

import matplotlib.pyplot as plt
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.metrics import balanced_accuracy_score
from sklearn.naive_bayes import GaussianNB

from discotree import ForestDensityClassifier, KernelNaiveBayesClassifier
from discotree.datasets import forest_classes, sample_forest_classes

classes = forest_classes(10, marginal="t3", random_state=0)
X_test, y_test = sample_forest_classes(classes, 4000, random_state=1)
sizes = [100, 200, 400, 800]
models = {
    "forest density": ForestDensityClassifier,
    "kernel naive Bayes": KernelNaiveBayesClassifier,
    "Gaussian naive Bayes": GaussianNB,
    "LDA": LinearDiscriminantAnalysis,
}
errors = {name: [] for name in models}
for n in sizes:
    X, y = sample_forest_classes(classes, n, random_state=2)
    for name, make in models.items():
        predicted = make().fit(X, y).predict(X_test)
        errors[name].append(1 - balanced_accuracy_score(y_test, predicted))
    print(n, {name: round(values[-1], 3) for name, values in errors.items()})

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8))
for name, values in errors.items():
    ax.plot(sizes, values, marker="o", label=name)
ax.set(xscale="log", xlabel="training samples", ylabel="balanced error")
ax.set_xticks(sizes, [str(n) for n in sizes])
ax.minorticks_off()
ax.legend()
plt.tight_layout()
plt.show()
