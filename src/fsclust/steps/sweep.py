"""Cluster on the top-m ranked features for every m of a sweep and score the partitions."""

from __future__ import annotations

import json
from typing import NamedTuple

import numpy as np
import pandas as pd

from fsclust.cluster import distance_space
from fsclust.cluster.tags import relabels, reported_attributes
from fsclust.graphs import scale_features, scaled_sq_distances, squared_distances
from fsclust.metrics import evaluate
from fsclust.registry import make_clusterer


def resolve_grid(spec, n_features):
    """Turn a sweep specification into a sorted list of feature counts within 1..n_features.

    ``spec`` is a list of ints (values above ``n_features`` are dropped), the string ``"all"``
    (every m from 1 to d), or a mapping ``{start, stop, step}`` (``stop`` inclusive, clipped to
    d). ``n_features`` itself is always included, so every sweep ends with all features.

    Examples
    --------
    >>> resolve_grid([1, 2, 4, 8, 16], 10)
    [1, 2, 4, 8, 10]
    >>> resolve_grid("all", 3)
    [1, 2, 3]
    >>> resolve_grid({"start": 20, "stop": 100, "step": 20}, 50)
    [20, 40, 50]
    """
    d = int(n_features)
    if isinstance(spec, str):
        if spec != "all":
            raise ValueError(f"sweep n_features: unknown keyword {spec!r}; use 'all', a list or a range")
        grid = range(1, d + 1)
    elif isinstance(spec, dict):
        start, stop, step = int(spec["start"]), int(spec.get("stop", d)), int(spec.get("step", 1))
        grid = range(start, min(stop, d) + 1, step)
    else:
        grid = [int(m) for m in spec]
    if any(m < 1 for m in grid):
        raise ValueError("sweep n_features: every number of features must be >= 1")
    return sorted({m for m in grid if m <= d} | {d})


def accumulated_sq_distances(X, ranking, grid):
    """Squared distances on the top-m ranked features for every m of ``grid``, by accumulation.

    Squared Euclidean distances are a sum over the columns, so going from the top ``m'`` to the
    top ``m`` features adds the squared distances of the block ``ranking[m':m]`` alone,
    computed in the BLAS form of :func:`fsclust.graphs.squared_distances` on that block. A
    whole sweep costs O(n^2 d) instead of O(n^2 * sum of m), and holds n-by-n matrices only.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    ranking : ndarray of int
        Feature indices, best first.
    grid : iterable of int
        Numbers of top features; visited in ascending order, duplicates once.

    Yields
    ------
    m : int
    D2 : ndarray of shape (n_samples, n_samples)
        Squared distances on ``X[:, ranking[:m]]``: exactly symmetric, zero diagonal. Equal to
        ``squared_distances(X[:, np.sort(ranking[:m])])`` up to round-off only (the terms are
        summed in another order); see :func:`run_sweep` for where that matters. The array is
        the running sum, updated in place at the next step: copy it to keep it.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    >>> [(m, float(D2[0, 1])) for m, D2 in accumulated_sq_distances(X, [2, 0, 1], [1, 3])]
    [(1, 9.0), (3, 14.0)]
    """
    X = np.asarray(X, dtype=float)
    ranking = np.asarray(ranking, dtype=int)
    D2 = np.zeros((X.shape[0], X.shape[0]))
    done = 0
    for m in sorted({int(m) for m in grid}):
        if m > done:
            # the block of newly added features, in the data's column order
            D2 += squared_distances(X[:, np.sort(ranking[done:m])])
            done = m
        yield m, D2


class ClusteringFailure(NamedTuple):
    """A clusterer that raised on one selection of a sweep that records failures
    (``record_failures``): the error, ``"ExceptionType: message"``, in place of its labels."""

    message: str


def sweep_labels(X, ranking, grid, clusterers, *, n_clusters, random_states,
                 reuse_distances=True, fitted=None):
    """The partitions of :func:`run_sweep`, before scoring: ``{(key, m): labels}``.

    Parameters are those of :func:`run_sweep`. The models are fitted for the m of ``grid`` in
    ascending order, each from scratch and with its clusterer's seed, so the order changes
    nothing but the cost.
    """
    fits = sweep_fits(X, ranking, grid, clusterers, n_clusters=n_clusters,
                      random_states=random_states, reuse_distances=reuse_distances,
                      fitted=fitted)
    return {point: labels for point, (labels, _) in fits.items()}


def reported_values(model):
    """The attributes the fitted ``model`` reports (its tag ``reported_attributes``), named
    without the trailing underscore; an array becomes a JSON list, one table cell.

    Examples
    --------
    >>> from fsclust.cluster import LLC
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> sorted(reported_values(LLC(n_neighbors=2, random_state=0).fit(X)))
    ['n_components', 'n_isolated', 'objective']
    """
    values = {}
    for name in reported_attributes(model):
        if hasattr(model, name):
            value = np.asarray(getattr(model, name))
            values[name.rstrip("_")] = (value.item() if value.ndim == 0
                                        else json.dumps(value.tolist()))
    return values


