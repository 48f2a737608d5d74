"""One call from your own matrix to the selected features, the clusters and what to watch for.

:func:`select` takes a numpy array, a pandas DataFrame (samples in rows, names kept) or an
AnnData object, ranks its features with one or several registered methods, chooses the number
of features m and of clusters K without labels (:class:`fsclust.selection.LabelFreeSelector`)
and returns pandas tables with the content of ``fsclust select``'s files: the ranking (with
the ``selected`` and ``tied`` columns), the cluster labels, the criterion of every (m, K) and
a summary that records where K came from and every warning, as strings, so that the command
line prints them and a notebook reads them.

Examples
--------
>>> from fsclust.datasets import make_blobs_with_irrelevant
>>> data = make_blobs_with_irrelevant(n_samples=60, n_relevant=3, n_irrelevant=9)
>>> result = select(data.X, "laplacian", n_resamples=5, n_features_grid=[3, 6, 12],
...                 n_clusters_range=[2, 3, 4])
>>> result.summary["n_features"], result.summary["n_clusters"], result.summary["k_source"]
(3, 3, 'selector')
>>> result.ranking.columns.tolist()
['feature', 'score', 'rank', 'selected', 'tied']
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import warnings as pywarnings
from dataclasses import dataclass, field
from itertools import product
from numbers import Integral

import numpy as np
import pandas as pd

from fsclust import __version__

#: Where K comes from: given (``n_clusters=K``), the number of classes of the labels, or the
#: selector's label-free estimate; never a method's class default.
K_SOURCES = ("given", "labels", "selector")
# select() sets these LabelFreeSelector parameters itself; the rest pass through.
_OWN = ("method", "n_features", "n_clusters", "n_jobs", "random_state")
_SHOW = 5  # names quoted in a message before "..."


def _quote_names(names, limit=_SHOW):
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (", ..." if len(names) > limit else "")


@dataclass
class SelectionResult:
    """What :func:`select` found with one method.

    Attributes
    ----------
    method : str
    ranking : pandas.DataFrame
        One row per feature, best first: ``feature``, ``score``, ``rank`` (1 = best),
        ``selected`` (among the chosen m) and ``tied`` (its score equals another feature's
        within :data:`fsclust.rankers.base.TIE_RTOL` of the largest finite ``|score|``: the order
        among tied features is the column order, not the method's). Constant features come
        last, scored like the worst ranked one, tied with each other.
    labels : pandas.DataFrame
        ``sample``, ``cluster``: the clustering of all samples on the selected features.
    criterion : pandas.DataFrame
        The selector's ``criteria_``: every criterion for every (m, K) searched.
    summary : dict
        JSON-serialisable: ``method``, ``n_features`` (m), ``n_clusters`` (K), ``k_source``
        (one of :data:`K_SOURCES`), ``criterion``, ``rule``, ``choice`` (how (m, K) was
        chosen, one line), ``warnings`` (list of str), ``degenerate`` (a ranking decided by
        ties: all scores equal, or a tie across the top-m boundary), the search, the input, and
        ``acc``, ``nmi``, ``ari`` only when labels were given.
    selector : LabelFreeSelector
        Fitted on the non-constant features.
    matrix : UserMatrix
        The input, as :func:`fsclust.userdata.as_user_matrix` read it.
    support : ndarray of shape (n_features,), bool
        The selected columns of ``matrix.X``.
    """

    method: str
    ranking: pd.DataFrame
    labels: pd.DataFrame
    criterion: pd.DataFrame
    summary: dict
    selector: object
    matrix: object
    support: np.ndarray = field(repr=False)

    def reduced(self):
        """The selected columns of the matrix, in their original order.

        Returns
        -------
        pandas.DataFrame of shape (n_samples, m)
            Indexed by the sample names, columns named by the feature names.
        """
        names = np.asarray(self.matrix.feature_names, dtype=object)
        return pd.DataFrame(self.matrix.X[:, self.support], index=list(self.matrix.sample_names),
                            columns=list(names[self.support]))

    def to_anndata(self):
        """A copy of the input AnnData with the result, as scanpy writes ``highly_variable``.

        ``var`` gets ``fsclust_score``, ``fsclust_rank`` and ``fsclust_selected`` (features the
        matrix did not hold, e.g. left out by ``top_variable``, get NaN, NaN and False),
        ``obs`` gets the categorical ``fsclust_cluster`` and ``uns["fsclust"]`` the summary.

        Returns
        -------
        anndata.AnnData
        """
        adata = getattr(self.matrix, "adata", None)
        if adata is None:
            raise ValueError("to_anndata() needs AnnData input (the matrix came from "
                             f"{self.matrix.source!r}); use reduced() for a DataFrame")
        out = adata.copy()
        by_feature = self.ranking.set_index("feature")
        var = by_feature.reindex(_names(out.var_names, self.matrix.feature_names, "var_names"))
        out.var["fsclust_score"] = var["score"].to_numpy(dtype=float)
        out.var["fsclust_rank"] = var["rank"].to_numpy(dtype=float)
        out.var["fsclust_selected"] = var["selected"].fillna(False).to_numpy(dtype=bool)
        clusters = self.labels.set_index("sample")["cluster"]
        obs = clusters.reindex(_names(out.obs_names, self.matrix.sample_names, "obs_names"))
        categories = [str(c) for c in sorted(clusters.unique())]
        out.obs["fsclust_cluster"] = pd.Categorical(
            [None if pd.isna(c) else str(int(c)) for c in obs], categories=categories)
        out.uns["fsclust"] = _without_none(self.summary)
        return _plain_strings(out)


def _plain_strings(adata):
    """``adata`` with its names and text columns as plain (object) strings.

    pandas 3 holds text in its own string dtype, which anndata writes only when
    ``allow_write_nullable_strings`` is set, and which h5ad readers before anndata 0.11 cannot
    read: the plain object dtype is written, and read, by every version.
    """
    for frame in (adata.obs, adata.var):
        frame.index = frame.index.astype(object)
        for column in frame.columns:
            dtype = frame[column].dtype
            if pd.api.types.is_string_dtype(dtype) and not isinstance(dtype,
                                                                       pd.CategoricalDtype):
                frame[column] = frame[column].astype(object)
    return adata


def _names(index, names, what):
    """``index`` as the labels to look up in the result; checked to be unique."""
    index = list(map(str, index))
    if len(set(index)) != len(index):
        raise ValueError(f"to_anndata() needs unique {what}; call adata.{what}_make_unique() "
                         "before select()")
    return index


def _without_none(value):
    """``value`` with the None entries of its dicts left out (h5ad cannot store None)."""
    if isinstance(value, dict):
        return {key: _without_none(v) for key, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


@dataclass
class MultiSelection:
    """What :func:`select` found with several methods, fitted on the same matrix and seed.

    Attributes
    ----------
    results : dict of str to SelectionResult
        One per method, in the order asked.
    agreement : pandas.DataFrame
        One row per ordered pair of methods (both orders and each method with itself, so
        that a pivot is a symmetric matrix with 1 on its diagonal): ``method_a``,
        ``method_b``, their chosen m (``n_features_a``, ``n_features_b``), ``jaccard`` (of
        their selected sets), ``common_n_features`` (the common m: the given ``n_features``,
        else the smaller chosen m) and ``top_overlap`` (the fraction of the top common-m
        features of a that are among those of b).
    matrix : UserMatrix
    """

    results: dict
    agreement: pd.DataFrame
    matrix: object

    @property
    def methods(self):
        """The method names, in the order asked."""
        return list(self.results)

    def __getitem__(self, method):
        return self.results[method]

    def agreement_matrix(self, measure="jaccard"):
        """``agreement`` as a methods x methods table of ``measure`` ("jaccard" or
        "top_overlap")."""
        if measure not in ("jaccard", "top_overlap"):
            raise ValueError(f"measure={measure!r}: choose 'jaccard' or 'top_overlap'")
        table = self.agreement.pivot(index="method_a", columns="method_b", values=measure)
        return table.loc[self.methods, self.methods].rename_axis(index=None, columns=None)


def _user_matrix(X, labels, label_column):
    """``X`` as a UserMatrix: as it is when it is one already (the command line reads and
    preprocesses it first), with ``labels`` as its ``y`` when they are given."""
    from fsclust.userdata import UserMatrix, as_user_matrix

    if not isinstance(X, UserMatrix):
        return as_user_matrix(X, labels=labels, label_column=label_column)
    if label_column is not None:
        raise ValueError(f"label_column={label_column!r} with a matrix already read: give it "
                         "to read_user_matrix, or give labels=")
    if labels is None:
        return X
    labels = np.asarray(labels)
    if labels.shape != (X.X.shape[0],):
        raise ValueError(f"labels has shape {labels.shape}; give one label per sample "
                         f"({X.X.shape[0]})")
    return dataclasses.replace(X, y=labels, label_column=None)


def did_you_mean(name, valid):
    """``"did you mean 'x'? "`` with the valid name closest to ``name``, or ``""``."""
    close = difflib.get_close_matches(str(name), valid, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


def resolve_methods(method):
    """The list of registered method names ``method`` asks for (a name, a list, or "all")."""
    from fsclust.registry import method_names, table_method_names

    if isinstance(method, str):
        names = table_method_names() if method == "all" else [method]
    else:
        names = list(method)
    if not names:
        raise ValueError("method=[]: give a method name, a list of names or 'all'")
    valid = method_names()
    for name in names:
        if not isinstance(name, str) or name not in valid:
            raise ValueError(f"method={name!r} is not a registered method; "
                             f"{did_you_mean(name, valid)}valid methods: {', '.join(valid)}, "
                             "or 'all' (see 'fsclust methods')")
    if len(set(names)) != len(names):
        raise ValueError(f"method={names!r} names a method twice; give each once")
    return names


def _method_params(names, method_params):
    """Each method's parameters: ``method_params`` is one dict for every method, or, with
    several methods, a dict of method name -> dict; checked against the registry."""
    from fsclust.registry import UnknownNameError, check_params

    params = dict(method_params or {})
    per_method = len(names) > 1 and params and all(key in names for key in params)
    out = {name: dict(params.get(name) or {}) if per_method else dict(params) for name in names}
    for name, given in out.items():
        for key, option in (("n_clusters", "n_clusters=K"), ("random_state", "random_state=S"),
                            ("n_features_to_select", "n_features=M")):
            if key in given:
                raise ValueError(f"method_params {key}: select sets it; use {option}")
        try:
            check_params("method", name, given)
        except UnknownNameError as exc:
            raise ValueError(f"method_params: {exc}") from None
        except (ValueError, TypeError) as exc:
            raise ValueError(f"method_params for {name!r}: {exc}") from None
    return out


def _selector_options(options):
    """The LabelFreeSelector parameters passed through ``**selector_options``, names checked."""
    from fsclust.selection import LabelFreeSelector

    valid = sorted(set(inspect.signature(LabelFreeSelector).parameters) - {"method_params",
                                                                           *_OWN})
    for name in options:
        if name not in valid:
            raise ValueError(f"unknown option {name}=...; {did_you_mean(name, valid)}valid "
                             "options: "
                             f"{', '.join(valid)}")
    return dict(options)


def _check_sizes(matrix, constant, n_features, n_clusters, subsample):
    """m and K checked against the data before any fit, in the words of the parameters."""
    from fsclust.selection import subsample_size

    (n, d), d_ranked = matrix.X.shape, int((~constant).sum())
    if n_features != "auto" and not 1 <= n_features <= d_ranked:
        constants = f" ({d - d_ranked} of the {d} are constant)" if d_ranked < d else ""
        raise ValueError(f"n_features={n_features} is out of range: the number of features to "
                         f"keep must be between 1 and the {d_ranked} features of the matrix"
                         f"{constants}")
    size = subsample_size(subsample, n)
    if not 3 <= size < n:
        raise ValueError(f"subsample={subsample} of {n} samples gives {size}; it must leave at "
                         "least 3 samples and fewer than all: change subsample")
    return size


def _n_clusters(n_clusters, matrix, size, subsample):
    """K and where it comes from (one of :data:`K_SOURCES`), checked against the subsample."""
    n = matrix.X.shape[0]
    where = f"subsample={subsample} of {n} samples"
    if n_clusters not in ("auto", "search"):
        if not 2 <= n_clusters < size:
            raise ValueError(f"n_clusters={n_clusters} is out of range: the number of clusters "
                             f"must be between 2 and the subsample size minus one ({size - 1}: "
                             f"{where})")
        return n_clusters, "given"
    if matrix.y is None or n_clusters == "search":
        return "auto", "selector"
    k = int(np.unique(matrix.y).size)
    if not 2 <= k < size:
        raise ValueError(f"the labels have {k} class(es), so K = {k}, which is out of range: "
                         f"the number of clusters must be between 2 and the subsample size "
                         f"minus one ({size - 1}: {where}); give n_clusters=K")
    return k, "labels"


def constant_features(matrix):
    """The mask of constant columns, which are not ranked; an error when every one is."""
    # A constant column carries no cluster structure and gives 0/0 in several scores (Laplacian,
    # SPEC, standardised PCA); rank the others and put the constants last, tied with the worst.
    from fsclust.rankers.base import constant_features as constant_columns

    constant = constant_columns(matrix.X)
    if constant.all():
        raise ValueError(f"{matrix.source}: all {constant.size} feature(s) are constant; "
                         "nothing to rank")
    return constant


def ranking_with_ties(selector, names, constant):
    """The ranking table over every column (constants last) and the selected-column mask."""
    from fsclust.rankers.base import tied_features
    from fsclust.ranking import ranking_table

    names = np.asarray(names, dtype=object)
    ranked = np.flatnonzero(~constant)
    table = ranking_table(selector.ranker_, names[ranked], with_index=True)
    support = np.zeros(constant.size, dtype=bool)
    support[ranked[selector.support_]] = True
    table["index"] = ranked[table["index"].to_numpy()]
    tied, _ = tied_features(table["score"].to_numpy())
    if constant.any():
        finite = table["score"][np.isfinite(table["score"])]
        worst = float(finite.iloc[-1]) if len(finite) else 0.0
        tail = pd.DataFrame({"feature": names[constant], "score": worst,
                             "rank": np.arange(len(table) + 1, constant.size + 1),
                             "index": np.flatnonzero(constant)})
        table = pd.concat([table, tail], ignore_index=True)
        tied = np.concatenate([tied, np.full(int(constant.sum()), constant.sum() > 1)])
    table["selected"] = support[table["index"].to_numpy()]
    table["tied"] = tied
    return table.drop(columns="index"), support


def tie_warnings(method, table, constant):
    """Warnings for a ranking decided by ties, with the fix; and whether it is degenerate."""
    from fsclust.rankers.base import all_scores_tied, tied_features

    ranked = table.iloc[: int((~constant).sum())]
    scores = ranked["score"].to_numpy()
    _, group = tied_features(scores)
    d = len(ranked)
    if all_scores_tied(scores):  # every score NaN orders nothing either
        fix = ("for llcfs, a neighbourhood graph split into components gives every feature "
               "the same weight: set method_params={'neighborhood': 'knn'} (--set "
               "neighborhood=knn)" if method == "llcfs" else "try another method")
        return [f"{method}: all {d} scores are equal ({ranked['score'].iat[0]:.6g}): the "
                f"ranking is the column order, not the method's; {fix}"], True
    selected = ranked["selected"].to_numpy()
    size = np.bincount(group)
    crossing = np.flatnonzero((np.bincount(group, weights=selected) % size) > 0)
    messages = []
    for g in crossing:  # one group for a nested ranking: the one at rank m
        members = group == g
        ranks = ranked["rank"].to_numpy()[members]
        keep = [f"n_features={int(ranks.min()) - 1} keeps the tie out"] if ranks.min() > 1 else []
        keep.append(f"n_features={int(ranks.max())} keeps it in")
        messages.append(
            f"{method}: {int(members.sum())} features "
            f"({_quote_names(ranked['feature'][members])}) "
            f"share the score {ranked['score'].to_numpy()[members][0]:.6g} across the top-m "
            f"boundary: {int(selected[members].sum())} of them are selected by column order, not "
            f"by the method; {', '.join(keep)}, or try another method")
    return messages, bool(messages)


def _choice_warnings(selector):
    """The account of how (m, K) was chosen, and warnings for a doubtful choice."""
    table = selector.criteria_
    m, k = selector.n_features_, selector.n_clusters_
    criterion, rule = selector.criterion, selector.rule
    searched = [name for name in ("n_features", "n_clusters")
                if selector.get_params()[name] == "auto"]
    messages = []
    if not searched:
        how = "m and K given, no search"
    else:
        row = table[(table["n_features"] == m) & (table["n_clusters"] == k)].iloc[0]
        value, se = row[criterion], row[f"{criterion}_se"]
        how = f"criterion {criterion} = {value:.3f} ± {se:.3f}, rule {rule}"
        if rule == "one-se" and "n_features" in searched:
            how += ": the smallest sufficient m"
        undefined = int(table[criterion].isna().sum())
        if undefined:
            messages.append(f"criterion {criterion} is undefined at {undefined} of {len(table)} "
                            "(m, K) (a subsample clustered into one group?); they were not "
                            "candidates")
        if criterion == "stability" and value <= 0:
            messages.append(f"stability {value:.3f} at the chosen (m, K): no more stable than "
                            "random labellings of the same cluster sizes; the data may hold "
                            "no clusters")
    n_found = len(np.unique(selector.labels_))
    if n_found < k:
        messages.append(f"the clustering of all samples has {n_found} non-empty cluster(s), "
                        f"fewer than K = {k}")
    if searched == ["n_features"]:
        how += "; K given"
    elif searched == ["n_clusters"]:
        how += "; m given"
    return how, messages


def _summary(method, params, selector, matrix, constant, k_source, random_state):
    """The summary: the choice, how it was searched, and scores only when labels were given."""
    from fsclust.metrics import evaluate

    (n, d), table = matrix.X.shape, selector.criteria_
    summary = {
        "method": method,
        "parameters": params,
        "input": str(matrix.source),
        "format": matrix.format,
        "preprocessing": list(matrix.preprocessing),
        "n_samples": int(n),
        "n_features_in": int(d),
        "n_constant_features": int(constant.sum()),
        "n_features": selector.n_features_,
        "n_clusters": selector.n_clusters_,
        "k_source": k_source,
        "criterion": selector.criterion,
        "rule": selector.rule,
        "search": {
            "n_features": selector.n_features,
            "n_clusters": selector.n_clusters,
            "n_features_grid": sorted(int(v) for v in table["n_features"].unique()),
            "n_clusters_range": sorted(int(v) for v in table["n_clusters"].unique()),
            "n_resamples": selector.n_resamples,
            "subsample": selector.subsample,
            "clusterer": selector.clusterer,
        },
        "eigengap_n_clusters": selector.eigengap_n_clusters_,
        # beside the sparsest sufficient m of the one-se rule, the set the subsamples agree on
        "stable_n_features": selector.stable_n_features_,
        "stable_feature_stability": (None if selector.stable_n_features_ is None
                                     else round(selector.stable_feature_stability_, 4)),
        "seed": random_state,
        "fsclust_version": __version__,
    }
    if matrix.y is not None:
        summary.update(label_column=matrix.label_column, n_classes=int(np.unique(matrix.y).size),
                       **evaluate(matrix.y, selector.labels_))
    return summary


def _select_one(matrix, method, params, constant, *, n_features, n_clusters, k_source,
                random_state, n_jobs, options, size):
    """Fit the selector with ``method`` on the non-constant columns; the SelectionResult."""
    from fsclust.rankers.base import status_warnings
    from fsclust.selection import LabelFreeSelector

    if n_features != "auto" and "n_features_to_select" not in (params or {}):
        # the number kept, told to the method: UDFS's and SOGFS's active rows and MCFS's
        # non-zeros per eigenvector depend on it (capped at the non-constant columns)
        params = {**(params or {}),
                  "n_features_to_select": int(min(n_features, int((~constant).sum())))}
    selector = LabelFreeSelector(method, params or None, n_features=n_features,
                                 n_clusters=n_clusters, n_jobs=n_jobs,
                                 random_state=random_state, **options)
    n = matrix.X.shape[0]
    try:
        with pywarnings.catch_warnings():
            # the ranker's "all scores are equal" is reported once, with its fix, by
            # tie_warnings below (status_warnings for a method that knows why)
            pywarnings.filterwarnings("ignore", message=r".*: all \d+ scores are equal",
                                      category=RuntimeWarning)
            selector.fit(matrix.X[:, ~constant])  # never the labels: they only score it
    except ValueError as exc:
        message = str(exc)
        if "n_samples" in message:  # the method met a subsample, not the user's n samples
            message += (f" (the selector ranks subsamples of {size} of the {n} samples: "
                        "subsample)")
        raise ValueError(f"{method}: {message}") from None
    ranking, support = ranking_with_ties(selector, matrix.feature_names, constant)
    how, warnings = _choice_warnings(selector)
    if constant.any():
        names = np.asarray(matrix.feature_names, dtype=object)[constant]
        warnings.insert(0, f"{int(constant.sum())} constant feature(s) ({_quote_names(names)}) "
                           f"ranked last with score {ranking['score'].iat[-1]:.6g}")
    ties, degenerate = tie_warnings(method, ranking, constant)
    status, no_ranking = status_warnings(method, selector.ranker_)
    summary = _summary(method, params, selector, matrix, constant, k_source, random_state)
    # a status that says why there is no ranking replaces the generic all-equal warning
    summary.update(choice=how, warnings=warnings + status + ([] if no_ranking else ties),
                   degenerate=degenerate or no_ranking)
    labels = pd.DataFrame({"sample": list(matrix.sample_names), "cluster": selector.labels_})
    return SelectionResult(method=method, ranking=ranking, labels=labels,
                           criterion=selector.criteria_.copy(), summary=summary,
                           selector=selector, matrix=matrix, support=support)


def agreement_table(results, n_features, constant):
    """The pairwise agreement of the methods' selected sets (:class:`MultiSelection`)."""
    from fsclust.rankers.base import selected_features

    ranked = np.flatnonzero(~constant)  # the selectors' columns

    def top(result, m):
        # the m features the method selects, by its own protocol (FSFS's sets are not nested)
        return set(ranked[selected_features(result.selector.ranker_, m)].tolist())

    rows = []
    for a, b in product(results, repeat=2):
        ra, rb = results[a], results[b]
        chosen_a, chosen_b = set(np.flatnonzero(ra.support)), set(np.flatnonzero(rb.support))
        m_a, m_b = len(chosen_a), len(chosen_b)
        m = n_features if n_features != "auto" else min(m_a, m_b)
        rows.append({"method_a": a, "method_b": b, "n_features_a": m_a, "n_features_b": m_b,
                     "jaccard": len(chosen_a & chosen_b) / len(chosen_a | chosen_b),
                     "common_n_features": int(m),
                     "top_overlap": len(top(ra, m) & top(rb, m)) / m})
    return pd.DataFrame(rows)


def select(X, method="laplacian", *, n_features="auto", n_clusters="auto", labels=None,
           label_column=None, random_state=0, n_jobs=None, method_params=None,
           **selector_options):
    """Rank the features of ``X``, choose m features and K clusters without labels, cluster.

    Parameters
    ----------
    X : ndarray, pandas.DataFrame, anndata.AnnData or UserMatrix
        Samples in rows. A DataFrame keeps its index as sample names and its columns as
        feature names; AnnData may hold a dense or sparse ``X``; a
        :class:`fsclust.userdata.UserMatrix` (from ``read_user_matrix`` and ``preprocess``) is
        taken as it is.
    method : str, list of str or "all", default="laplacian"
        A registered method (``fsclust methods``), several, or "all" (every method of role
        "method" in :mod:`fsclust.registry` but those that model raw single-cell counts,
        which :func:`fsclust.pp.select_features` runs).
    n_features : "auto" or int, default="auto"
        The number of features to keep, between 1 and the number of non-constant features;
        "auto": chosen by the selector's criterion.
    n_clusters : "auto", "search" or int, default="auto"
        K, between 2 and the subsample size minus one. "auto": the number of classes of the
        labels when they are given, else the selector's estimate; "search": the selector's
        estimate even with labels (which then only score it: how well is K found without
        them?); ``summary["k_source"]`` says which.
    labels : array-like of shape (n_samples,), default=None
        Class labels, never used to choose the features: they set K when ``n_clusters`` is
        "auto" and score the clustering (``summary``'s ``acc``, ``nmi``, ``ari``).
    label_column : str, default=None
        A column of the DataFrame (removed from the features) or of AnnData's ``obs`` holding
        the labels.
    random_state : int or None, default=0
        The seed of every method's selector (the same for each).
    n_jobs : int, default=None
        Subsamples fitted in parallel (-1: all cores); the result does not depend on it.
    method_params : dict, default=None
        The method's parameters; with several methods, one dict for all or a dict of method
        name -> dict.
    **selector_options
        Further :class:`fsclust.selection.LabelFreeSelector` parameters (``criterion``,
        ``rule``, ``n_resamples``, ``subsample``, ``n_features_grid``, ...).

    Returns
    -------
    SelectionResult or MultiSelection
        A SelectionResult for one method name, a MultiSelection for a list or "all".

    Raises
    ------
    ValueError
        One message naming the parameter and the fix: an unknown method (with the closest
        name), m or K out of range, labels with too few or too many classes.
    """
    from fsclust.selection import LabelFreeSelector

    names = resolve_methods(method)
    params = _method_params(names, method_params)
    options = _selector_options(selector_options)
    for name, value, low, words in (("n_features", n_features, 1, ("auto",)),
                                    ("n_clusters", n_clusters, 2, ("auto", "search"))):
        if value not in words and (not isinstance(value, Integral) or isinstance(value, bool)
                                   or value < low):
            raise ValueError(f"{name}={value!r}: give {' or '.join(map(repr, words))} or an "
                             f"integer of at least {low}")
    if random_state is not None and (not isinstance(random_state, Integral)
                                     or isinstance(random_state, bool)):
        raise ValueError(f"random_state={random_state!r}: give an integer seed (or None), so "
                         "that every method draws the same subsamples")
    if n_jobs == 0:
        raise ValueError("n_jobs=0: give a number of parallel jobs (-1: all cores)")
    n_features = n_features if n_features == "auto" else int(n_features)
    n_clusters = n_clusters if n_clusters in ("auto", "search") else int(n_clusters)
    random_state = None if random_state is None else int(random_state)

    matrix = _user_matrix(X, labels, label_column)
    constant = constant_features(matrix)
    subsample = options.get("subsample", LabelFreeSelector().subsample)
    size = _check_sizes(matrix, constant, n_features, n_clusters, subsample)
    k, k_source = _n_clusters(n_clusters, matrix, size, subsample)
    results = {name: _select_one(matrix, name, params[name], constant, n_features=n_features,
                                 n_clusters=k, k_source=k_source, random_state=random_state,
                                 n_jobs=n_jobs, options=options, size=size)
               for name in names}
    if isinstance(method, str) and method != "all":
        return results[method]
    return MultiSelection(results=results,
                          agreement=agreement_table(results, n_features, constant),
                          matrix=matrix)
