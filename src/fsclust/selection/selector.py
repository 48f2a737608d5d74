"""Choose the number of selected features m and of clusters K without labels.

:class:`LabelFreeSelector` wraps any registered ranker. It draws ``R`` subsamples of the
samples, ranks the features of each once (one ranker fit serves every m; a ranker that takes
the number of clusters is fitted once per K), clusters every subsample on its top-m features
for every K of a grid, and scores every (m, K) with label-free criteria computed from the
resampled partitions (:mod:`fsclust.selection.stability`):

``"stability"``
    the agreement of the clusterings of two subsamples on the samples they share (adjusted
    Rand index; Ben-Hur, Elisseeff & Guyon 2002), normalised by that of random labellings of
    the same cluster sizes (Lange, Roth, Braun & Buhmann 2004), reported as ``1 -`` the
    normalised instability (1: perfectly stable, about 0: no more stable than chance);
``"lange"``
    the same with Lange et al.'s own measure, the disagreement of the two clusterings after
    the best matching of their clusters, normalised by that of random labellings (which grows
    with K as ``1 - 1/K``, where the adjusted Rand index of random labels stays at 0);
``"pac"``
    ``1 -`` consensus clustering's proportion of ambiguous clustering (Monti et al. 2003;
    Şenbabaoğlu, Michailidis & Li 2014), its standard error by the jackknife over subsamples;
``"excess"``
    the stability minus that of the same clustering on null data, each feature permuted on
    its own (Dudoit & Fridlyand 2002's reference distribution for Clest): on structureless data
    two clusters are also stable in a few dimensions, so the stability alone prefers K = 2
    and small m; its excess over the null does not. Computed when it chooses or with
    ``null_reference=True`` (it doubles the clusterings);
``"silhouette"``
    the mean silhouette of each subsample's partition computed on *all* features, a space
    that does not change with m (Rousseeuw 1987), with its standard error over subsamples.

Beside them, for every m, the stability of the selected feature sets over the subsamples
(Nogueira, Sechidis & Brown 2018, with its confidence interval, and Kuncheva's 2007 index),
and, for K, the largest eigengap of the normalised Laplacian of a kNN graph on all features.

The chosen (m, K) maximises the criterion; with ``rule="one-se"`` (Breiman et al.'s
one-standard-error rule) it is the smallest m whose value lies within one standard error of the
best, the sparsest answer the resampling cannot tell from the best, and at that m the largest
such K: merging two well separated groups is as stable as keeping them apart, so among equally
stable partitions the finest is the one that shows all the structure. That m is the sparsest
sufficient set, not the number of features that carry the structure; beside it the selector
reports the most stable set (:func:`most_stable_set`): among the sufficient m, the one whose
top-m sets the subsamples agree on most, which ``rule="stable-set"`` chooses. Labels are never
used.
"""

from __future__ import annotations

import inspect
from numbers import Integral, Real

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn import config_context
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from fsclust.selection import stability
from fsclust.graphs import knn_graph, squared_distances
from fsclust.rankers.base import IntInterval, ranking_from_scores, selected_features
from fsclust.registry import clusterer_class, make_clusterer, make_ranker, ranker_class

#: The criteria a selector can choose by; each column of ``criteria_`` is higher-is-better.
CRITERIA = ("stability", "lange", "pac", "silhouette", "excess")
#: Random labellings that normalise the clustering stability. Each is compared over all
#: R (R - 1) / 2 pairs of subsamples, so few are needed: with 5 the normalised stability moves
#: by 3e-4 (sd over seeds; 1e-4 with 20) against a standard error of 0.02 (30 subsamples of
#: 80 of 100 samples, 4 noisy groups), at a quarter of the cost of 20 (the random
#: labellings took 11.4 s of a 38 s fit on uci-dermatology with 20).
N_RANDOM = 5
#: The PAC is estimated on this many sample pairs drawn once per fit (all pairs when there are
#: fewer: n <= 447): its sampling error, at most 0.0016, is far below its jackknife error,
#: and the exact PAC took 321 of 372 s of a fit on uci-waveform (5000 samples, 6 subsamples).
PAC_MAX_PAIRS = 100_000
#: How the chosen (m, K) is picked from the criterion's table.
RULES = ("best", "one-se", "stable-set")
#: The feature-set stability (Nogueira's Phi, a generalisation of Fleiss' kappa) above which
#: the subsamples agree on a top-m set: Landis & Koch's "almost perfect agreement" for kappa.
#: The most stable set is the largest sufficient m above it. On the planted suite
#: (speed/planted_selection.py, 12 cases, Laplacian score) it is within a factor of 2 of the
#: planted count on 12 of 12 cases (0.75: 12, the mean share of planted features among the m
#: lower; the largest Phi alone: 9, it stops early where the planted features' order is itself
#: stable; the one-se m: 4, at the grid's smallest point on 4).
STABLE_SET_PHI = 0.8