def sweep_fits(X, ranking, grid, clusterers, *, n_clusters, random_states,
               reuse_distances=True, fitted=None, record_failures=False):
    """:func:`sweep_labels` with what each model reports: ``{(key, m): (labels, values)}``,
    ``values`` from :func:`reported_values`.

    ``record_failures``: a clusterer that raises on one m gives a :class:`ClusteringFailure`
    in place of its labels (and no values) and the sweep goes on; False: the error propagates.

    ``fitted``: a dict kept by the caller across the repeats of one view of the data. A
    clusterer whose runs differ only by the discretisation (tag ``relabels``) is then fitted
    once per input, at the first repeat, and later repeats call its ``relabel`` with their
    seed: the labels of a fit with that seed. Its input is the selected set, or, for one that
    takes accumulated squared distances, the blocks of the ranking they were summed over
    (their round-off depends on those blocks, not on the set alone).
    """
    X = np.asarray(X, dtype=float)
    # a method whose subsets are not nested (FSFS: one subset per size) gives {m: indices}
    subsets = ({int(m): np.asarray(v, dtype=int) for m, v in ranking.items()}
               if isinstance(ranking, dict) else None)
    if subsets is not None:
        reuse_distances = False  # the running sums need nested subsets
    else:
        ranking = np.asarray(ranking, dtype=int)
    d = X.shape[1]
    steps = sorted({int(m) for m in grid})
    if subsets is not None and any(len(subsets.get(m, ())) != m for m in steps):
        raise ValueError("a subset of the sweep does not hold exactly m features")

    def build(key):
        spec = clusterers[key]
        return make_clusterer(spec["method"], spec.get("params"), n_clusters=n_clusters,
                              random_state=random_states[key])

    # the squared distances each clusterer's fit accepts (its tag), None: it needs the features
    space = {key: distance_space(build(key)) if reuse_distances else None for key in clusterers}
    once = {key: fitted is not None and relabels(build(key)) for key in clusterers}
    # One running sum per feature space, shared by every clusterer of that space: the raw
    # features, and the z-scored ones (both kernel k-means scalings: z-scoring acts on each
    # column alone, and "zscore-sqrt-d" only divides the squared distances by m).
    # Below m = d only: see run_sweep for why the last point is computed directly.
    below_d = [m for m in steps if m < d]
    running = {}
    if "none" in space.values():
        running["none"] = accumulated_sq_distances(X, ranking, below_d)
    if {"zscore", "zscore-sqrt-d"} & set(space.values()):
        running["zscore"] = accumulated_sq_distances(scale_features(X, "zscore"), ranking,
                                                     below_d)

    def fit_point(key, Xm, fit_params, cached):
        """``(labels, values)`` of clusterer ``key`` on one selection; a relabelling
        clusterer's model (or failure) kept in ``fitted[cached]`` and relabelled later."""
        if cached is None:
            model = build(key).fit(Xm, **fit_params)
            return model.labels_, reported_values(model)
        if cached in fitted:
            model = fitted[cached]
            if isinstance(model, ClusteringFailure):  # the same input fails the same way
                return model, {}
            return model.relabel(random_states[key]), reported_values(model)
        model = fitted[cached] = build(key).fit(Xm, **fit_params)
        return model.labels_, reported_values(model)

    fits = {}
    for m in steps:
        current = {name: next(sums)[1] for name, sums in running.items()} if m < d else {}
        # The selected set, in the data's column order: clusterers are invariant to column
        # order in exact arithmetic but not in floating point (distance sums run in a
        # different order), and on Zeng & Cheung 2008's nearly disconnected Ncut graphs that
        # round-off changed the partition. Sorting makes "top-d of any ranking" identical
        # to "all features".
        columns = np.sort(subsets[m] if subsets is not None else ranking[:m])
        Xm = X[:, columns]
        shared = {}
        for key in clusterers:
            kind = space[key]
            if kind is not None and kind not in shared:
                if m >= d:
                    # all features: the very function fit calls on the very columns, so
                    # top-d of any ranking gives the all-features result bit for bit
                    shared[kind] = (squared_distances(Xm) if kind == "none"
                                    else scaled_sq_distances(Xm, kind))
                elif kind == "zscore-sqrt-d":
                    shared[kind] = current["zscore"] / m
                else:
                    shared[kind] = current[kind]
            fit_params = {} if kind is None else {"sq_distances": shared[kind]}
            cached = None
            if once[key]:
                # what the fit's input is computed from (see the docstring)
                blocks = ([np.sort(ranking[a:b]).tobytes()
                           for a, b in zip([0, *below_d], below_d) if b <= m]
                          if kind is not None and m < d else [columns.tobytes()])
                cached = (key, kind, *blocks)
            try:
                fits[key, m] = fit_point(key, Xm, fit_params, cached)
            except Exception as error:
                if not record_failures:
                    raise
                # e.g. NJW's heat kernel with the median bandwidth on a selection where most
                # pairs of samples coincide: t ~ 0, and the other samples have degree 0
                failure = ClusteringFailure(f"{type(error).__name__}: {error}")
                if cached is not None:
                    fitted[cached] = failure
                fits[key, m] = (failure, {})
    return fits


