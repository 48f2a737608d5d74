"""Base class of the feature rankers: raw scores in, ranking and selection out."""

from __future__ import annotations

import dataclasses
import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import Tags, check_random_state, get_tags
from sklearn.utils._param_validation import Interval, validate_parameter_constraints
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["FeatureRanker", "IntInterval", "RankerTags", "constant_features", "mean_plus_std_rule",
           "check_subset_size",
           "nested_selection", "ranking_from_scores", "ranks_from_order", "selected_features",
           "tied_cuts", "TIE_RTOL", "distinct_features", "tie_scale", "all_scores_tied",
           "tied_features", "status_warnings", "sparse_input", "size_bounds", "DENSIFY_MAX_ENTRIES",
           "SizeBoundError"]

#: A scipy.sparse input to a ranker that works on dense arrays is densified up to this many
#: entries (2^27 float64: 1 GiB); above it the ranker refuses and names the ones that keep
#: sparse input sparse.
DENSIFY_MAX_ENTRIES = 2**27


class IntInterval(Interval):
    """scikit-learn's ``Interval(Integral, ...)`` without the bools it lets through.

    ``True`` is an ``Integral`` to Python; as a number of neighbours or iterations it is a
    mistake, so it fails here as a wrong type.

    Examples
    --------
    >>> IntInterval(1, None, closed="left").is_satisfied_by(True)
    False
    """

    def __init__(self, left, right, *, closed):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


@dataclasses.dataclass(slots=True)
class RankerTags:
    """What a workflow must know of a ranker beyond scikit-learn's own tags.

    Parameters
    ----------
    nested_selection : bool, default=True
        True: the ``m`` selected features are ``feature_order_[:m]``, so the subsets for
        increasing ``m`` are nested. False: the ranker chooses each size's subset itself,
        with ``subset(m)`` (FSFS: one run per size; UDFS and SOGFS at their defaults: one
        fit per size, :class:`~fsclust.rankers.udfs.OneFitPerSize`).
    sparse_input : bool, default=False
        True: ``fit`` takes a scipy.sparse matrix and keeps it sparse (CSR, float32 or
        float64) from input to scores. False: a sparse input is densified up to
        :data:`DENSIFY_MAX_ENTRIES` entries and refused above.
    max_samples : int or None, default=None
        The largest number of samples the method handles: it builds ``n x n`` arrays (or its
        time grows with ``n^2`` or faster). None: memory linear in ``n``. Above it ``fit``
        refuses in one line (:class:`SizeBoundError`) and names the methods that scale.
    max_features : int or None, default=None
        The same for ``d x d`` arrays.
    max_smaller_side : int or None, default=None
        The same for ``min(n, d) x min(n, d)`` arrays (a method that works in the smaller
        space: PCA, Q-alpha, UFF): a tall or a wide input passes when its smaller side does.
    counts_input : bool, default=False
        True: the method models raw counts (scanpy's ``seurat_v3`` and Pearson residuals,
        the binomial deviance) and ``fit`` expects the counts; a front door hands it the
        counts and the other methods the normalised, log-transformed data.
    sparse_memory : float or None, default=None
        The memory a fit of sparse input takes beyond the input, as a multiple of the input's
        bytes (values, indices, row pointers), measured at 10^5 and 10^6 cells
        (``speed/singlecell_scale.py``: the peak above the interpreter and the counts). Where
        that exceeds the memory this machine has available, ``fit`` refuses in one line
        (:class:`SizeBoundError`) instead of dying of the out-of-memory killer, naming the
        methods that need less. None: not measured, not checked.
    dask_input : bool, default=False
        True: ``fit`` also takes a Dask array of CSR row blocks (cells in rows; the counts
        of a chunked store, :mod:`fsclust.counts.chunked`) and gives the scores of the
        matrix in memory, each task holding one or two row blocks (``_score_dask``).
    """

    nested_selection: bool = True
    sparse_input: bool = False
    max_samples: int | None = None
    max_features: int | None = None
    max_smaller_side: int | None = None
    counts_input: bool = False
    sparse_memory: float | None = None
    dask_input: bool = False


