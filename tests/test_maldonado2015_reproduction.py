"""Causes of the differences from Maldonado et al. 2015 that concern the data and the tables
(config/reproduction/maldonado2015.yaml); KP-Kmeans' own are in test_kpkmeans_reproduction.py."""

from pathlib import Path

import numpy as np
import pytest

from _mirror import MIRROR, needs_mirror
from fsclust.datasets import get_entry, load_catalog, prepare

# the slow tier: a paper's claims tested on the mirror's real data
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]

# Maldonado et al. 2015, Table 2: (#examples, #variables, #classes)
TABLE2 = {"maldonado-lung-substitute": (203, 3312, 5), "maldonado-mll-substitute": (72, 5848, 3)}


@needs_mirror
@pytest.mark.parametrize("dataset", sorted(TABLE2))
def test_lung_and_mll_substitutes_differ_from_table2_in_genes(dataset):
    # Cause lung-mll-substitutes: the paper's LUNG and MLL (Yang et al. 2006 versions) are not
    # public; the stand-ins have the same samples and classes but other, fewer genes.
    entry = get_entry(load_catalog(REPO / "config" / "datasets.tsv"), dataset)
    assert entry.substitute
    ds = prepare(entry, [MIRROR / f for f in entry.files])
    n, d, c = TABLE2[dataset]
    assert ds.X.shape[0] == n and len(np.unique(ds.y)) == c
    assert ds.X.shape[1] < 0.5 * d  # LUNG 1543 of 3312 genes, MLL 2194 of 5848



def test_one_kernel_kmeans_run_on_iris_spreads_over_the_papers_table3_values():
    # Cause single-run-spread-iris: Table 3's ACC is one run of kernel k-means from one random
    # initialisation (Algorithm 1). On the two features our SPEC ranks first on Iris (the
    # petals) single runs span 56.0-96.0, so the paper's SPEC 66.7 and MCFS 56.0 are values a
    # single run gives; ours are means of 10 runs.
    from sklearn.datasets import load_iris

    from fsclust.metrics import clustering_accuracy
    from fsclust.registry import make_clusterer, make_ranker

    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    spec = make_ranker("spec", {"style": "phi1", "power": 2}, n_clusters=3).fit(X)
    assert sorted(spec.feature_order_[:2].tolist()) == [2, 3]
    runs = np.array([
        clustering_accuracy(y, make_clusterer(
            "kernel_kmeans", {"sigma": 1.0, "scale": "zscore-sqrt-d", "n_init": 1},
            n_clusters=3, random_state=seed).fit(X[:, [2, 3]]).labels_)
        for seed in range(100)]) * 100
    # 56.0 % of 150 samples is 84 of them: compare with a round-off margin
    assert runs.min() <= 56.0 + 1e-9 and runs.max() >= 94.7 and runs.std() > 10
    assert np.mean(runs < 70) > 0.05  # not a one-off: several runs end in a poor optimum


def test_no_pca_reading_selects_a_wine_subset_whose_runs_reach_the_papers_48_9():
    # Cause wine-pca-not-reproducible: Table 3 gives PCA 48.9 % on Wine at n = 2. The pair
    # that the first principal axis ranks first, under each reading of "PCA" (correlation PCA
    # on z-scored data, ours; covariance PCA on the raw data; PCA of min-max scaled data), and
    # our row's top 3 (n = 3, the n our KP-Kmeans keeps), clustered as Table 3 does (one
    # kernel k-means run, sigma = 1): not one of 40 single runs comes within the 5-point
    # tolerance of 48.9. The value is one the protocol gives on other pairs (ash and
    # magnesium: 51.0 on average), none of which a reading of PCA ranks first.
    from sklearn.datasets import load_wine

    from fsclust.metrics import clustering_accuracy
    from fsclust.registry import make_clusterer, make_ranker

    X, y = load_wine(return_X_y=True)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    M = (X - X.min(axis=0)) / np.ptp(X, axis=0)

    def runs(features, n_runs=40):
        return np.array([
            clustering_accuracy(y, make_clusterer(
                "kernel_kmeans", {"sigma": 1.0, "scale": "zscore-sqrt-d", "n_init": 1},
                n_clusters=3, random_state=seed).fit(Z[:, features]).labels_)
            for seed in range(n_runs)]) * 100

    readings = {
        "correlation PCA, n = 2": (make_ranker("pca", {}, n_clusters=3).fit(Z), 2),
        "correlation PCA, n = 3": (make_ranker("pca", {}, n_clusters=3).fit(Z), 3),
        "covariance PCA, raw": (make_ranker("pca", {"standardize": False}, n_clusters=3).fit(X), 2),
        "min-max PCA": (make_ranker("pca", {"standardize": False}, n_clusters=3).fit(M), 2),
    }
    lowest = {name: runs(sorted(r.feature_order_[:n].tolist())).min()
              for name, (r, n) in readings.items()}
    assert all(v > 48.9 + 5.0 for v in lowest.values()), lowest
    # ...while the protocol itself does produce such values, on a pair no reading picks
    ash_magnesium = runs([2, 4], n_runs=20)
    assert ash_magnesium.mean() < 48.9 + 5.0
