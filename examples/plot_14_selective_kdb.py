"""
Selective kDB: attributes and k chosen by leave-one-out
=======================================================

:class:`~discotree.KDBClassifier` ranks the attributes by I(X; C), gives each up to
``k`` parents, and scores every nested model (the first ``s`` attributes, at most ``q``
parents each) by its leave-one-out loss, computed from the counts with each row taken
out: no refit (Martinez, Webb, Chen & Zaidi 2016). Here the leave-one-out RMSE of every
``(s, q)`` on breast-cancer data, the chosen one marked, and the held-out accuracy of
the selective model beside kDB with all attributes, A1DE, A2DE and the ensemble.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from discotree import AODEClassifier, KDBClassifier, KDBEnsembleClassifier, TANClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

selective = KDBClassifier(k=5, smoothing="hierarchical").fit(X_train, y_train)
print("chosen:", selective.n_attributes_, "attributes,", selective.k_, "parents")
for model in (
    TANClassifier(),
    KDBClassifier(k=5, selective=False, smoothing="hierarchical"),
    selective,
    AODEClassifier(),
    AODEClassifier(n_super_parents=2),
    KDBEnsembleClassifier(n_estimators=5),
):
    if model is not selective:
        model.fit(X_train, y_train)
    label = type(model).__name__ + ("(2)" if getattr(model, "n_super_parents", 1) == 2 else "")
    print(f"{label:>25}: {model.score(X_test, y_test):.3f}")
# the ensemble's weights, chosen per fit by held-out log-loss: its linear member's and
# its pair member's (a logistic model of every pair of columns), pooled last
print(f"ensemble weights: linear {model.linear_weight_:.2f}, pairs {model.pair_weight_:.2f}")

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8))
image = ax.imshow(selective.selection_losses_.T, aspect="auto", origin="lower", cmap="viridis")
ax.plot(selective.n_attributes_, selective.k_, marker="x", color="white", markersize=10)
ax.set(xlabel="attributes in use (s)", ylabel="parents (q)",
       title="leave-one-out RMSE of every nested model")  # fmt: skip
fig.colorbar(image, ax=ax)
plt.tight_layout()
plt.show()