@dataclasses.dataclass(slots=True)
class _FSClustTags(Tags):
    # scikit-learn's Tags has slots, so our tags ride on a subclass instead of an attribute
    ranker_tags: RankerTags = dataclasses.field(default_factory=RankerTags)


class SizeBoundError(ValueError):
    """A ranker asked to fit data beyond its declared size bound (:class:`RankerTags`)."""


def sparse_input(ranker):
    """Whether ``ranker`` keeps a scipy.sparse input sparse (:class:`RankerTags`).

    Examples
    --------
    >>> from fsclust.rankers import LaplacianScore, UDFS
    >>> sparse_input(LaplacianScore()), sparse_input(UDFS())
    (True, False)
    """
    return get_tags(ranker).ranker_tags.sparse_input


def size_bounds(ranker):
    """``(max_samples, max_features)`` of ``ranker`` (None: no bound), :class:`RankerTags`.

    Examples
    --------
    >>> from fsclust.rankers import VarianceScore
    >>> size_bounds(VarianceScore())
    (None, None)
    """
    tags = get_tags(ranker).ranker_tags
    return tags.max_samples, tags.max_features


def _scalable_methods():
    """The registered methods that keep sparse input sparse and have no sample bound."""
    from ..registry import method_names_by_role, ranker_class  # the registry imports no ranker

    names = []
    for name in method_names_by_role("method"):
        try:
            tags = get_tags(ranker_class(name)()).ranker_tags
        except Exception:  # a method whose optional dependency is missing, or needs arguments
            continue
        # the count models (scanpy's flavors, the deviance) are no alternative for a table
        if tags.sparse_input and tags.max_samples is None and not tags.counts_input:
            names.append(name)
    return names


def _dask_methods():
    """The registered methods whose ``fit`` takes a Dask array (:class:`RankerTags`)."""
    from ..registry import method_names_by_role, ranker_class

    names = []
    for name in method_names_by_role("method"):
        try:
            if get_tags(ranker_class(name)()).ranker_tags.dask_input:
                names.append(name)
        except Exception:  # a method whose optional dependency is missing
            continue
    return names


def _check_size(ranker, X):
    """Refuse, in one line, data beyond ``ranker``'s bounds, before any large allocation."""
    tags = get_tags(ranker).ranker_tags
    name = type(ranker).__name__
    n, d = X.shape
    if tags.max_samples is not None and n > tags.max_samples:
        raise SizeBoundError(
            f"{name} handles at most {tags.max_samples:,} samples (it builds n x n arrays) and "
            f"got {n:,}; use a method that scales ({', '.join(_scalable_methods())}) or "
            f"subsample the samples.")
    if tags.max_features is not None and d > tags.max_features:
        raise SizeBoundError(
            f"{name} handles at most {tags.max_features:,} features (it builds d x d arrays) "
            f"and got {d:,}; prefilter the features (e.g. the top ones by variance) or use a "
            f"method that scales ({', '.join(_scalable_methods())}).")
    if tags.max_smaller_side is not None and min(n, d) > tags.max_smaller_side:
        raise SizeBoundError(
            f"{name} handles at most {tags.max_smaller_side:,} as the smaller of n_samples "
            f"and n_features (it builds min(n, d) x min(n, d) arrays) and got {n:,} x {d:,}; "
            f"subsample the samples or prefilter the features (e.g. the top ones by "
            f"variance), or use a method that scales ({', '.join(_scalable_methods())}).")
    if sp.issparse(X) and tags.sparse_input and tags.sparse_memory is not None:
        _check_memory(name, tags.sparse_memory, X)
    if sp.issparse(X) and not tags.sparse_input and n * d > DENSIFY_MAX_ENTRIES:
        raise SizeBoundError(
            f"{name} works on dense arrays and this sparse {n:,} x {d:,} input would take "
            f"{n * d * 8 / 2**30:.1f} GiB dense; use a method that keeps sparse input sparse "
            f"({', '.join(_scalable_methods())}) or prefilter the features.")


