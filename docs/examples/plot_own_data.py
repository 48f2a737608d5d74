"""
Your own expression matrix
==========================

Most expression files have the genes in rows and the samples in columns, with raw counts. This
example builds such a file (a small matrix embedded here: 30 samples of three groups, 40 genes
of which the first 6 mark the groups), then does what ``fsclust select --features-in-rows
--log1p`` does step by step: read, transpose to samples x genes, take ``log1p``, rank the genes
with the Laplacian score and keep the best.
"""

import io

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fsclust.rankers import LaplacianScore

# %%
# A file as a lab would send it: genes in rows, samples in columns, counts.
rng = np.random.default_rng(0)
group = np.repeat([0, 1, 2], 10)
mean = np.full((40, 30), 50.0)
for g in range(3):  # genes 2g and 2g + 1 are ten times higher in group g
    mean[2 * g : 2 * g + 2, group == g] *= 10
counts = rng.poisson(mean)
genes = [f"gene{i:02d}" for i in range(40)]
samples = [f"S{j:02d}" for j in range(30)]
text = pd.DataFrame(counts, index=genes, columns=samples).to_csv(sep="\t")
for line in text.splitlines()[:4]:
    print(line[:60], "...")

# %%
# Read it, put the samples in rows, and log-transform the counts: without the log, a gene's
# variance grows with its mean and the highest-expressed genes dominate every distance.
table = pd.read_csv(io.StringIO(text), sep="\t", index_col=0).T
X = np.log1p(table.to_numpy(dtype=float))
print(X.shape, "(samples x genes)")

# %%
# Rank the genes. ``ranking_`` is each gene's rank (1 = best), ``feature_order_`` the genes
# best first; for the Laplacian score a smaller score is better.
ranker = LaplacianScore(n_neighbors=5).fit(X)
ranking = pd.DataFrame(
    {"feature": table.columns, "score": ranker.scores_, "rank": ranker.ranking_}
).sort_values("rank")
print(ranking.head(8).to_string(index=False))

# %%
# The six marker genes come first. Keep the top 6 and look at them over the samples.
X_top = ranker.set_params(n_features_to_select=6).transform(X)
top = table.columns[ranker.feature_order_[:6]]
fig, ax = plt.subplots(figsize=(7, 2.8))
ax.imshow(X_top.T, aspect="auto", cmap="viridis")
ax.set_yticks(range(6), top)
ax.set_xlabel("sample (ordered by group)")
ax.set_title("log1p expression of the 6 best-ranked genes")
fig.tight_layout()