def run_sweep(X, y, ranking, grid, clusterers, *, n_clusters, random_states,
              metrics=("acc", "nmi", "ari"), reuse_distances=True, fitted=None,
              record_failures=False):
    """Cluster ``X[:, ranking[:m]]`` with every clusterer for every m in ``grid``; evaluate.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        The classes the partitions are scored against.
    ranking : ndarray of int, or dict
        Feature indices, best first; or ``{m: indices}`` for a method whose subsets are not
        nested (FSFS), one subset of exactly m features per m of ``grid`` (then no distances
        are reused).
    grid : list of int
        Numbers of top features to cluster on.
    clusterers : dict
        ``{key: {"method": name, "params": {...}}}``, the experiment's clusterers.
    n_clusters : int
    random_states : dict
        ``{key: int}``: each clusterer's seed, the same for every m and every ranking, so the
        curves of different methods are paired.
    metrics : tuple of str
    reuse_distances : bool, default=True
        Accumulate the squared distances along the ranking for the clusterers whose graph or
        kernel depends on them alone (``ncut``, the three spectral clusterings with the RBF
        affinity, kernel k-means with the Gaussian kernel); False: every clusterer computes
        everything from the m selected columns (the plain path).
    fitted : dict, optional
        Kept by the caller across repeats: models that only relabel per seed are fitted once
        (:func:`sweep_fits`).
    record_failures : bool, default=False
        A clusterer that raises on one m gives a row with empty metrics, ``status`` "failed"
        and the error in ``message``, and the sweep goes on; False: the error propagates.

    Each clusterer is rebuilt from scratch for each m, and any bandwidth rule is recomputed on
    the m selected features (as the papers do), from the squared distances of the top m.

    Notes
    -----
    With ``reuse_distances``, the squared distances of the top m features are accumulated
    block by block as m grows (:func:`accumulated_sq_distances`): the sweep then costs
    O(n^2 d) for the distances plus the clusterings, instead of O(n^2 * sum of m). The
    accumulated values differ from the direct ``squared_distances(X[:, top m])`` of the plain
    path at round-off level only (at most ~3e-15 of the largest distance on PIE C27 and the
    gene sets), but on nearly disconnected graphs (Zeng & Cheung 2008's narrow kernel) round-off
    decides the Ncut partition, so the two paths may give different labels at m below d. They are
    equally valid: a relative perturbation of 1e-15 of ``X``, or the columns in rank order,
    changes the plain path's partitions at as many m (speed/README.md, sweep reuse).
    Well-conditioned graphs and kernels give the same partitions. At ``m = d`` the squared
    distances are computed directly from all columns in the data's order, with the function
    ``fit`` itself calls: top-d of any ranking, and the all-features baseline (``ranking =
    arange(d)``, ``grid = [d]``), give the plain path's result bit for bit.

    Returns
    -------
    DataFrame with one row per clusterer and m: ``clusterer``, ``n_features``, one column
    per metric, then one per attribute a clusterer reports (:func:`reported_values`; empty
    for the others) and, with a recorded failure, ``status`` and ``message`` (empty in the
    rows that did not fail). Timings are left to Snakemake's benchmark files so that results
    are byte-identical across runs.
    """
    fits = sweep_fits(X, ranking, grid, clusterers, n_clusters=n_clusters,
                      random_states=random_states, reuse_distances=reuse_distances,
                      fitted=fitted, record_failures=record_failures)
    rows = []
    for key in clusterers:
        for m in grid:
            labels, values = fits[key, int(m)]
            if isinstance(labels, ClusteringFailure):
                scores = {**dict.fromkeys(metrics, np.nan), "status": "failed",
                          "message": labels.message}
            else:
                scores = evaluate(y, labels, metrics)
            rows.append({"clusterer": key, "n_features": int(m), **scores, **values})
    reported = [c for c in pd.DataFrame(rows).columns if c not in ("clusterer", "n_features",
                                                                     *metrics)]
    return pd.DataFrame(rows, columns=["clusterer", "n_features", *metrics, *reported])