def _check_memory(name, factor, X):
    """Refuse a sparse ``X`` whose fit would take more than the available memory
    (:attr:`RankerTags.sparse_memory` times ``X``'s bytes): one line, not the out-of-memory
    killer. The refusal depends on the machine (its free memory), never a result."""
    from ._bounds import available_memory, sparse_nbytes

    size = sparse_nbytes(X)
    need = factor * size
    available = available_memory()
    if available is None or need <= available:
        return
    leaner = ", ".join(_leaner_methods(factor)) or "none registered"
    raise SizeBoundError(
        f"{name} needs about {need / 2**30:.1f} GiB beyond its {size / 2**30:.1f} GiB sparse "
        f"input ({factor:g} times it, measured) and this machine has {available / 2**30:.1f} "
        f"GiB available; use a method that needs less ({leaner}), subsample the cells, or a "
        f"machine with more memory.")


def _leaner_methods(factor):
    """The registered methods whose fits of sparse input need less than ``factor`` times it."""
    from ..registry import make_ranker, method_names_by_role

    names = []
    for name in method_names_by_role("method"):
        try:
            tags = get_tags(make_ranker(name)).ranker_tags
        except Exception:  # a method whose optional dependency is missing, or needs arguments
            continue
        if tags.sparse_input and tags.sparse_memory is not None and tags.sparse_memory < factor:
            names.append(name)
    return names


def nested_selection(ranker):
    """Whether ``ranker``'s top-``m`` subsets are nested (``feature_order_[:m]``).

    Examples
    --------
    >>> from fsclust.rankers import FSFS, VarianceScore
    >>> nested_selection(VarianceScore()), nested_selection(FSFS())
    (True, False)
    """
    return get_tags(ranker).ranker_tags.nested_selection


def check_subset_size(m, n_features):
    """``m`` as a ``subset(m)`` takes it: an int from 1 to ``n_features``, else one error.

    Examples
    --------
    >>> check_subset_size(3, 10)
    3
    """
    if isinstance(m, bool) or not isinstance(m, Integral):
        raise TypeError(f"m must be an int, got {m!r}.")
    if not 1 <= m <= n_features:
        raise ValueError(f"m={m} must be between 1 and n_features={n_features}.")
    return int(m)


def selected_features(ranker, m):
    """The ``m`` features a fitted ``ranker`` selects, by the protocol its tags declare.

    Parameters
    ----------
    ranker : FeatureRanker, fitted
    m : int

    Returns
    -------
    ndarray of shape (m,), int
        ``feature_order_[:m]``, or ``subset(m)`` for a ranker whose subsets are not nested.

    Examples
    --------
    >>> from fsclust.rankers import VarianceScore
    >>> X = np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 5.5], [0.0, 5.0, 6.0]])
    >>> selected_features(VarianceScore().fit(X), 2)
    array([1, 2])
    """
    if nested_selection(ranker):
        return np.asarray(ranker.feature_order_[:m], dtype=np.intp)
    return np.asarray(ranker.subset(m), dtype=np.intp)


def _c_order_copy(X, block=64):
    """A C-order copy of an F-ordered float64 array, ``block`` columns at a time, else None.

    NumPy's own order-changing copy walks the destination row by row and reads the source
    with a stride of ``n`` elements; copying column blocks keeps both sides in cache (TOX-171,
    171 x 5748: 0.6 ms instead of 1.2-1.5 ms).
    """
    if not (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2
            and X.flags.f_contiguous and not X.flags.c_contiguous):
        return None
    C = np.empty(X.shape)
    for j in range(0, X.shape[1], block):
        C[:, j:j + block] = X[:, j:j + block]
    return C


def constant_features(X):
    """Mask of the constant columns: ``ptp(f) <= 1e-12 * max(1, max|f|)``.

    Parameters
    ----------
    X : array-like of shape (n, D)

    Returns
    -------
    mask : ndarray of shape (D,), bool

    Examples
    --------
    >>> constant_features([[1.0, 0.0], [1.0, 2.0]])
    array([ True, False])
    """
    if sp.issparse(X):
        hi, lo = _sparse_column_extremes(X)
    else:
        X = np.asarray(X, dtype=np.float64)
        # one max and one min per column give both the range and max |f|
        hi, lo = X.max(axis=0), X.min(axis=0)
    scale = np.maximum(1.0, np.maximum(np.abs(hi), np.abs(lo)))
    return (hi - lo) <= 1e-12 * scale


