"""
Learning in batches gives the model of one fit
==============================================

Naive Bayes, Chow-Liu, TAN-CMI and discriminative trees learn from sums over rows, so
they can learn from data of any size a batch at a time (``partial_fit``, the command
line's ``--data`` streaming, Dask) with the result of one in-memory fit. Here 200,000
rows arrive in batches of growing number: the model after the last batch predicts the
same probabilities as ``fit`` on all rows, and the time grows linearly with the rows.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

from discotree import TANClassifier
from discotree.datasets import random_binary_trees

n_per_class = 100_000
X, y, _ = random_binary_trees(n_features=30, n_per_class=n_per_class, random_state=0)
X, y = X.to_numpy(), y.to_numpy()
order = np.random.default_rng(0).permutation(len(y))
X, y = X[order], y[order]

full = TANClassifier(alpha=1.0).fit(X, y)
batch_counts = [1, 4, 16, 64]
seconds, differences = [], []
for n_batches in batch_counts:
    start = time.perf_counter()
    clf = TANClassifier(alpha=1.0)
    for rows in np.array_split(np.arange(len(y)), n_batches):
        clf.partial_fit(X[rows], y[rows], classes=[0, 1])
    clf.partial_fit()  # learn the structure now
    seconds.append(time.perf_counter() - start)
    differences.append(np.abs(clf.predict_proba(X[:1000]) - full.predict_proba(X[:1000])).max())
    print(f"{n_batches:3d} batches: {seconds[-1]:.2f} s, largest difference {differences[-1]:.1e}")

# %%
# The time of a whole pass by number of rows (one batch), to see it grow linearly.
sizes = np.linspace(len(y) // 8, len(y), 5).astype(int)
times = []
for n in sizes:
    start = time.perf_counter()
    TANClassifier(alpha=1.0).fit(X[:n], y[:n])
    times.append(time.perf_counter() - start)

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
left.plot(batch_counts, seconds, marker="o")
left.set(xscale="log", xlabel="number of batches", ylabel="seconds (all batches)",
         title="partial_fit, same model every time")  # fmt: skip
left.set_xticks(batch_counts, [str(b) for b in batch_counts])
left.minorticks_off()
right.plot(sizes, times, marker="o")
right.set(xlabel="rows", ylabel="seconds", title="fit time grows linearly")
plt.tight_layout()
plt.show()