def default_feature_grid(n_features, n_points=10, smallest=5):
    """About ``n_points`` feature counts spaced geometrically from ``smallest`` to ``d``.

    Examples
    --------
    >>> default_feature_grid(1000).tolist()
    [5, 9, 16, 29, 53, 95, 171, 308, 555, 1000]
    >>> default_feature_grid(3).tolist()
    [3]
    """
    d = int(n_features)
    start = min(smallest, d)
    grid = np.unique(np.round(np.geomspace(start, d, n_points)).astype(int))
    return np.unique(np.append(grid, d))


def subsample_size(subsample, n_samples):
    """The number of samples in each subsample: ``round(subsample * n)``.

    Examples
    --------
    >>> subsample_size(0.8, 62)
    50
    """
    return int(round(subsample * n_samples))


def _takes(name, parameter, kind=ranker_class):
    return parameter in inspect.signature(kind(name).__init__).parameters


def resample_clusterer_params(clusterer, clusterer_params, resample_n_init):
    """The parameters of the subsamples' clusterer: ``clusterer_params`` with ``n_init`` set to
    ``resample_n_init`` when the clusterer takes restarts (k-means) and it is not None.

    Examples
    --------
    >>> resample_clusterer_params("kmeans", {"max_iter": 50}, 3)
    {'max_iter': 50, 'n_init': 3}
    >>> resample_clusterer_params("kmeans", None, None)
    {}
    """
    params = dict(clusterer_params or {})
    if resample_n_init is not None and _takes(clusterer, "n_init", clusterer_class):
        params["n_init"] = int(resample_n_init)
    return params


def _subsample_run(X, rows, seed, method, method_params, ranker_ks, grid, ks, clusterer,
                   clusterer_params, null=None):
    """Rank the features of ``X[rows]`` (once per K of ``ranker_ks``) and cluster its top m for
    every (m, K): the selected indices ``{K or None: [per m]}`` and the labels ``(len(grid),
    len(ks), len(rows))``; with ``null`` (the null data set), also the labels of the same rows
    and columns of it (else None). One BLAS thread: the same result whatever ``n_jobs``."""
    Xs = X[rows]
    labels = np.empty((len(grid), len(ks), len(rows)), dtype=np.intp)
    null_labels = None if null is None else np.empty_like(labels)
    selected = {}
    # X was validated once by fit, and the parameters by make_ranker and make_clusterer: the
    # hundreds of small fits of a subsample skip scikit-learn's checks (about a tenth of the
    # selector's time on a 40 x 1203 matrix; results are the same)
    with threadpool_limits(limits=1), config_context(assume_finite=True,
                                                     skip_parameter_validation=True):
        if len(ranker_ks) > 1 and hasattr(ranker_class(method), "scores_for_n_clusters"):
            # scores nested in K (MCFS): one fit at the largest K gives every K's ranking
            ranker = make_ranker(method, method_params, n_clusters=max(ranker_ks),
                                 random_state=seed).fit(Xs)
            for k_rank in ranker_ks:
                order = ranking_from_scores(ranker.scores_for_n_clusters(k_rank),
                                            ranker.higher_is_better, ranker.constant_mask_)
                selected[k_rank] = [np.sort(order[:m]) for m in grid]
        for k_rank in (k for k in ranker_ks if k not in selected):
            ranker = make_ranker(method, method_params, n_clusters=k_rank, random_state=seed)
            ranker.fit(Xs)
            selected[k_rank] = [np.sort(selected_features(ranker, m)) for m in grid]
        for i, m in enumerate(grid):
            spaces = {}
            for j, k in enumerate(ks):
                key = k if k in selected else None
                if key not in spaces:
                    spaces[key] = cluster_space(Xs[:, selected[key][i]])
                space = spaces[key]
                model = make_clusterer(clusterer, clusterer_params, n_clusters=k,
                                       random_state=seed)
                labels[i, j] = model.fit_predict(space)
                if null is not None:
                    null_space = cluster_space(null[rows][:, selected[key][i]])
                    null_labels[i, j] = clone(model).fit_predict(null_space)
    return selected, labels, null_labels


