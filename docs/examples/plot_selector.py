"""
Choosing m and K without labels
===============================

:class:`fsclust.selection.LabelFreeSelector` ranks the features, clusters resampled subsets
of the samples on the top-m features for several K, and chooses the (m, K) whose clusterings
agree best across subsets. Here the data are three Gaussian clusters in 2 features hidden
among 18 noise features; the labels are used only to check the answer.
"""

import matplotlib.pyplot as plt

from fsclust.datasets.synthetic import make_blobs_with_irrelevant
from fsclust.metrics import clustering_accuracy
from fsclust.selection import LabelFreeSelector

blobs = make_blobs_with_irrelevant(n_samples=90, n_clusters=3, n_relevant=2, n_irrelevant=18,
                                   random_state=2)
X, y = blobs.X, blobs.y

selector = LabelFreeSelector(
    method="laplacian",
    n_features_grid=[2, 5, 10, 20],
    n_clusters_range=[2, 3, 4, 5],
    n_resamples=10,
    random_state=0,
).fit(X)
print(f"chosen m = {selector.n_features_}, K = {selector.n_clusters_}")
print("selected features:", selector.get_support(indices=True))
print(f"ACC against the hidden labels: {clustering_accuracy(y, selector.labels_):.2f}")

# %%
# The criterion for every (m, K): the stability of the clusterings (1 = the subsets' clusterings
# always agree, about 0 = no better than chance), with its standard error.
criteria = selector.criteria_
fig, ax = plt.subplots(figsize=(6, 3.5))
for k, rows in criteria.groupby("n_clusters"):
    ax.errorbar(rows["n_features"], rows["stability"], yerr=rows["stability_se"],
                marker="o", capsize=3, label=f"K = {k}")
ax.axvline(selector.n_features_, color="k", ls="--", lw=1, label="chosen m")
ax.set_xscale("log")
ax.set_xlabel("m, the number of selected features")
ax.set_ylabel("stability")
ax.legend(fontsize=8)
fig.tight_layout()