def _sparse_column_extremes(X):
    """Column maxima and minima of a sparse matrix, implicit zeros included, in O(nnz)
    without a CSC copy (scipy's own ``max(axis=0)`` of a CSR matrix converts it)."""
    X = sp.csr_matrix(X)
    n, d = X.shape
    hi = np.full(d, -np.inf)
    lo = np.full(d, np.inf)
    stored = np.zeros(d, dtype=np.int64)
    # blocks of rows turned to CSC (scipy's C++ conversion), each column's extremes by
    # reduceat over its segment: ten times faster than ufunc.at, memory one block's
    rows = max(1, int(2**22 / max(1.0, X.nnz / max(n, 1))))
    for start in range(0, n, rows):
        block = X[start:start + rows].tocsc()
        counts = np.diff(block.indptr)
        has = counts > 0
        if not has.any():
            continue
        starts = block.indptr[:-1][has]
        hi[has] = np.maximum(hi[has], np.maximum.reduceat(block.data, starts))
        lo[has] = np.minimum(lo[has], np.minimum.reduceat(block.data, starts))
        stored += counts
    # a column with fewer stored values than rows has zeros too
    has_zero = stored < n
    hi[has_zero] = np.maximum(hi[has_zero], 0.0)
    lo[has_zero] = np.minimum(lo[has_zero], 0.0)
    return hi, lo


def ranks_from_order(order):
    """Rank of each feature (1 = best) from the feature indices best first.

    Parameters
    ----------
    order : array-like of shape (D,), int
        A permutation of ``range(D)``, best first.

    Returns
    -------
    ranks : ndarray of shape (D,), int
        ``ranks[order[i]] == i + 1``, scikit-learn's ``RFE.ranking_`` convention.

    Examples
    --------
    >>> ranks_from_order([2, 0, 1])
    array([2, 3, 1])
    """
    order = np.asarray(order, dtype=np.intp)
    ranks = np.empty(order.shape[0], dtype=np.intp)
    ranks[order] = np.arange(1, order.shape[0] + 1)
    return ranks


def ranking_from_scores(scores, higher_is_better, constant_mask=None):
    """Feature indices from best to worst.

    The score is oriented so that bigger is better; NaN scores and constant features get the
    worst value (``-inf``), and ties go to the lower feature index (stable sort).

    Parameters
    ----------
    scores : array-like of shape (D,)
        Raw scores, as the paper defines them.
    higher_is_better : bool
        The paper's direction.
    constant_mask : array-like of shape (D,), bool, default=None
        Features to put last whatever their score.

    Returns
    -------
    ranking : ndarray of shape (D,), int

    Notes
    -----
    Decision (the papers are silent): constant features and NaN scores go last whatever their
    raw score, because a constant column carries no cluster information and some scores (SPEC's
    phi1, scikit-feature's clamped Laplacian Score) would otherwise rank it first.

    Examples
    --------
    >>> ranking_from_scores([0.5, np.nan, 0.1, 0.5], higher_is_better=False)
    array([2, 0, 3, 1])
    >>> ranking_from_scores([3.0, 1.0, 2.0], True, constant_mask=[True, False, False])
    array([2, 1, 0])
    """
    scores = np.asarray(scores, dtype=np.float64)
    oriented = scores.copy() if higher_is_better else -scores
    worst = np.isnan(oriented)
    if constant_mask is not None:
        worst |= np.asarray(constant_mask, dtype=bool)
    oriented[worst] = -np.inf
    return np.argsort(-oriented, kind="stable")


def distinct_features(scores, rel=1e-9):
    """Features whose score differs from every other score by more than ``rel`` (relative).

    Their relative order is the same in every correct ranking of ``scores``; features tied
    with another may be ordered either way (what comparisons with other implementations
    must leave out).

    Examples
    --------
    >>> distinct_features(np.array([0.5, 0.1, 0.5, 0.9])).tolist()
    [1, 3]
    """
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    gap = np.abs(np.diff(s)) > rel * np.maximum(np.abs(s[1:]), np.abs(s[:-1]))
    ok = np.ones(s.size, dtype=bool)
    ok[1:] &= gap
    ok[:-1] &= gap
    return order[ok]