def null_data(X, seed):
    """``X`` with each column permuted on its own: the marginals kept, any cluster structure
    shared by the features destroyed (the reference data of Dudoit & Fridlyand's Clest).

    Examples
    --------
    >>> X = np.arange(12.0).reshape(4, 3)
    >>> bool(np.all(np.sort(null_data(X, 0), axis=0) == X))
    True
    """
    rng = check_random_state(seed)
    return np.column_stack([rng.permutation(column) for column in X.T])


def mean_silhouette(distances, labels):
    """The mean silhouette width of a partition (Rousseeuw 1987) from its distance matrix.

    ``s_i = (b_i - a_i) / max(a_i, b_i)`` with ``a_i`` the mean distance of sample i to the
    other members of its cluster and ``b_i`` the smallest mean distance to another cluster;
    0 for a singleton and for a partition into one cluster. See :func:`mean_silhouettes`.

    Examples
    --------
    >>> D = np.array([[0, 1, 4, 5], [1, 0, 3, 4], [4, 3, 0, 1], [5, 4, 1, 0]], dtype=float)
    >>> round(mean_silhouette(D, np.array([0, 0, 1, 1])), 6)  # a = 1; b = 4.5, 3.5, 3.5, 4.5
    0.746032
    """
    return float(mean_silhouettes(distances, [labels])[0])


