"""Spectral clustering fitted once and relabelled per seed: ``relabel(seed)`` is a fit with that
seed, so a sweep that relabels writes the bytes of one that refits."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits

from fsclust import steps
from fsclust.cluster import SpectralClustering
from fsclust.cluster.tags import relabels
from fsclust.datasets import Dataset, save_dataset
from fsclust.graphs import squared_distances
from fsclust.steps.sweep import run_sweep

SEEDS = range(6)


def _digits(n=150):
    """Handwritten digits 0-4: real data on which the final k-means depends on its seed."""
    X, y = load_digits(n_class=5, return_X_y=True)
    return X[:n], y[:n]


@pytest.mark.parametrize("laplacian", ["unnormalized", "rw", "sym"])
def test_relabel_is_a_fit_with_that_seed_on_the_dense_rbf_graph(laplacian):
    X, _ = _digits()
    params = dict(n_clusters=5, laplacian=laplacian, n_init=1)
    model = SpectralClustering(**params, random_state=100).fit(X)
    fits = [SpectralClustering(**params, random_state=s).fit(X).labels_ for s in SEEDS]
    for seed, labels in zip(SEEDS, fits):
        np.testing.assert_array_equal(model.relabel(seed), labels)
    # the seeds matter here, so the equality above is not that of one partition
    assert any(not np.array_equal(fits[0], labels) for labels in fits[1:])


def test_relabel_is_a_fit_with_that_seed_from_given_distances():
    X, _ = _digits()
    D2 = squared_distances(X)
    model = SpectralClustering(n_clusters=5, n_init=1, random_state=3).fit(X, sq_distances=D2)
    for seed in SEEDS:
        fit = SpectralClustering(n_clusters=5, n_init=1, random_state=seed).fit(X, sq_distances=D2)
        np.testing.assert_array_equal(model.relabel(seed), fit.labels_)


def test_relabel_takes_a_random_state_instance_as_fit_does():
    X, _ = _digits()
    model = SpectralClustering(n_clusters=5, n_init=1, random_state=0).fit(X)
    fit = SpectralClustering(n_clusters=5, n_init=1, random_state=np.random.RandomState(9)).fit(X)
    np.testing.assert_array_equal(model.relabel(np.random.RandomState(9)), fit.labels_)


def test_only_the_rbf_graph_relabels():
    # a kNN or precomputed graph may be sparse, and above 2000 samples ARPACK then starts from
    # the first seed fit draws: the embedding depends on it, so such a model is refitted
    assert relabels(SpectralClustering())
    assert not relabels(SpectralClustering(affinity="knn"))
    assert not relabels(SpectralClustering(affinity="precomputed"))


NJW = {"njw": {"method": "njw", "params": {"n_init": 1}}}


@pytest.mark.slow  # a whole sweep, twice
def test_a_sweep_that_relabels_gives_the_partitions_of_one_that_refits():
    X, y = _digits()
    rng = np.random.default_rng(0)
    ranking = rng.permutation(X.shape[1])
    # the first block of 4 in another order: the same sums, so one fit serves both
    reordered = np.concatenate([ranking[:4][::-1], ranking[4:]])
    # the same top-8 set over other blocks (4 <-> 5): other round-off, so the cache must not
    # take one for the other
    swapped = ranking.copy()
    swapped[[3, 4]] = ranking[[4, 3]]
    grid = [4, 8, 16, 64]
    fitted = {}
    for seed in SEEDS:
        for order in (ranking, reordered, swapped):
            kwargs = dict(n_clusters=5, random_states={"njw": seed})
            cached = run_sweep(X, y, order, grid, NJW, fitted=fitted, **kwargs)
            fresh = run_sweep(X, y, order, grid, NJW, **kwargs)
            pd.testing.assert_frame_equal(cached, fresh)
    # one fit per m below d for the ranking and for the swapped one, one at m = d for all
    assert len(fitted) == 3 + 3 + 1


@pytest.fixture
def digits_file(tmp_path):
    X, y = _digits(120)
    path = tmp_path / "digits.npz"
    save_dataset(Dataset(X=X, y=y, feature_names=[f"p{j}" for j in range(X.shape[1])],
                         sample_names=[f"s{i}" for i in range(len(y))],
                         class_names=[str(c) for c in range(5)]), path)
    return path


def _evaluate(data, out, time_limit_s=None):
    steps.evaluate(str(data), str(out / "sweep.tsv"), dataset="digits",
                   methods={"laplacian": {"method": "laplacian"},
                            "random": {"method": "random"}},
                   rankings_dir=str(out / "rankings"), seeds=list(SEEDS),
                   clusterers={**NJW, "kmeans": {"method": "kmeans", "params": {"n_init": 2}}},
                   grid_spec=[{"fraction": 0.05}, {"fraction": 0.5}], metrics=["acc", "nmi"],
                   baseline=True, nested=True, time_limit_s=time_limit_s)
    return (out / "sweep.tsv").read_bytes()


@pytest.mark.parametrize("time_limit_s", [None, 30])
@pytest.mark.slow  # the evaluate step end to end, twice
def test_the_evaluate_step_writes_the_same_bytes_relabelling_or_refitting(
        digits_file, tmp_path, monkeypatch, time_limit_s):
    fit, calls = SpectralClustering.fit, []
    monkeypatch.setattr(SpectralClustering, "fit",
                        lambda self, *a, **k: calls.append(1) or fit(self, *a, **k))
    relabelled = _evaluate(digits_file, tmp_path / "relabel", time_limit_s)
    n_relabelled = len(calls)
    monkeypatch.setattr("fsclust.steps.sweep.relabels", lambda model: False)
    assert _evaluate(digits_file, tmp_path / "refit", time_limit_s) == relabelled
    # per seed, NJW clusters 5 selections: the shared Laplacian ranking's 2 points, the
    # random ranking's 2 and all features; relabelling fits the 3 that recur once
    assert len(calls) - n_relabelled == len(SEEDS) * 5
    assert n_relabelled == 3 + len(SEEDS) * 2