#: Two scores closer than this times the largest finite ``|score|`` are tied: their order is
#: decided by round-off or by the column order, not by the method.
TIE_RTOL = 1e-12


def tie_scale(scores, usable=None):
    """The scale of the tie rule: the largest finite ``|score|`` (of the ``usable`` features).

    Two scores are tied when they differ by at most :data:`TIE_RTOL` times this scale; the one
    rule behind :func:`tied_features`, :func:`tied_cuts` and :func:`all_scores_tied`."""
    scores = np.asarray(scores, dtype=np.float64)
    keep = np.isfinite(scores) if usable is None else np.isfinite(scores) & usable
    return float(np.max(np.abs(scores[keep]), initial=0.0))


def all_scores_tied(scores, constant_mask=None, rtol=TIE_RTOL):
    """Whether the scores of the ranked (non-constant) features order nothing: more than one
    such feature, and their finite scores all within ``rtol`` times :func:`tie_scale` (none
    finite: NaN orders nothing either). The ranking is then the column order, not the
    method's (kernel weights that never left the uniform start, LLC-fs on a graph that split
    at once, the variance of z-scored data).

    Examples
    --------
    >>> all_scores_tied([0.5, 0.5 + 1e-15, 0.5]), all_scores_tied([0.5, 0.4, 0.5])
    (True, False)
    >>> all_scores_tied([0.5, 0.4, 0.5], constant_mask=[False, True, False])
    True
    """
    scores = np.asarray(scores, dtype=np.float64)
    ranked = scores if constant_mask is None else scores[~np.asarray(constant_mask, dtype=bool)]
    finite = ranked[np.isfinite(ranked)]
    spread = np.ptp(finite) if finite.size else 0.0
    return bool(ranked.size > 1 and spread <= rtol * tie_scale(finite))


def tied_cuts(scores, order, grid, constant_mask=None, rtol=TIE_RTOL):
    """The sizes m of ``grid`` whose top-m set is decided by a tie: the m-th and (m+1)-th
    ranked features have scores within ``rtol * max|score|``; ``order`` is the feature
    indices best first (a ranker's ``feature_order_``).

    Such a cut is decided by round-off or by index order, not by the method: the selected set
    is arbitrary. Constant features are left out (they rank last and change no distance, so a
    cut among them changes no clustering), and so is m = d.

    Examples
    --------
    >>> tied_cuts([3.0, 2.0, 2.0, 1.0], [0, 1, 2, 3], [1, 2, 3, 4])
    [2]
    """
    scores = np.asarray(scores, dtype=np.float64)
    order = np.asarray(order, dtype=int)
    d = order.size
    usable = np.ones(d, dtype=bool) if constant_mask is None else ~np.asarray(constant_mask,
                                                                              dtype=bool)
    finite = np.isfinite(scores)
    scale = tie_scale(scores, usable)
    out = []
    for m in sorted({int(m) for m in grid}):
        if not 1 <= m < d:
            continue
        a, b = order[m - 1], order[m]
        if not (usable[a] and usable[b] and finite[a] and finite[b]):
            continue
        if abs(scores[a] - scores[b]) <= rtol * scale:
            out.append(m)
    return out


def tied_features(scores, rtol=None):
    """The features whose score equals another feature's score within ``rtol`` times the
    largest finite ``|score|`` (equal non-finite scores are tied too).

    Parameters
    ----------
    scores : array-like of shape (d,)
    rtol : float, default=None
        None: :data:`TIE_RTOL`.

    Returns
    -------
    tied : ndarray of shape (d,), bool
    group : ndarray of shape (d,), int
        The tie group of each feature (features with the same number are tied, through a
        chain of neighbouring scores); an untied feature is a group of its own.

    Examples
    --------
    >>> tied, group = tied_features([0.5, 0.1, 0.5 + 1e-15, 0.9])
    >>> tied.tolist(), bool(group[0] == group[2])
    ([True, False, True, False], True)
    """
    rtol = TIE_RTOL if rtol is None else rtol
    scores = np.asarray(scores, dtype=np.float64)
    scale = tie_scale(scores)
    order = np.argsort(scores, kind="stable")  # NaN last, so equal values are neighbours
    s = scores[order]
    with np.errstate(invalid="ignore"):  # inf - inf
        link = (np.abs(np.diff(s)) <= rtol * scale) | (s[1:] == s[:-1])
    link |= np.isnan(s[1:]) & np.isnan(s[:-1])
    sorted_tied = np.zeros(s.size, dtype=bool)
    sorted_tied[1:] |= link
    sorted_tied[:-1] |= link
    tied = np.empty_like(sorted_tied)
    tied[order] = sorted_tied
    group = np.empty(s.size, dtype=np.intp)
    group[order] = np.concatenate([[0], np.cumsum(~link)]) if s.size else []
    return tied, group


