"""One job of the ``selection`` experiment: the label-free choice of m and K, and its scores.

:func:`select_and_score` fits a :class:`~fsclust.selection.LabelFreeSelector` on a dataset
*without its labels* and keeps its ``criteria_`` table; then, with the labels, it scores every
(m, K) the selector could have chosen, and the true K too, for the method's ranking, for the
``random`` ranker's (the control) and for all features, so that
:mod:`fsclust.studies.selection.report` can compare what each criterion chose with the best m.
"""

from __future__ import annotations

import inspect
import logging

import numpy as np
import pandas as pd

from fsclust.metrics import evaluate as evaluate_metrics
from fsclust.rankers.base import selected_features
from fsclust.registry import ALL_FEATURES, make_clusterer, make_ranker, ranker_class
from fsclust.steps.seeds import derive_seed
from fsclust.selection import LabelFreeSelector, cluster_space

log = logging.getLogger(__name__)

#: The ranker names of the baselines in the scores table (``random`` is the registry's
#: control ranker; :data:`fsclust.registry.ALL_FEATURES` clusters every feature).
RANDOM = "random"
#: The all-features control draws its clusterings from the stream of its former name, "all"
#: (renamed to :data:`fsclust.registry.ALL_FEATURES` in issue 38): the same partitions.
_SEED_KEYS = {ALL_FEATURES: "all"}
#: The settings of a ``selection`` config block that :func:`select_and_score` takes.
SETTINGS = ("n_resamples", "subsample", "seed", "n_features_grid", "n_clusters_range",
            "null_reference", "metrics")
#: The fixed share of the features of the "10 %" baseline.
FIXED_SHARE = 0.1


def fixed_share_count(n_features, share=FIXED_SHARE):
    """The number of features a fixed ``share`` keeps: at least one.

    Examples
    --------
    >>> fixed_share_count(2000), fixed_share_count(4)
    (200, 1)
    """
    return max(1, int(round(share * n_features)))


def _takes_n_clusters(method):
    return "n_clusters" in inspect.signature(ranker_class(method).__init__).parameters


def _score_ranking(X, y, ranker_name, params, grid, ks, *, seed, clusterer, clusterer_params,
                   metrics):
    """Rank all samples with ``ranker_name`` (once, or once per K when it takes the number of
    clusters) and cluster its top m into K groups for every (m, K): one row each."""
    rows = []
    per_k = _takes_n_clusters(ranker_name)
    ranker = None
    for k in ks:
        if ranker is None or per_k:
            ranker = make_ranker(ranker_name, params, n_clusters=k if per_k else None,
                                 random_state=seed).fit(X)
        for m in grid:
            rows.append(_score_subset(X, y, np.sort(selected_features(ranker, m)), k,
                                      seed=seed, clusterer=clusterer,
                                      clusterer_params=clusterer_params, metrics=metrics))
    return rows


def _score_subset(X, y, columns, k, *, seed, clusterer, clusterer_params, metrics):
    model = make_clusterer(clusterer, clusterer_params, n_clusters=int(k), random_state=seed)
    labels = model.fit_predict(cluster_space(X[:, columns]))
    return {"n_features": len(columns), "n_clusters": int(k),
            **evaluate_metrics(y, labels, metrics)}