def mean_silhouettes(distances, labelings):
    """The mean silhouette width (:func:`mean_silhouette`) of each of several partitions of
    the same samples.

    The mean distances of every sample to every cluster of every partition come from one
    product ``D [H_1 ... H_L]`` with the one-hot ``H_l``: one pass over the ``n x n``
    distances for all partitions (the selector asks for one per (m, K) of each subsample,
    where scikit-learn's ``silhouette_samples``, the same values, a test checks, spends its
    time validating its input, and one product per partition re-reads ``D`` each time).

    Parameters
    ----------
    distances : ndarray of shape (n, n)
    labelings : sequence of L array-likes of shape (n,)

    Returns
    -------
    ndarray of shape (L,)
    """
    n = distances.shape[0]
    codes = [np.unique(labels, return_inverse=True)[1].ravel() for labels in labelings]
    ks = np.array([c.max() + 1 if c.size else 0 for c in codes])
    offsets = np.concatenate([[0], np.cumsum(ks)])
    H = np.zeros((n, int(offsets[-1])))
    for c, start in zip(codes, offsets):
        H[np.arange(n), start + c] = 1.0
    sums = distances @ H
    counts = H.sum(axis=0)
    widths = np.zeros(len(codes))
    for index, (c, k, start) in enumerate(zip(codes, ks, offsets)):
        if k < 2 or k >= n:
            continue
        own = counts[start + c]
        block = sums[:, start:start + k]
        a = block[np.arange(n), c] / np.maximum(own - 1.0, 1.0)
        means = block / counts[start:start + k]
        means[np.arange(n), c] = np.inf
        b = means.min(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            width = np.where(own > 1, (b - a) / np.maximum(a, b), 0.0)
        widths[index] = np.nan_to_num(width).mean()
    return widths


def cluster_space(X):
    """Coordinates with the pairwise distances of the rows of ``X`` in at most n - 1 columns.

    With more features than samples, the centred rows span at most ``n - 1`` dimensions, and
    their coordinates in that span (``U S`` of a thin SVD) keep every pairwise distance, so
    k-means (invariant to translations and rotations) fits the same partitions on them, at a
    cost that no longer grows with m. Otherwise ``X`` itself.
    """
    n, m = X.shape
    if m <= n:
        return X
    U, S, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    return U * S


def most_stable_set(table, criterion, n_clusters, n_features_in):
    """The m whose top-m feature sets agree most over the subsamples, among the sufficient m.

    The one-standard-error rule returns the smallest m whose clusterings are as stable as the
    best: the sparsest sufficient set, not the number of features that carry the structure
    (four groups planted in 30 of 1,000 features: m = 9 of the grid 5, 9, 16, 29, ...; the
    clusterings are perfectly stable at every m from 9 to 555). The features that carry it are the ones every
    subsample ranks on top: below their number the subsamples disagree on which of them come
    first, above it they add noise features at random, so the feature-set stability
    (Nogueira, Sechidis & Brown 2018) stays high up to it and falls beyond (0.89 at m = 9,
    1.00 at m = 29, 0.66 at m = 53). Among the m below ``n_features_in`` (all features are
    trivially stable) whose ``criterion`` at ``n_clusters`` lies within one standard error of
    that K's best: the largest m whose feature-set stability is at least
    :data:`STABLE_SET_PHI`; when none is, the m of the largest (ties: the smallest m).

    Parameters
    ----------
    table : pandas.DataFrame
        ``criteria_`` of a fitted :class:`LabelFreeSelector`.
    criterion : str
        One of :data:`CRITERIA`.
    n_clusters : int
        The K whose rows are compared.
    n_features_in : int
        The number of features of the data.

    Returns
    -------
    n_features : int or None
        None when no m below ``n_features_in`` is a candidate.
    feature_stability : float
        Its feature-set stability (NaN with None).

    Examples
    --------
    >>> table = pd.DataFrame({"n_features": [5, 10, 20, 40], "n_clusters": [3] * 4,
    ...                       "stability": [0.97, 1.0, 1.0, 0.90],
    ...                       "stability_se": [0.01, 0.0, 0.0, 0.05],
    ...                       "feature_stability": [0.8, 0.95, 0.7, 1.0]})
    >>> most_stable_set(table, "stability", 3, 40)  # 40 is all features; 5 and 40 not sufficient
    (10, 0.95)
    """
    rows = table[(table["n_clusters"] == n_clusters) & (table["n_features"] < n_features_in)]
    value = rows[criterion].to_numpy(dtype=float)
    if rows.empty or np.all(np.isnan(value)):
        return None, float("nan")
    best = int(np.nanargmax(value))
    se = np.nan_to_num(float(rows[f"{criterion}_se"].iat[best]))
    sufficient = rows[value >= value[best] - se].sort_values("n_features", kind="stable")
    phi = sufficient["feature_stability"].to_numpy(dtype=float)
    if np.all(np.isnan(phi)):
        return None, float("nan")
    agreed = np.flatnonzero(phi >= STABLE_SET_PHI)
    i = int(agreed[-1]) if agreed.size else int(np.nanargmax(phi))
    return int(sufficient["n_features"].iat[i]), float(phi[i])


def choose(table, criterion, rule="one-se", n_features_in=None):
    """The (m, K) that ``criterion`` and ``rule`` choose from a selector's ``criteria_`` table.

    Parameters
    ----------
    table : pandas.DataFrame
        ``criteria_``: columns ``n_features``, ``n_clusters``, ``<criterion>`` (higher is
        better) and ``<criterion>_se``; rows may be restricted first (e.g. to a given K).
    criterion : {"stability", "lange", "pac", "silhouette", "excess"}
    rule : {"best", "one-se", "stable-set"}
        ``"best"``: the largest value; ``"one-se"``: among the (m, K) whose value lies within one
        standard error (of the best) of the best, the smallest m, and at that m the largest K
        (a finer partition as stable as a coarser one splits real structure: with well
        separated groups, merging two of them is perfectly stable too); ``"stable-set"``: the
        K of ``"one-se"`` and, at that K, the m of :func:`most_stable_set` (the one-se m when
        no other is a candidate).
    n_features_in : int, optional
        The number of features of the data; ``"stable-set"`` needs it (all features are
        trivially a stable set and are not a candidate).

    Returns
    -------
    n_features, n_clusters : int

    Examples
    --------
    >>> table = pd.DataFrame({"n_features": [5, 5, 50, 50], "n_clusters": [2, 3, 2, 3],
    ...                       "pac": [0.80, 0.95, 0.90, 0.97], "pac_se": [0.03] * 4})
    >>> choose(table, "pac", "best"), choose(table, "pac", "one-se")
    ((50, 3), (5, 3))
    >>> table["pac"] = [0.96, 0.95, 0.90, 0.97]  # (5, 2) and (5, 3) within reach: the finer
    >>> choose(table, "pac", "one-se")
    (5, 3)
    """
    if criterion not in CRITERIA or rule not in RULES:
        raise ValueError(f"criterion must be one of {CRITERIA} and rule one of {RULES}, got "
                         f"{criterion!r}, {rule!r}.")
    if criterion not in table:
        raise ValueError(f"the table has no {criterion!r} column: fit the selector with "
                         f"criterion={criterion!r} (or null_reference=True) to compute it.")
    table = table.sort_values(["n_features", "n_clusters"], kind="stable")
    value = table[criterion].to_numpy(dtype=float)
    se = table[f"{criterion}_se"].to_numpy(dtype=float)
    if table.empty or np.all(np.isnan(value)):
        raise ValueError(f"criterion {criterion!r} is undefined at every (m, K) (one cluster "
                         "in every subsample?); choose another criterion.")
    best = int(np.nanargmax(value))
    if rule == "best":
        return int(table["n_features"].iat[best]), int(table["n_clusters"].iat[best])
    within = table[value >= value[best] - np.nan_to_num(se[best])]
    m = within["n_features"].min()
    k = int(within.loc[within["n_features"] == m, "n_clusters"].max())
    if rule == "stable-set":
        if n_features_in is None:
            raise ValueError("rule 'stable-set' needs n_features_in (all features are not a "
                             "candidate set).")
        stable, _ = most_stable_set(table, criterion, k, n_features_in)
        if stable is not None:
            m = stable
    return int(m), k


class LabelFreeSelector(SelectorMixin, BaseEstimator):
    """Select the top-m features of a ranking and cluster into K groups, m and K chosen
    without labels by the stability of resampled results.

    Parameters
    ----------
    method : str, default="laplacian"
        A registered ranker (``fsclust methods``).
    method_params : dict, default=None
        Its parameters.
    n_features : "auto" or int, default="auto"
        The number of features to keep; ``"auto"``: chosen from ``n_features_grid``.
    n_clusters : "auto" or int, default="auto"
        The number of clusters; ``"auto"``: chosen from ``n_clusters_range``.
    n_features_grid : array-like of int, default=None
        Candidate m; None: :func:`default_feature_grid` (about 10 values from 5 to d).
    n_clusters_range : array-like of int, default=None
        Candidate K; None: 2 to 10 (at most the subsample size minus one).
    criterion : {"stability", "lange", "pac", "silhouette", "excess"}, default="stability"
        The criterion that chooses (module docstring). Every criterion is computed and kept in
        ``criteria_`` whichever chooses. On the training sets of the ``selection`` experiment
        (34 of the five papers' datasets; variance, PCA, Laplacian score: 102 pairs) the
        lowest median ACC regret was 0.097 (silhouette / best, 27.5 % within 0.02; lange /
        best and silhouette / one-se too), against 0.115 for stability / one-se (23.5 %); a
        paired Wilcoxon test cannot tell the two apart (41 pairs better, 32 worse, p = 0.25),
        and the silhouette, computed on all features, fails the recovery property
        (tests/test_selection.py: K = 2 on three groups separated on 6 of 36 features; their
        silhouette is 0.352 for K = 2 against 0.322 on all features, 0.561 against 0.646 on
        the six), so the default stays stability / one-se. docs/selection.md has the table.
    rule : {"best", "one-se", "stable-set"}, default="one-se"
        ``"best"``: the (m, K) of the largest criterion value; ``"one-se"``: the smallest m
        within one standard error of it, and at that m the largest K within it: the sparsest
        sufficient set; ``"stable-set"``: that K, and the m of ``stable_n_features_``
        (:func:`choose`).
    n_resamples : int, default=30
        The number of subsamples ``R``.
    subsample : float, default=0.8
        The fraction of the samples in each subsample, drawn without replacement (Ben-Hur et
        al.'s 0.8).
    clusterer : str, default="kmeans"
        A registered clusterer, fitted on each subsample's top-m features for each K, and on
        the whole data for ``labels_``.
    clusterer_params : dict, default=None
    resample_n_init : int or None, default=3
        Restarts of each subsample's clustering when the clusterer takes ``n_init`` (k-means);
        ``labels_`` uses ``clusterer_params`` (k-means: 10). The subsamples' k-means was 85-90 %
        of a fit; 3 restarts instead of 10 halve it (skfeature-glioma, variance, 30
        subsamples: 26.7 to 12.6 s, the same m and K), and instability from a bad local
        optimum is part of what a criterion should see. None: ``clusterer_params``' own.
    null_reference : bool, default=False
        Also cluster null data (each feature permuted) and report ``excess`` whatever the
        criterion; it is always done when ``criterion="excess"`` (it doubles the clusterings).
    n_jobs : int, default=None
        Subsamples run in parallel (joblib); the result does not depend on it.
    random_state : int, RandomState instance or None, default=None
        Draws the subsamples, their seeds and the random labellings.

    Attributes
    ----------
    n_features_ : int
        The chosen m.
    n_clusters_ : int
        The chosen K.
    labels_ : ndarray of shape (n_samples,)
        The clustering of all samples on the chosen features into K groups.
    ranker_ : FeatureRanker
        The ranker fitted on all samples (with K when it takes one).
    feature_order_ : ndarray of int
        Feature indices, best first, of ``ranker_``.
    support_ : ndarray of shape (``n_features_in_``,), bool
        The chosen features.
    criteria_ : pandas.DataFrame
        One row per (m, K): each criterion and its standard error, ``stability``,
        ``stability_se``, ``lange``, ``lange_se``, ``pac``, ``pac_se``, ``silhouette``,
        ``silhouette_se`` (all higher is better; with ``null_reference`` also
        ``null_stability``, ``excess`` and ``excess_se``), and the feature-set stability of m:
        ``feature_stability`` (Nogueira's Phi), ``feature_stability_lower``,
        ``feature_stability_upper`` (its 95 % interval) and ``kuncheva``.
    eigengap_n_clusters_ : int
        K at the largest eigengap of the kNN graph on all features (reported).
    stable_n_features_ : int or None
        The most stable set at the chosen K (:func:`most_stable_set`): among the m whose
        criterion lies within one standard error of that K's best, the one of the largest
        feature-set stability; None when m was given or no m below d is sufficient.
    stable_feature_stability_ : float
        Its feature-set stability (Nogueira's Phi; NaN with None).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> X = np.hstack([np.eye(3)[y] * 4 + rng.normal(size=(60, 3)), rng.normal(size=(60, 17))])
    >>> selector = LabelFreeSelector(method="variance", n_features_grid=[3, 10, 20],
    ...                              n_clusters_range=[2, 3, 4], n_resamples=10,
    ...                              random_state=0).fit(X)
    >>> selector.n_features_, selector.n_clusters_
    (3, 3)
    """

    _parameter_constraints: dict = {
        "method": [str],
        "method_params": [dict, None],
        "n_features": [StrOptions({"auto"}), IntInterval(1, None, closed="left")],
        "n_clusters": [StrOptions({"auto"}), IntInterval(2, None, closed="left")],
        "n_features_grid": ["array-like", None],
        "n_clusters_range": ["array-like", None],
        "criterion": [StrOptions(set(CRITERIA))],
        "rule": [StrOptions(set(RULES))],
        "n_resamples": [IntInterval(2, None, closed="left")],
        "subsample": [Interval(Real, 0, 1, closed="neither")],
        "clusterer": [str],
        "clusterer_params": [dict, None],
        "resample_n_init": [IntInterval(1, None, closed="left"), None],
        "null_reference": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, method="laplacian", method_params=None, *, n_features="auto",
                 n_clusters="auto", n_features_grid=None, n_clusters_range=None,
                 criterion="stability", rule="one-se", n_resamples=30, subsample=0.8,
                 clusterer="kmeans", clusterer_params=None, resample_n_init=3,
                 null_reference=False, n_jobs=None, random_state=None):
        self.method = method
        self.method_params = method_params
        self.n_features = n_features
        self.n_clusters = n_clusters
        self.n_features_grid = n_features_grid
        self.n_clusters_range = n_clusters_range
        self.criterion = criterion
        self.rule = rule
        self.n_resamples = n_resamples
        self.subsample = subsample
        self.clusterer = clusterer
        self.clusterer_params = clusterer_params
        self.resample_n_init = resample_n_init
        self.null_reference = null_reference
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose m and K on ``X`` and cluster it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored
            Never used: m and K are chosen without labels.

        Returns
        -------
        self : LabelFreeSelector
        """
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=4,
                          ensure_min_features=1)
        n, d = X.shape
        size = subsample_size(self.subsample, n)
        if not 3 <= size < n:
            raise ValueError(f"subsample={self.subsample} of {n} samples gives {size}; it must "
                             "leave at least 3 samples and fewer than all: change subsample.")
        grid = self._grid(d)
        ks = self._ks(size)
        rng = check_random_state(self.random_state)
        # every random choice is drawn here, before any job, so n_jobs changes nothing
        seeds = rng.randint(np.iinfo(np.int32).max, size=self.n_resamples + 2)
        subsamples = [np.sort(check_random_state(int(s)).choice(n, size, replace=False))
                      for s in seeds[2:]]
        ranker_ks = list(ks) if _takes(self.method, "n_clusters") else [None]
        if len(grid) > 1 or len(ks) > 1:
            compare_null = self.null_reference or self.criterion == "excess"
            null = null_data(X, int(seeds[1])) if compare_null else None
            runs = Parallel(n_jobs=self.n_jobs)(
                delayed(_subsample_run)(X, rows, int(s), self.method, self.method_params,
                                        ranker_ks, grid, ks, self.clusterer,
                                        resample_clusterer_params(
                                            self.clusterer, self.clusterer_params,
                                            self.resample_n_init),
                                        null)
                for rows, s in zip(subsamples, seeds[2:]))
            self.criteria_ = self._criteria(X, grid, ks, subsamples, runs, ranker_ks,
                                            int(seeds[1]))
            m, k = self._choose(self.criteria_)
        else:
            self.criteria_ = pd.DataFrame({"n_features": grid, "n_clusters": ks})
            m, k = grid[0], ks[0]
        self.n_features_, self.n_clusters_ = int(m), int(k)
        self.stable_n_features_, self.stable_feature_stability_ = (
            most_stable_set(self.criteria_, self.criterion, self.n_clusters_, d)
            if len(grid) > 1 else (None, float("nan")))
        self.eigengap_n_clusters_ = self._eigengap(X)
        seed = int(seeds[0])
        self.ranker_ = make_ranker(
            self.method, self.method_params,
            n_clusters=self.n_clusters_ if ranker_ks != [None] else None,
            random_state=seed).fit(X)
        self.feature_order_ = np.asarray(self.ranker_.feature_order_, dtype=np.intp)
        chosen = np.sort(selected_features(self.ranker_, self.n_features_))
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[chosen] = True
        self.labels_ = make_clusterer(self.clusterer, self.clusterer_params,
                                      n_clusters=self.n_clusters_,
                                      random_state=seed).fit_predict(cluster_space(X[:, chosen]))
        return self

    def _grid(self, d):
        if self.n_features != "auto":
            if self.n_features > d:
                raise ValueError(f"n_features={self.n_features} exceeds the {d} features of X.")
            return np.array([self.n_features])
        if self.n_features_grid is None:
            return default_feature_grid(d)
        grid = np.unique(np.asarray(self.n_features_grid, dtype=int))
        if grid.size == 0 or grid[0] < 1 or grid[-1] > d:
            raise ValueError(f"n_features_grid must hold counts between 1 and the {d} features "
                             f"of X, got {grid.tolist()}.")
        return grid

    def _ks(self, size):
        if self.n_clusters != "auto":
            ks = np.array([self.n_clusters])
        elif self.n_clusters_range is None:
            ks = np.arange(2, min(10, size - 1) + 1)
        else:
            ks = np.unique(np.asarray(self.n_clusters_range, dtype=int))
        if ks.size == 0 or ks[0] < 2 or ks[-1] >= size:
            raise ValueError(f"the numbers of clusters {ks.tolist()} must lie between 2 and the "
                             f"subsample size minus one ({size - 1}); change n_clusters_range "
                             "or subsample.")
        return ks

    def _criteria(self, X, grid, ks, subsamples, runs, ranker_ks, seed):
        """The table of every criterion for every (m, K), and the feature-set stability."""
        n, d = X.shape
        # the fixed space of the silhouette: all features, whatever m
        distances = np.sqrt(squared_distances(X))
        # the silhouettes of every (m, K) of a subsample in one pass over its distances
        silhouette = np.empty((len(grid), len(ks), len(runs)))
        for r, (rows_r, run) in enumerate(zip(subsamples, runs)):
            labels_r = run[1].reshape(len(grid) * len(ks), -1)
            silhouette[:, :, r] = mean_silhouettes(distances[np.ix_(rows_r, rows_r)],
                                                   labels_r).reshape(len(grid), len(ks))
        rows = []
        for i, m in enumerate(grid):
            feature_sets = {}
            for k_rank in ranker_ks:
                Z = np.zeros((len(runs), d), dtype=np.int8)
                for r, (selected, _, _) in enumerate(runs):
                    Z[r, selected[k_rank][i]] = 1
                feature_sets[k_rank] = Z
            for j, k in enumerate(ks):
                labels = [run[1][i, j] for run in runs]
                Z = feature_sets[k if k in feature_sets else None]
                phi = (stability.nogueira_stability(Z) if 0 < m < d
                       else stability.FeatureSetStability(1.0, 0.0, 1.0, 1.0))
                kuncheva = stability.kuncheva_index(Z) if 0 < m < d else np.nan
                stable = stability.clustering_stability(subsamples, labels, n, score="ari",
                                                        n_random=N_RANDOM, random_state=seed)
                lange = stability.clustering_stability(subsamples, labels, n,
                                                       score="disagreement", n_random=N_RANDOM,
                                                       random_state=seed)
                pac, pac_se = stability.jackknife_pac(subsamples, labels, n,
                                                     max_pairs=PAC_MAX_PAIRS,
                                                     random_state=seed)
                silhouettes = silhouette[i, j]
                null = {}
                if runs[0][2] is not None:
                    null_stable = stability.clustering_stability(
                        subsamples, [run[2][i, j] for run in runs], n, score="ari",
                        n_random=N_RANDOM, random_state=seed)
                    null = {"null_stability": 1.0 - null_stable.normalized,
                            "excess": null_stable.normalized - stable.normalized,
                            "excess_se": float(np.hypot(stable.normalized_std_error,
                                                        null_stable.normalized_std_error))}
                rows.append({
                    "n_features": int(m), "n_clusters": int(k),
                    "stability": 1.0 - stable.normalized,
                    "stability_se": stable.normalized_std_error,
                    "lange": 1.0 - lange.normalized,
                    "lange_se": lange.normalized_std_error,
                    "pac": 1.0 - pac, "pac_se": pac_se,
                    "silhouette": float(silhouettes.mean()),
                    "silhouette_se": float(silhouettes.std(ddof=1) / np.sqrt(len(silhouettes))),
                    "feature_stability": phi.stability,
                    "feature_stability_lower": phi.lower,
                    "feature_stability_upper": phi.upper,
                    "kuncheva": kuncheva,
                    **null,
                })
        return pd.DataFrame(rows)

    def _choose(self, table):
        return choose(table, self.criterion, self.rule, n_features_in=self.n_features_in_)

    def _eigengap(self, X):
        n = X.shape[0]
        k_max = int(min(10, n - 1))
        if k_max < 2:
            return 1
        W = knn_graph(X, n_neighbors=min(10, n - 1))
        return int(stability.eigengap(W, k_max)[0])

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_