def status_warnings(method, ranker):
    """Warnings for a fit that did not end normally, from the ranker's own ``status_`` (where
    its class declares ``statuses``, e.g. LLC-fs); and whether its ranking is degenerate."""
    status = getattr(ranker, "status_", None)
    severity, meaning = getattr(type(ranker), "statuses", {}).get(status, ("ok", ""))
    if severity == "ok":
        return [], False
    return [f"{method}: status {status}: {meaning}"], severity == "degenerate"



def mean_plus_std_rule(scores, higher_is_better, constant_mask=None, ddof=1):
    """The informative-subset rule of UFF: keep the features whose score exceeds mean + sd.

    With ``s`` the score oriented so that bigger is better (``s = -score`` when smaller is
    better), keep ``{j : s_j > mean(s) + std(s, ddof)}``. The mean and sd are taken over the
    non-constant features with finite scores only; those others are never kept. The rule is
    invariant to positive affine maps of ``s``.

    Parameters
    ----------
    scores : array-like of shape (D,)
        Raw scores, as the paper defines them.
    higher_is_better : bool
        The paper's direction (False for the Laplacian Score and FRMV's mean rank).
    constant_mask : array-like of shape (D,), bool, default=None
        Features excluded from the statistics and from the subset.
    ddof : int, default=1
        Degrees of freedom of the sd (1: MATLAB's ``std``; an assumption, the papers
        do not say).

    Returns
    -------
    mask : ndarray of shape (D,), bool
        The selected features.

    References
    ----------
    Varshavsky et al. (2006), "Novel unsupervised feature filtering of biological data",
    Bioinformatics 22(14), the "SR" rule ``CE > c + sigma``; Zhang et al. (2012) apply it to
    every method (section 3.2, Table 2).

    Examples
    --------
    >>> mean_plus_std_rule([0.0, 0.0, 0.0, 1.0], higher_is_better=True)
    array([False, False, False,  True])
    >>> mean_plus_std_rule([1.0, 1.0, 1.0, 0.0], higher_is_better=False)
    array([False, False, False,  True])
    """
    scores = np.asarray(scores, dtype=np.float64)
    oriented = scores if higher_is_better else -scores
    usable = np.isfinite(oriented)
    if constant_mask is not None:
        usable &= ~np.asarray(constant_mask, dtype=bool)
    mask = np.zeros(scores.shape[0], dtype=bool)
    if usable.sum() <= ddof:
        return mask
    values = oriented[usable]
    threshold = values.mean() + values.std(ddof=ddof)
    mask[usable] = values > threshold
    return mask