def select_and_score(X, y, *, dataset, method, method_params=None, n_resamples=30,
                     subsample=0.8, seed=0, n_features_grid=None, n_clusters_range=None,
                     null_reference=False, metrics=("acc", "nmi", "ari")):
    """Fit the label-free selector on ``X`` and score its grid with the labels ``y``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        The true classes: used to score, never passed to the selector.
    dataset, method : str
        The dataset id and a registered ranker; with ``seed`` they derive every random state
        (:func:`fsclust.steps.seeds.derive_seed`), so a job's result does not depend on the others.
    method_params : dict, default=None
    n_resamples, subsample :
        The selector's ``n_resamples`` and ``subsample``.
    seed : int, default=0
    n_features_grid, n_clusters_range : array-like of int, default=None
        The selector's grids; None: its defaults (about 10 m from 5 to d, K from 2 to 10).
    null_reference : bool, default=False
        The selector's: also the ``excess`` criterion, at twice the clusterings.
    metrics : sequence of str, default=("acc", "nmi", "ari")

    Returns
    -------
    criteria : pandas.DataFrame
        The selector's ``criteria_``, with ``dataset`` and ``method`` first and the K of its
        eigengap (``eigengap_n_clusters``) last.
    scores : pandas.DataFrame
        One row per (ranker, m, K): ``dataset``, ``method``, ``ranker`` (the method,
        ``"random"`` or ``"all"``), ``n_features``, ``n_clusters``, the metrics, and
        ``true_n_clusters``. The method and ``random`` are scored on the selector's m grid and
        the fixed 10 % count, ``all`` at every feature, each for every K of the selector's
        range and the true K. The ``random`` and ``all`` rows depend only on the dataset and
        ``seed``: they are the same in every method's job.
    """
    y = np.asarray(y)
    true_k = int(np.unique(y).size)
    selector = LabelFreeSelector(method, method_params, n_features_grid=n_features_grid,
                                 n_clusters_range=n_clusters_range, n_resamples=n_resamples,
                                 subsample=subsample, null_reference=null_reference, n_jobs=1,
                                 random_state=derive_seed(seed, dataset, method))
    selector.fit(X)  # no y: the choice is label-free
    criteria = selector.criteria_.copy()
    criteria.insert(0, "method", method)
    criteria.insert(0, "dataset", dataset)
    criteria["eigengap_n_clusters"] = selector.eigengap_n_clusters_
    grid = sorted({*criteria["n_features"].tolist(), fixed_share_count(X.shape[1])})
    ks = sorted({*criteria["n_clusters"].tolist(), true_k})
    log.info("%s %s: chose m=%d, K=%d; scoring %d m x %d K (true K=%d)", dataset, method,
             selector.n_features_, selector.n_clusters_, len(grid), len(ks), true_k)
    common = {"clusterer": selector.clusterer, "clusterer_params": selector.clusterer_params,
              "metrics": tuple(metrics)}
    frames = []
    for ranker, params, ranker_grid in ((method, method_params, grid), (RANDOM, None, grid),
                                        (ALL_FEATURES, None, [X.shape[1]])):
        seed_r = derive_seed(seed, dataset, _SEED_KEYS.get(ranker, ranker), "score")
        if ranker == ALL_FEATURES:
            rows = [_score_subset(X, y, np.arange(X.shape[1]), k, seed=seed_r, **common)
                    for k in ks]
        else:
            rows = _score_ranking(X, y, ranker, params, ranker_grid, ks, seed=seed_r, **common)
        frame = pd.DataFrame(rows)
        frame.insert(0, "ranker", ranker)
        frames.append(frame)
    scores = pd.concat(frames, ignore_index=True)
    scores.insert(0, "method", method)
    scores.insert(0, "dataset", dataset)
    scores["true_n_clusters"] = true_k
    return criteria, scores


def run(data_path, criteria_path, scores_path, *, dataset, method, method_params=None,
        n_resamples=30, subsample=0.8, seed=0, n_features_grid=None, n_clusters_range=None,
        null_reference=False, metrics=("acc", "nmi", "ari")):
    """Rule ``selection_fit``: :func:`select_and_score` on a prepared dataset, both tables
    written atomically as TSV."""
    from fsclust._io import write_table_atomic
    from fsclust.datasets import load_dataset

    ds = load_dataset(data_path)
    if ds.y is None:
        raise ValueError(f"{dataset} has no labels: the selection experiment scores with them")
    criteria, scores = select_and_score(
        ds.X, ds.y, dataset=dataset, method=method, method_params=method_params,
        n_resamples=n_resamples, subsample=subsample, seed=seed,
        n_features_grid=n_features_grid, n_clusters_range=n_clusters_range,
        null_reference=null_reference, metrics=metrics)
    write_table_atomic(criteria, criteria_path)
    write_table_atomic(scores, scores_path)
