"""
A paper figure: LLC-fs weights on two digits (Zeng & Cheung 2009, Fig. 1)
===========================================================================

LLC-fs learns one weight ``tau`` per feature while it clusters. The paper's Figure 1 shows,
for the USPS digits 4 and 9, the sorted weights and the best pixels over each digit's mean
image: the pixels where the two digits differ. The workflow draws it on USPS (target
``zeng2009``); here it is drawn on scikit-learn's 8 x 8 digits, the small stand-in the
workflow's quick sets use (``digits-4v9``), with the function the workflow calls.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from fsclust.papers.zeng2009 import plot_figure1
from fsclust.rankers.llcfs import LLCFS

digits = load_digits()
keep = np.isin(digits.target, [4, 9])
X, y = digits.data[keep] / 16.0, digits.target[keep]  # the pixels to [0, 1], as USPS's

llcfs = LLCFS(n_clusters=2, n_neighbors=30, lam=1.0, random_state=0).fit(X)
images = {str(d): X[y == d].mean(axis=0) for d in (4, 9)}

# %%
# ``plot_figure1`` writes the figure to a file, as a workflow rule does; shown here from it.
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "figure1.png"
    plot_figure1({"digits-4v9": llcfs.scores_}, {"digits-4v9": images}, 8, path)
    image = plt.imread(path)
fig, ax = plt.subplots(figsize=(9.5, 3.2))
ax.imshow(image)
ax.axis("off")
fig.tight_layout()