class FeatureRanker(SelectorMixin, BaseEstimator):
    """Base class: rank features by a score, select the top ``n_features_to_select``.

    Subclasses implement ``_score(X, rng) -> scores`` (raw, exactly as the paper defines them,
    no sign flip), set the class attribute ``higher_is_better`` and declare their parameters
    in ``_parameter_constraints`` (``{**FeatureRanker._parameter_constraints, ...}``), which
    ``fit`` checks first. ``fit`` computes the scores and the ranking once, then calls
    ``_post_fit(X)`` (a method's own selection rule, or its own ranking); changing
    ``n_features_to_select`` afterwards with ``set_params`` changes the selection without a
    refit, so a sweep over the number of selected features is
    ``set_params(n_features_to_select=m).transform(X)``.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number ``m`` of top-ranked features kept by ``transform``; None keeps all.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Raw scores.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (scikit-learn's ``RFE.ranking_`` convention);
        ``ranking_[j] - 1`` is the position of feature ``j`` in ``feature_order_``.
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, best first; NaN scores and constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
        The constant features (``ptp(f) <= 1e-12 * max(1, max|f|)``), ranked last.
    n_features_in_ : int

    Examples
    --------
    A ranker is a score function and a direction:

    >>> import numpy as np
    >>> class MeanMagnitude(FeatureRanker):
    ...     higher_is_better = True
    ...     def _score(self, X, rng):
    ...         return np.abs(X.mean(axis=0))
    >>> X = np.array([[1.0, 0.0, 2.0], [3.0, 0.5, 2.0]])
    >>> ranker = MeanMagnitude(n_features_to_select=1).fit(X)
    >>> ranker.feature_order_  # the constant third feature goes last despite its score
    array([0, 1, 2])
    >>> ranker.ranking_  # the rank of each feature, 1 = best
    array([1, 2, 3])
    >>> ranker.get_support()
    array([ True, False, False])
    """

    #: The paper's direction of the raw score.
    higher_is_better = True

    #: Fitted attributes a workflow reports beside the ranking (the sidecar of a ranking run),
    #: where the method has them: iterations, objective, the bandwidth used and the features
    #: the method selects itself. A method with more extends the tuple.
    reported_attributes = ("n_iter_", "objective_history_", "n_features_selected_", "t_",
                           "selected_features_")

    #: Fitted arrays a later step may read (another method's input, a paper's figure), kept
    #: by a workflow beside the ranking.
    stored_arrays = ()

    _parameter_constraints: dict = {
        "n_features_to_select": [IntInterval(1, None, closed="left"), None],
    }

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # every ranker takes scipy.sparse input: kept sparse where ranker_tags.sparse_input,
        # densified up to DENSIFY_MAX_ENTRIES otherwise (refused above, in one line)
        tags.input_tags.sparse = True
        return _FSClustTags(**{f.name: getattr(tags, f.name) for f in dataclasses.fields(tags)},
                            ranker_tags=RankerTags())

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Score and rank the features of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored
            Unsupervised; accepted for pipeline compatibility.

        Returns
        -------
        self
        """
        from ..counts.chunked import is_dask_array

        if is_dask_array(X):
            return self._fit_dask(X)
        # C order: rows (samples) contiguous, as the neighbour searches, the sparse W @ X
        # products and the Gram rows read them; an F-ordered input (scipy.io.loadmat gives
        # one) costs one copy, not one per later call. X itself is not copied: no ranker
        # writes into it (tested on read-only input), and a fresh copy of TOX-171 cost 4 ms
        # of page faults in a 19 ms Laplacian score
        if sp.issparse(X) or hasattr(X, "shape") and len(X.shape) == 2:
            _check_size(self, X)  # before any copy: a refusal allocates nothing
        if sp.issparse(X) and sparse_input(self):
            # CSR as given (float32 counts stay float32: at 10^6 cells a float64 copy of the
            # counts alone would double the memory); the scores are accumulated in float64
            X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                              ensure_min_samples=2, copy=False)
            if not X.has_canonical_format:  # duplicates summed, indices sorted, in place
                X.sum_duplicates()
        else:
            if sp.issparse(X):
                X = X.toarray()  # small (checked above): the dense method's own input
            own = _c_order_copy(X)
            X = validate_data(self, X if own is None else own, dtype=np.float64,
                              ensure_min_samples=2, copy=False, order="C")
        rng = check_random_state(getattr(self, "random_state", None))
        # before _score, which may use it (and must not recompute it)
        self.constant_mask_ = constant_features(X)
        scores = np.asarray(self._score(X, rng), dtype=np.float64)
        self._rank_scores(scores, X.shape[1])
        self._post_fit(X)
        self._n_selected()  # a bad n_features_to_select fails here, not later in transform
        return self

    def _fit_dask(self, X):
        """``fit`` of a Dask array of CSR row blocks: the same scores and ranking as of the
        matrix in memory, from the ranker's ``_score_dask``; a ranker without
        :class:`RankerTags` ``dask_input`` refuses in one line naming those with it."""
        from ..counts import chunked

        if not get_tags(self).ranker_tags.dask_input:
            raise ValueError(f"{type(self).__name__} does not take a Dask array; the methods "
                             f"that do: {', '.join(_dask_methods())} (or compute X into "
                             "memory first: X.compute())")
        if X.ndim != 2 or len(X.chunks[1]) != 1:
            raise ValueError(f"{type(self).__name__}: a Dask array of row blocks with every "
                             f"column in each block, got chunks {X.chunks!r:.80}; rechunk it "
                             "with X.rechunk({1: -1})")
        if X.shape[0] < 2:
            raise ValueError(f"{type(self).__name__}: at least 2 samples, got {X.shape[0]}")
        self.n_features_in_ = int(X.shape[1])
        hi, lo = chunked.column_extremes(X)
        scale = np.maximum(1.0, np.maximum(np.abs(hi), np.abs(lo)))
        self.constant_mask_ = (hi - lo) <= 1e-12 * scale  # constant_features' rule
        self._rank_scores(np.asarray(self._score_dask(X), dtype=np.float64), X.shape[1])
        self._n_selected()
        return self

    def _score_dask(self, X):
        raise NotImplementedError

    def _rank_scores(self, scores, n_features):
        """Set ``scores_``, ``feature_order_`` and ``ranking_`` (after ``constant_mask_``)."""
        if scores.shape != (n_features,):
            raise RuntimeError(
                f"{type(self).__name__}._score returned shape {scores.shape}, "
                f"expected ({n_features},)."
            )
        self.scores_ = scores
        if all_scores_tied(scores, self.constant_mask_):
            # e.g. kernel weights that never left the uniform start, LLC-fs on a graph that
            # split at once, KP-Kmeans that eliminated every feature
            ranked = scores[~self.constant_mask_]
            warnings.warn(
                f"{type(self).__name__}: all {ranked.size} scores are equal "
                f"({float(ranked[0]):.6g}); the ranking is the column order, not the method's",
                RuntimeWarning, stacklevel=4)  # past fit and its wrapper, to the caller
        self._set_feature_order(
            ranking_from_scores(scores, self.higher_is_better, self.constant_mask_))

    def _score(self, X, rng):
        raise NotImplementedError

    def _post_fit(self, X):
        """Called by ``fit`` after scoring and ranking ``X``: a method's own selection rule,
        or a ranking that is not an ordering of ``scores_`` (``_set_feature_order``)."""

    def _set_feature_order(self, order):
        """Set ``feature_order_`` (indices best first) and ``ranking_`` (ranks, 1 = best)."""
        self.feature_order_ = np.asarray(order, dtype=np.intp)
        self.ranking_ = ranks_from_order(self.feature_order_)

    def _scores_use_random_state(self):
        """Whether ``scores_`` depend on ``random_state``.

        True by default. A method whose only random choice is the k-means that discretises its
        own clustering (LLC-fs, Q-alpha from a uniform start) returns False and implements
        :meth:`relabel`; a workflow then fits it once and only re-draws the discretisation for
        each repeat, with results identical to a fit per repeat.
        """
        return "random_state" in self.get_params()

    def relabel(self, random_state):
        """``labels_`` as a fit with ``random_state`` would give them, without refitting.

        Only for methods whose :meth:`_scores_use_random_state` is False."""
        raise NotImplementedError(f"{type(self).__name__} cannot re-draw its labels alone")

    def _n_selected(self):
        m = self.n_features_to_select
        n_features = self.n_features_in_
        if m is None:
            return n_features
        # set_params after fit checks nothing: the declared constraint, again, for transform
        validate_parameter_constraints(
            {"n_features_to_select": self._parameter_constraints["n_features_to_select"]},
            {"n_features_to_select": m}, caller_name=type(self).__name__)
        if m > n_features:
            raise ValueError(f"n_features_to_select={m} is more than the n_features="
                             f"{n_features} of the fitted data; select at most {n_features}.")
        return int(m)

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.feature_order_[: self._n_selected()]] = True
        return mask
