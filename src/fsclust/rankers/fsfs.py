"""FSFS (Mitra, Murthy & Pal 2002): cluster the features by similarity, keep one per cluster."""

from __future__ import annotations

import heapq
import numbers
from collections import OrderedDict
from typing import NamedTuple

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .base import FeatureRanker, IntInterval, check_subset_size

__all__ = ["FSFS", "FSFSRun", "feature_dissimilarity", "fsfs_heap", "fsfs_naive", "mici",
           "sorted_neighbours"]

SIMILARITIES = ("mici", "corr", "regression")
DTYPES = ("float64", "float32")

#: rows of the dissimilarity matrix computed (and sorted) at a time: bounds the temporaries
_BLOCK_ROWS = 256

#: rows of a canonical strip of the truncated table (:class:`_TruncatedTable`)
_STRIP_ROWS = 64
#: sorted positions past the kept width whose values the truncated table's sketch holds
_SKETCH_POINTS = 256


class FSFSRun(NamedTuple):
    """One run of the FSFS algorithm at a fixed initial ``k``.

    Indices refer to the columns of the matrix the run was given.
    """

    #: the reduced set ``R``, in retention order (see :class:`FSFS`, Notes)
    retained: np.ndarray
    #: the removed features in the order of removal: step by step, each step's ``k``
    #: neighbours from the nearest to the farthest
    removed: np.ndarray
    #: ``k`` of each step (the number of neighbours it removed)
    k_trace: np.ndarray
    #: ``eps = r_{i*}^k`` of each step
    eps_trace: np.ndarray


def _dissimilarity_block(C, v_rows, v_cols, similarity, zero_tol):
    """Dissimilarity of the row features to the column features from their covariances.

    ``C`` is ``(B, M)`` (float64), ``v_rows`` ``(B,)`` and ``v_cols`` ``(M,)`` the
    population variances. The formulas are symmetric in (row, column) except
    ``"regression"``, so a block and its mirror image agree bit for bit.
    """
    vr = v_rows[:, None]
    vc = v_cols[None, :]
    if similarity == "mici":
        # lambda_2 = (v_x + v_y - sqrt((v_x - v_y)^2 + 4 c^2)) / 2, the paper's MICI
        s = vr + vc
        out = np.hypot(vr - vc, 2.0 * C)
        np.subtract(s, out, out=out)
        out *= 0.5
        # the closed form cancels: exact linear dependencies come out as +-1e-16 * s
        out[out < zero_tol * s] = 0.0
        return out
    denom = np.sqrt(vr * vc)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(denom > 0, C / denom, 0.0)
    np.clip(rho, -1.0, 1.0, out=rho)
    if similarity == "corr":
        out = 1.0 - np.abs(rho)
        out[out < zero_tol] = 0.0
        return out
    # "regression": e(F_i -> F_j) = var(F_j) (1 - rho^2), the least-squares error of
    # predicting the column feature from the row feature (the row is the one kept)
    out = vc * (1.0 - rho * rho)
    out[out < zero_tol * vc] = 0.0
    return out


def _centred_moments(X):
    """The centred columns ``Xc``, their rows-as-features copy ``Xc^T`` (C order) and their
    population variances: what every block of covariances ``Xc_rows^T Xc / n`` reads."""
    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    return Xc, np.ascontiguousarray(Xc.T), np.einsum("ij,ij->j", Xc, Xc) / X.shape[0]


def _fill_dissimilarity(X, similarity, zero_tol, out):
    """Write the ``(D, D)`` dissimilarity matrix of the columns of ``X`` into ``out``.

    The covariances are computed in float64 one block of rows at a time, only on and above
    the diagonal, and mirrored, so the matrix of a symmetric measure is exactly symmetric
    whatever the BLAS does; the result is clipped (``zero_tol``) before the cast to
    ``out.dtype``.
    """
    Xc, XcT, v = _centred_moments(X)
    n, d = Xc.shape
    for a in range(0, d, _BLOCK_ROWS):
        b = min(a + _BLOCK_ROWS, d)
        C = XcT[a:b] @ Xc[:, a:] / n  # (B, d - a)
        # the BLAS need not return the diagonal square symmetric: take its upper triangle
        square = C[:, : b - a]
        square[...] = np.triu(square) + np.triu(square, 1).T
        block = _dissimilarity_block(C, v[a:b], v[a:], similarity, zero_tol)
        out[a:b, a:] = block
        if similarity == "regression":
            block = _dissimilarity_block(C.T, v[a:], v[a:b], similarity, zero_tol)
            out[a:, a:b] = block
        else:
            out[a:, a:b] = block.T
    np.fill_diagonal(out, 0.0)
    return out


def feature_dissimilarity(X, similarity="mici", zero_tol=1e-12, dtype="float64"):
    """Dissimilarity between every pair of features (columns of ``X``).

    ``"mici"``: the maximal information compression index ``lambda_2(x, y)``, the smallest
    eigenvalue of the covariance matrix of the pair (population moments),
    ``lambda_2 = (v_x + v_y - sqrt((v_x - v_y)^2 + 4 c^2)) / 2``: 0 iff the two are linearly
    dependent, symmetric, invariant to translation and rotation, sensitive to scaling.
    ``"corr"``: ``1 - |rho|``. ``"regression"``: the least-squares error of predicting the
    column feature from the row feature, ``var(y) (1 - rho^2)``, not symmetric.
    Values below ``zero_tol`` times the natural scale (``v_x + v_y``, 1, ``var(y)``) are set
    to 0: the closed forms cancel, and exact dependencies would otherwise come out as
    +-1e-16 and break ties.

    Parameters
    ----------
    X : array-like of shape (n_samples, D)
    similarity : {"mici", "corr", "regression"}, default="mici"
    zero_tol : float, default=1e-12
    dtype : {"float64", "float32"}, default="float64"
        Computed in float64, clipped, then cast.

    Returns
    -------
    dis : ndarray of shape (D, D)
        ``dis[i, j]``: dissimilarity of feature ``i`` to feature ``j``; zero diagonal.
        ``corr`` gives a constant feature ``rho = 0``.

    References
    ----------
    Mitra, Murthy & Pal (2002), the feature similarity measures: correlation coefficient,
    least-squares regression error and the maximal information compression index
    ``lambda_2``, with their properties (section 3).

    Examples
    --------
    >>> x = np.array([0.0, 1.0, 2.0, 3.0])
    >>> feature_dissimilarity(np.column_stack([x, 3 * x + 1, x**2]))[0, 1]
    np.float64(0.0)
    """
    _check_choice("similarity", similarity, SIMILARITIES)
    _check_choice("dtype", dtype, DTYPES)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}.")
    out = np.empty((X.shape[1], X.shape[1]), dtype=dtype)
    return _fill_dissimilarity(X, similarity, float(zero_tol), out)


def mici(x, y, zero_tol=1e-12):
    """Maximal information compression index ``lambda_2(x, y)`` of two features.

    Parameters
    ----------
    x, y : array-like of shape (n_samples,)
    zero_tol : float, default=1e-12
        Values below ``zero_tol (v_x + v_y)`` are returned as 0.

    Returns
    -------
    float

    References
    ----------
    Mitra, Murthy & Pal (2002), the maximal information compression index.

    Examples
    --------
    >>> mici([1.0, -1.0, 1.0, -1.0], [2.0, 2.0, -2.0, -2.0])  # uncorrelated: min variance
    1.0
    """
    return float(feature_dissimilarity(np.column_stack([x, y]), "mici", zero_tol)[0, 1])


def sorted_neighbours(dis, overwrite=False):
    """Every row of a dissimilarity matrix sorted once: the neighbours of each feature.

    Parameters
    ----------
    dis : ndarray of shape (D, D)
    overwrite : bool, default=False
        Sort ``dis`` in place (it must be a C-contiguous float array) instead of a copy.

    Returns
    -------
    order : ndarray of shape (D, D), int32
        ``order[i]``: the features by increasing dissimilarity to ``i``, ties by index, and
        ``i`` itself last.
    sorted_dis : ndarray of shape (D, D)
        ``dis[i, order[i]]``, with ``+inf`` for ``i`` itself (so ``sorted_dis[:, k - 1]`` is
        the distance to the k-th nearest neighbour); same dtype as ``dis``.

    Examples
    --------
    >>> order, sd = sorted_neighbours(np.array([[0.0, 2.0, 1.0], [2.0, 0.0, 2.0],
    ...                                         [1.0, 2.0, 0.0]]))
    >>> order
    array([[2, 1, 0],
           [0, 2, 1],
           [0, 1, 2]], dtype=int32)
    """
    sd = dis if overwrite else np.array(dis, copy=True, order="C")
    d = sd.shape[0]
    if sd.shape != (d, d):
        raise ValueError(f"dis must be square, got shape {sd.shape}.")
    order = np.empty((d, d), dtype=np.int32)
    for a in range(0, d, _BLOCK_ROWS):
        b = min(a + _BLOCK_ROWS, d)
        rows = sd[a:b]  # a view: overwritten below, once its block is sorted
        rows[np.arange(b - a), np.arange(a, b)] = np.inf
        rows[...], order[a:b] = _sort_rows(rows)
    return order, sd


def _sort_rows(vals, cols=None):
    """Each row of ``vals`` sorted, ties to the lower column: the sorted values and their
    columns (``cols``, the columns of ``vals``' entries when given, else their positions)."""
    d = vals.shape[1] if cols is None else int(cols.max(initial=0)) + 1
    idx = np.argsort(vals, axis=1)  # fast, not stable: ties are repaired below
    vals = np.take_along_axis(vals, idx, axis=1)
    cols = idx if cols is None else np.take_along_axis(cols, idx, axis=1)
    step = vals[:, 1:] != vals[:, :-1]
    tied = np.flatnonzero(~step.all(axis=1))
    if tied.size:
        # ties go to the lower column (as a stable sort would, 3 times faster): sort
        # (run of equal values, column) as one integer key
        run = np.zeros((tied.size, vals.shape[1]), dtype=np.int64)
        np.cumsum(step[tied], axis=1, out=run[:, 1:])
        key = run * d + cols[tied]
        key.sort(axis=1)
        cols[tied] = key % d
    return vals, cols


# ------------------------------------------------------------------------------------------
# the algorithm: a naive reference and the heap implementation; they agree exactly


def _check_run_k(k, d):
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}.")
    return int(min(k, d - 1))


def _retention_order(picks, alive, r1):
    """Picked features still in ``R`` in the order they were picked, then the never-picked
    survivors by decreasing dissimilarity ``r1`` to their nearest neighbour in ``R`` (ties
    to the lower index): a survivor with a near copy left in ``R`` goes last."""
    kept = [i for i in dict.fromkeys(picks) if alive[i]]
    picked = np.zeros(alive.shape[0], dtype=bool)
    picked[kept] = True
    rest = np.flatnonzero(alive & ~picked)
    rest = rest[np.lexsort((rest, -r1[rest]))]
    return np.concatenate([np.asarray(kept, dtype=np.intp), rest]).astype(np.intp)


def _make_run(picks, alive, r1, removed, ks, epss):
    removed = (np.concatenate(removed).astype(np.intp) if removed
               else np.zeros(0, dtype=np.intp))
    return FSFSRun(_retention_order(picks, alive, r1), removed,
                   np.asarray(ks, dtype=np.intp), np.asarray(epss, dtype=np.float64))


def fsfs_naive(dis, k):
    """FSFS as the paper states it, recomputing every ``r_i^k`` from scratch at each step.

    The reference for :func:`fsfs_heap`: ``np.partition`` of the masked matrix at every step
    and every decrement of ``k``, ``O(D^2)`` each. For tests and small ``D`` only.

    Parameters
    ----------
    dis : ndarray of shape (D, D)
        Dissimilarities (row ``i``: of feature ``i`` to the others); the diagonal is ignored.
    k : int
        Initial number of neighbours, ``>= 1`` (reduced to ``D - 1`` if larger).

    Returns
    -------
    FSFSRun

    Examples
    --------
    >>> dis = np.array([[0, 1, 5, 5], [1, 0, 5, 5], [5, 5, 0, 2], [5, 5, 2, 0.0]])
    >>> run = fsfs_naive(dis, 1)
    >>> run.retained, run.removed, run.k_trace, run.eps_trace
    (array([0, 2, 3]), array([1]), array([1]), array([1.]))
    """
    M = np.array(dis, copy=True)
    d = M.shape[0]
    alive = np.ones(d, dtype=bool)
    picks, removed, ks, epss = [], [], [], []
    r1 = np.full(d, np.inf)
    if d <= 1:
        return _make_run(picks, alive, r1, removed, ks, epss)
    k = _check_run_k(k, d)
    np.fill_diagonal(M, np.inf)

    def r_k(k):
        rows = np.flatnonzero(alive)
        return rows, np.partition(M[rows], k - 1, axis=1)[:, k - 1]

    while True:
        # the paper's step 3: the feature whose k-th neighbour is nearest; keep it, drop the k
        # neighbours
        rows, r = r_k(k)
        j = int(np.argmin(r))  # first minimum: ties go to the lower index
        i, eps = rows[j], r[j]
        nbrs = np.argsort(M[i], kind="stable")[:k]
        alive[nbrs] = False
        M[:, nbrs] = np.inf
        picks.append(i)
        removed.append(nbrs)
        ks.append(k)
        epss.append(eps)
        # the paper's steps 4-6
        k = min(k, int(alive.sum()) - 1)
        if k <= 1:
            break
        stop = False
        while r_k(k)[1].min() > eps:
            k -= 1
            if k <= 1:
                stop = True
                break
        if stop:
            break
    rows = np.flatnonzero(alive)
    if rows.size > 1:
        r1[rows] = M[rows].min(axis=1)
    return _make_run(picks, alive, r1, removed, ks, epss)


def _kth_alive(order, alive, rows, k, width):
    """Position in ``order[rows]`` of the k-th entry still alive, for every row at once.

    Scans growing windows (``width``, doubled), only for the rows not yet done; the last
    column (each row's own feature) is never counted."""
    d = order.shape[1] - 1
    pos = np.empty(rows.size, dtype=np.intp)
    todo = np.arange(rows.size)
    start, count = 0, np.zeros(rows.size, dtype=np.intp)
    width = max(int(width), 1)
    while todo.size:
        stop = min(start + width, d)
        a = alive[order[rows[todo], start:stop]]
        cs = np.cumsum(a, axis=1) + count[todo, None]
        done = cs[:, -1] >= k
        pos[todo[done]] = start + np.argmax(cs[done] >= k, axis=1)
        count[todo] = cs[:, -1]
        todo = todo[~done]
        if todo.size and stop >= d:
            raise RuntimeError("fewer than k features alive")  # excluded by step 4
        start, width = stop, 2 * width
    return pos


def _n_within(sorted_dis, rows, eps, width=None):
    """How many entries of each sorted row are ``<= eps`` (binary search, all rows at once),
    among the first ``width`` (default: all but the last, the feature itself at ``+inf``)."""
    lo = np.zeros(rows.size, dtype=np.intp)
    width = sorted_dis.shape[1] - 1 if width is None else width
    hi = np.full(rows.size, width, dtype=np.intp)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = np.minimum((lo + hi) // 2, width - 1)  # a finished row may sit at width
        le = sorted_dis[rows, mid] <= eps
        lo = np.where(active & le, mid + 1, lo)
        hi = np.where(active & ~le, mid, hi)


def fsfs_heap(order, sorted_dis, k):
    """FSFS from the sorted rows, with a lazy heap: the same run as :func:`fsfs_naive`.

    Two facts make a step cheap. (1) ``r_i^{k'} <= eps`` iff at least ``k'`` alive features
    lie within ``eps`` of ``F_i``, so the decrements of ``k`` (the paper's step 6) end at
    ``k' = min(k, max_i c_i)``, with ``c_i`` that count, and the next feature kept is the one
    with the smallest ``r_i^{k'}`` among the few with ``c_i >= k'``. (2) Every step has
    ``eps`` at most the previous one and only removes features, so a count computed earlier
    is an upper bound of the current one. A max-heap of these bounds is popped, recounting
    each row exactly (``O(number within eps)``), until the bounds left fall below the best
    ``k'``; typically a handful of rows per step. At a fixed ``k`` a second step happens
    only on exact ties, since ``eps`` was the minimum of every ``r_i^k``: a heap of
    ``r_i^k`` itself (the obvious design) would be rebuilt at nearly every step.

    Parameters
    ----------
    order, sorted_dis : ndarray of shape (D, D)
        From :func:`sorted_neighbours` (each row's own feature last, at ``+inf``).
    k : int
        Initial number of neighbours, ``>= 1`` (reduced to ``D - 1`` if larger).

    Returns
    -------
    FSFSRun

    Examples
    --------
    >>> dis = np.array([[0, 1, 5, 5], [1, 0, 5, 5], [5, 5, 0, 2], [5, 5, 2, 0.0]])
    >>> heap = fsfs_heap(*sorted_neighbours(dis), 1)
    >>> all(np.array_equal(a, b) for a, b in zip(heap, fsfs_naive(dis, 1)))
    True
    """
    return _fsfs_run(_SortedTable(order, sorted_dis), k)


def _fsfs_run(table, k):
    """:func:`fsfs_heap` on a neighbour table (:class:`_SortedTable` or
    :class:`_TruncatedTable`)."""
    d = table.d
    alive = np.ones(d, dtype=bool)
    picks, removed, ks, epss = [], [], [], []
    r1 = np.full(d, np.inf)
    if d <= 1:
        return _make_run(picks, alive, r1, removed, ks, epss)
    k = _check_run_k(k, d)
    n_alive = d
    # the paper's step 2 with every feature alive: r_i^k is the k-th entry of each sorted row
    i = int(np.argmin(table.kth(k)))  # first minimum: ties to the lower index
    p = k - 1  # position of the k-th alive neighbour of i in its sorted row
    heap = None
    while True:
        seg = table.order_prefix(i, p + 1)
        nbrs = seg[alive[seg]].astype(np.intp)  # its k nearest alive neighbours
        eps = table.value(i, p)  # a scalar of the matrix's dtype: compared exactly
        alive[nbrs] = False
        n_alive -= nbrs.size
        picks.append(i)
        removed.append(nbrs)
        ks.append(k)
        epss.append(eps)
        capped = min(k, n_alive - 1)  # the paper's step 4
        if capped <= 1:
            break
        if heap is None:
            # first bounds: every feature within eps, alive or not
            rows = np.flatnonzero(alive)
            heap = list(zip((-table.count_within(rows, eps)).tolist(), rows.tolist()))
            heapq.heapify(heap)
        # counts c_j of the alive features within eps, exact for every j that can reach k'
        best, seen = 0, []
        while heap and -heap[0][0] >= max(min(capped, best), 2):
            j = heapq.heappop(heap)[1]
            if not alive[j]:
                continue
            within = table.n_within(j, eps)
            c = int(np.count_nonzero(alive[table.order_prefix(j, within)]))
            seen.append((c, j, within))
            best = max(best, c)
        for c, j, _ in seen:
            heapq.heappush(heap, (-c, j))
        k = min(capped, best)  # steps 5-6: the decrements, done at once
        if k <= 1:
            break
        r_best = None
        for c, j, within in sorted(seen, key=lambda t: t[1]):  # ties to the lower index
            if c < k:
                continue
            q = int(np.searchsorted(np.cumsum(alive[table.order_prefix(j, within)]), k))
            if r_best is None or table.value(j, q) < r_best:
                r_best, i, p = table.value(j, q), j, q
    rows = np.flatnonzero(alive)
    if rows.size > 1:
        r1[rows] = table.nearest_alive(rows, alive)
    return _make_run(picks, alive, r1, removed, ks, epss)


class _SortedTable:
    """Every row of the dissimilarity matrix sorted (:func:`sorted_neighbours`)."""

    def __init__(self, order, sorted_dis):
        self.order, self.sorted_dis = order, sorted_dis
        self.d = order.shape[0]

    def kth(self, k):
        """The k-th smallest dissimilarity of every row (``r_i^k`` with all alive)."""
        return self.sorted_dis[:, k - 1]

    def order_prefix(self, j, length):
        return self.order[j, :length]

    def value(self, j, q):
        return self.sorted_dis[j, q]

    def count_within(self, rows, eps):
        """An upper bound of the features within ``eps`` of each row (here exact)."""
        return _n_within(self.sorted_dis, rows, eps)

    def n_within(self, j, eps):
        """Entries of row ``j`` within ``eps``: the prefix that holds them."""
        return int(np.searchsorted(self.sorted_dis[j], eps, side="right"))

    def nearest_alive(self, rows, alive):
        """Each row's dissimilarity to its nearest alive feature."""
        return self.sorted_dis[rows, _kth_alive(self.order, alive, rows, 1, 8)]


class _TruncatedTable:
    """The first ``width`` entries of every sorted row; a longer row is recomputed when the
    run reads past them (:func:`_strip_dissimilarity`, cached), so memory is
    ``D width (itemsize + 4)`` bytes instead of ``D^2 (itemsize + 4)``.

    Every entry, kept or recomputed, is the value of its row's canonical strip, so a row
    read twice is the same row, and the run is the one :func:`fsfs_heap` makes on the
    matrix of the strips (tested against it and :func:`fsfs_naive`).

    Past the width, the first run that asks for ``r_i^k`` of every row sorts every row once
    more and keeps a sketch: the sorted values at ``_SKETCH_POINTS`` positions. Later runs
    bound each ``r_i^k`` between two sketch values and compute it only for the rows whose
    bound can reach the smallest (the bisection of :meth:`FSFS.subset` asks for many ``k``);
    the sketch also bounds the counts within ``eps`` of rows whose kept entries are all
    within it.
    """

    def __init__(self, X, similarity, zero_tol, dtype, width, cache_bytes):
        d = X.shape[1]
        self.d, self.width = d, int(min(width, d - 1))
        self.similarity, self.zero_tol, self.dtype = similarity, zero_tol, np.dtype(dtype)
        self.Xc, self.XcT, self.v = _centred_moments(X)
        self.order = np.empty((d, self.width), dtype=np.int32)
        self.sorted_dis = np.empty((d, self.width), dtype=self.dtype)
        # full sorted rows recomputed, by feature, the least recently used dropped first
        self._rows = OrderedDict()
        self._max_rows = max(1, int(cache_bytes) // (d * (self.dtype.itemsize + 4)))
        self._strip = (None, None)  # the last strip computed: (first row, values)
        self._sketch_at = self._sketch = None
        for a in range(0, d, _STRIP_ROWS):
            S = self._strip_at(a)
            self.order[a:a + S.shape[0]], self.sorted_dis[a:a + S.shape[0]] = \
                _smallest_sorted(S, self.width)

    def _strip_at(self, a):
        if self._strip[0] != a:
            self._strip = (a, _strip_dissimilarity(self.XcT, self.Xc, self.v, a,
                                                   self.similarity, self.zero_tol,
                                                   self.dtype))
        return self._strip[1]

    def _full_row(self, j):
        row = self._rows.get(j)
        if row is None:
            a = j - j % _STRIP_ROWS
            order, sorted_dis = _smallest_sorted(self._strip_at(a)[j - a:j - a + 1], self.d)
            row = self._rows[j] = (order[0], sorted_dis[0])
            if len(self._rows) > self._max_rows:
                self._rows.popitem(last=False)
        else:
            self._rows.move_to_end(j)
        return row

    def _exact_kth(self, rows, k):
        out = np.empty(rows.size, dtype=self.dtype)
        for t, j in enumerate(rows):
            a = j - j % _STRIP_ROWS
            out[t] = np.partition(self._strip_at(a)[j - a], k - 1)[k - 1]
        return out

    def kth(self, k):
        if k <= self.width:
            return self.sorted_dis[:, k - 1]
        if self._sketch is None:
            # positions width .. d - 2 (the last is the feature itself, at +inf)
            self._sketch_at = np.unique(np.linspace(self.width, self.d - 2,
                                                    _SKETCH_POINTS).astype(np.intp))
            self._sketch = np.empty((self.d, self._sketch_at.size), dtype=self.dtype)
            for a in range(0, self.d, _STRIP_ROWS):
                S = np.sort(self._strip_at(a), axis=1)
                self._sketch[a:a + S.shape[0]] = S[:, self._sketch_at]
        t = int(np.searchsorted(self._sketch_at, k - 1))
        if t < self._sketch_at.size and self._sketch_at[t] == k - 1:
            return self._sketch[:, t]
        # sketch_at[t - 1] < k - 1 < sketch_at[t]: r_i^k between the two columns; a row whose
        # lower bound exceeds the smallest upper bound cannot be the minimum, nor tie with it
        upper = self._sketch[:, t]
        rows = np.flatnonzero(self._sketch[:, t - 1] <= upper.min())
        out = np.full(self.d, np.inf, dtype=self.dtype)
        out[rows] = self._exact_kth(rows, k)
        return out

    def order_prefix(self, j, length):
        if length <= self.width:
            return self.order[j, :length]
        return self._full_row(j)[0][:length]

    def value(self, j, q):
        if q < self.width:
            return self.sorted_dis[j, q]
        return self._full_row(j)[1][q]

    def count_within(self, rows, eps):
        # a row whose kept entries are all within eps may hold more: bound it by the first
        # sketch position beyond eps, else by d - 1
        counts = _n_within(self.sorted_dis, rows, eps, width=self.width)
        full = counts >= self.width
        bound = np.full(int(full.sum()), self.d - 1, dtype=np.intp)
        if self._sketch is not None and bound.size:
            beyond = np.argmax(self._sketch[rows[full]] > eps, axis=1)
            some = self._sketch[rows[full], beyond] > eps
            bound[some] = self._sketch_at[beyond[some]]
        counts[full] = bound
        return counts

    def n_within(self, j, eps):
        if self.sorted_dis[j, -1] > eps:
            return int(np.searchsorted(self.sorted_dis[j], eps, side="right"))
        return int(np.searchsorted(self._full_row(j)[1], eps, side="right"))

    def nearest_alive(self, rows, alive):
        out = np.empty(rows.size, dtype=self.dtype)
        for start in range(0, rows.size, _STRIP_ROWS):
            block = rows[start:start + _STRIP_ROWS]
            a = alive[self.order[block]]
            pos = np.argmax(a, axis=1)
            found = a[np.arange(block.size), pos]
            out[start:start + block.size] = self.sorted_dis[block, pos]
            for t in np.flatnonzero(~found):  # every kept neighbour removed: the whole row
                order, sorted_dis = self._full_row(int(block[t]))
                out[start + t] = sorted_dis[np.argmax(alive[order[:-1]])]
        return out


def _strip_dissimilarity(XcT, Xc, v, a, similarity, zero_tol, dtype):
    """Rows ``a : a + _STRIP_ROWS`` of the dissimilarity matrix, each feature's own entry
    ``+inf``, in ``dtype``: the canonical strip the truncated table keeps and recomputes
    (one product of the strip's rows with every column, always the same shape)."""
    n, d = Xc.shape
    b = min(a + _STRIP_ROWS, d)
    C = XcT[a:b] @ Xc / n
    S = _dissimilarity_block(C, v[a:b], v, similarity, zero_tol).astype(dtype, copy=False)
    S[np.arange(b - a), np.arange(a, b)] = np.inf
    return S


def _smallest_sorted(S, width):
    """The ``width`` smallest entries of each row of ``S`` and their columns, in increasing
    order, ties to the lower column: the first ``width`` entries of the rows of
    :func:`sorted_neighbours`."""
    m, d = S.shape
    if 4 * width >= d:  # most of the row: sorting it all is faster than selecting
        vals, cols = _sort_rows(S)
        return cols[:, :width].astype(np.int32), vals[:, :width]
    cols = np.argpartition(S, width - 1, axis=1)[:, :width]
    # a tie at the cut may have left a lower column out: take those rows exactly
    cut = np.take_along_axis(S, cols, axis=1).max(axis=1)
    over = np.flatnonzero(np.count_nonzero(S <= cut[:, None], axis=1) > width)
    for r in over:
        below = np.flatnonzero(S[r] < cut[r])
        at = np.flatnonzero(S[r] == cut[r])[:width - below.size]
        cols[r] = np.union1d(below, at)
    vals, cols = _sort_rows(np.take_along_axis(S, cols, axis=1), cols)
    return cols.astype(np.int32), vals


# ------------------------------------------------------------------------------------------


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}.")


def _bisect_k(size_of, m, k_max):
    """The ``k`` whose run keeps the fewest features that are still at least ``m``.

    Bisection on ``[1, k_max]`` with the invariant ``size(lo) >= m > size(hi)``
    (``size(1) = D - 1`` and ``size(D - 1) = 1``); exact when the size decreases with ``k``,
    which the paper's algorithm does not guarantee: then it is one crossing of ``m``, always
    the same one (only the runs on the bisection path are looked at)."""
    if m >= size_of(1):
        return 1
    if size_of(k_max) >= m:
        return k_max
    lo, hi = 1, k_max
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if size_of(mid) >= m:
            lo = mid
        else:
            hi = mid
    return lo


#: The largest number of features (:class:`~fsclust.rankers.base.RankerTags`): the ``d x d``
#: dissimilarities and the sorted table (value and column) are about 1.6 float64 ``d x d``
#: arrays, within 4 GiB up to 18,492; above ``d = 18,918`` the default ``max_table_mb``
#: (4 GiB) alone would fill the budget (docs/measurements.md, "Size bounds of the rankers").
MAX_FEATURES = 16_000


class FSFS(FeatureRanker):
    """Feature similarity feature selection: keep one feature per cluster of similar ones.

    The dissimilarity of two features is the maximal information compression index
    ``lambda_2`` (:func:`feature_dissimilarity`), and ``r_i^k`` is the dissimilarity of
    ``F_i`` to its k-th nearest neighbour in the current set ``R``. Starting from all
    features, each step keeps the feature with the smallest ``r_i^k`` and removes its
    ``k`` nearest neighbours, with ``eps = r_{i*}^k``; ``k`` is capped at ``|R| - 1``, and
    decremented while no feature of ``R`` has ``r_i^k <= eps``; the run stops when ``k``
    reaches 1 (:func:`fsfs_heap`). ``R`` is the selected subset: ``k`` sets its size, and
    the subsets for different ``k`` are not nested.

    ``subset(m)`` gives a subset of exactly ``m`` features: bisection over ``k`` for the run
    that keeps the fewest features still ``>= m``, then its first ``m`` in retention order
    (decision: the papers that sweep ``m`` do not say how they hit exact sizes). The runs
    are cached, so a sweep over ``m`` reuses them. With ``n_features_to_select=m``,
    ``transform`` keeps ``subset(m)``.

    Fitting computes the ``(D, D)`` dissimilarities once (float64, clipped, then cast to
    ``dtype``) and sorts every row once: ``O(n D^2 + D^2 log D)`` time, and the sorted
    matrix and its argsort are kept (``D^2 (itemsize + 4)`` bytes: 1.3 GB at D = 10304 in
    float64, 0.85 GB in float32). A run then costs far less than a recomputation. Above
    ``max_table_mb`` (D > 18918 in float64, 23170 in float32 at the default 4 GiB; 54675 probes would need
    36 GB) only the first ``width`` entries of each sorted row are kept, ``width`` what fits,
    computed in strips of 64 rows; a run that reads further into a row (a large ``k``, or a
    row whose kept neighbours are all removed) recomputes that row's strip. The strips make
    no attempt at the full table's exact symmetry (``dis[i, j]`` and ``dis[j, i]`` come from
    two products), so the two tables can differ by round-off, and where that decides a tie,
    in the run.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        ``m``: ``transform`` keeps ``subset(m)``; None keeps ``subset_`` (the run at ``k_``).
    k : int or None, default=None
        Initial number of neighbours of the run behind ``subset_``, ``1 <= k <= D - 1``.
        None: the bisection ``k`` for ``n_features_to_select`` when that is given, else
        ``max(1, D' // 10)`` (``D'`` non-constant features). The kept set is much larger
        than ``D' / k``: ``eps`` never increases from one step to the next, so ``k`` falls
        fast (on 10304 pixels, ``k = 1030`` keeps 4290 features and ``k = 102`` keeps
        10027).
    similarity : {"mici", "corr", "regression"}, default="mici"
        The paper's ``lambda_2``, ``1 - |rho|``, or the least-squares regression error of
        predicting the neighbour from the kept feature.
    zero_tol : float, default=1e-12
        Dissimilarities below ``zero_tol`` times their natural scale are set to 0, so exact
        linear dependencies tie at 0 instead of at +-1e-16.
    dtype : {"float64", "float32"}, default="float64"
        Storage of the sorted dissimilarities. float32 halves that memory; ties and order
        then follow the float32 values (both implementations see the same matrix).
    max_table_mb : float, default=4096
        Memory bound of the sorted neighbour table, in MiB: above it each sorted row is kept
        only up to the width that fits, and recomputed when a run reads past it.

    Attributes
    ----------
    k_ : int
        ``k`` of the run behind ``subset_`` (0 when fewer than two features vary).
    subset_ : ndarray of int
        Its reduced set ``R``, sorted by index.
    retention_order_ : ndarray of int
        The same features in retention order.
    k_trace_, eps_trace_ : ndarray
        ``k`` and ``eps = r_{i*}^k`` of each step of that run.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        ``retention_order_``, then the removed features from the last removed to the first
        (within a step: farthest neighbour first), then the constant features.
    scores_ : ndarray of shape (n_features,)
        Not a measurement (FSFS has none): ``n_features + 1 - ranking_``, higher is better,
        so that ``feature_order_`` is the base class's ordering of ``scores_``.
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    Notes
    -----
    Decisions where the paper is silent or that depart from it:

    - Constant features (:func:`~fsclust.rankers.base.constant_features`) are left out of
      the algorithm and come last. ``lambda_2`` of a constant feature is 0 to every other
      feature, so it would be kept first and remove ``k`` arbitrary neighbours.
    - Ties (``r_i^k``, and which neighbours are the k nearest) go to the lower index.
    - Features kept at an earlier step are not protected: a later step may remove them as
      neighbours (paper and Mitra's code). A feature can be picked more than once.
    - Retention order: the picked features still in ``R`` in the order they were first
      picked, then the never-picked survivors (the run stopped before reaching them) by
      decreasing dissimilarity to their nearest neighbour in ``R`` (ties to the lower
      index), so truncation drops the ones with a near copy left first.
    - ``subset(m)`` for ``m > D' - 1`` (more than the run at ``k = 1`` keeps) continues
      into ``feature_order_`` of that run.
    - The run stops when ``k`` reaches 1 (the paper's "if k = 1 go to Step 8"), also when
      the initial ``k`` is 1 (one step), so two near copies can both stay; Mitra's released
      code goes on at ``k = 1``.
    - The default ``k`` (``D' // 10``) is ours; the paper chooses ``k`` per data set.

    References
    ----------
    Mitra, Murthy & Pal (2002), "Unsupervised feature selection using feature similarity",
    IEEE TPAMI 24(3), 301-312: the maximal information compression index ``lambda_2`` and
    the algorithm's steps 1-8 (section 4).

    Examples
    --------
    Three groups of three exact affine copies: with ``k = 2`` one feature per group is kept.

    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> base = rng.randn(30, 3)
    >>> X = np.repeat(base, 3, axis=1) * rng.uniform(1, 2, 9) + rng.randn(9)
    >>> fsfs = FSFS(k=2).fit(X)
    >>> fsfs.subset_
    array([0, 3, 6])
    >>> [len(set(fsfs.subset(m))) for m in range(1, 10)]  # exactly m, whatever k that needs
    [1, 2, 3, 4, 5, 6, 7, 8, 9]
    >>> FSFS(n_features_to_select=4).fit_transform(X).shape
    (30, 4)
    """

    #: Why the planted-structure suite finds it below random features (``fsclust methods``)
    planted_suite_note = ("by design: it keeps one feature of each group of similar features "
                          "to remove redundancy, and a group's planted features vary together")


    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "k": [IntInterval(1, None, closed="left"), None],
        "similarity": [StrOptions(set(SIMILARITIES))],
        "zero_tol": [Interval(numbers.Real, 0, None, closed="left")],
        "dtype": [StrOptions(set(DTYPES))],
        "max_table_mb": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(self, n_features_to_select=None, *, k=None, similarity="mici", zero_tol=1e-12,
                 dtype="float64", max_table_mb=4096):
        self.n_features_to_select = n_features_to_select
        self.k = k
        self.similarity = similarity
        self.zero_tol = zero_tol
        self.dtype = dtype
        self.max_table_mb = max_table_mb

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.nested_selection = False  # one subset per size: subset(m)
        tags.ranker_tags.max_features = MAX_FEATURES
        return tags

    def _score(self, X, rng):
        d = X.shape[1]
        if self.k is not None and self.k > d - 1:
            raise ValueError(f"k={self.k} must be at most n_features - 1 (n_features={d}); "
                             "pass a smaller k, or None to choose it from the data.")
        m = self._n_selected() if self.n_features_to_select is not None else None
        constant = self.constant_mask_
        self._active = np.flatnonzero(~constant)
        self._constants = np.flatnonzero(constant)
        self._runs = {}
        self._orders = {}
        n_active = self._active.size
        self._table = None
        if n_active >= 2:
            entry = np.dtype(self.dtype).itemsize + 4  # a sorted value and its column
            budget = int(self.max_table_mb * 2**20)
            if n_active * n_active * entry <= budget:
                dis = np.empty((n_active, n_active), dtype=self.dtype)
                _fill_dissimilarity(X[:, self._active], self.similarity, float(self.zero_tol),
                                    dis)
                self._table = _SortedTable(*sorted_neighbours(dis, overwrite=True))
            else:
                # nine tenths for the kept widths, one for the rows recomputed past them
                self._table = _TruncatedTable(X[:, self._active], self.similarity,
                                              float(self.zero_tol), self.dtype,
                                              max(1, 9 * budget // (10 * n_active * entry)),
                                              budget // 10)
            if self.k is not None:
                k = min(int(self.k), n_active - 1)
            elif m is not None:
                k = _bisect_k(self._size, m, n_active - 1)
            else:
                k = max(1, n_active // 10)
            run = self._run(k)
            self.k_ = k
            self.k_trace_ = run.k_trace.copy()
            self.eps_trace_ = run.eps_trace.copy()
            self.retention_order_ = self._active[run.retained]
            ranking = self._full_order(k)
        else:
            self.k_ = 0
            self.k_trace_ = np.zeros(0, dtype=np.intp)
            self.eps_trace_ = np.zeros(0)
            self.retention_order_ = self._active.copy()
            ranking = np.concatenate([self._active, self._constants])
        self.subset_ = np.sort(self.retention_order_)
        scores = np.empty(d)
        scores[ranking] = d - np.arange(d)
        return scores

    def _run(self, k):
        run = self._runs.get(k)
        if run is None:
            run = _fsfs_run(self._table, k)
            self._runs[k] = run  # in place: transform must not rebind attributes
        return run

    def _size(self, k):
        return self._run(k).retained.size

    def _full_order(self, k):
        order = self._orders.get(k)
        if order is None:
            run = self._run(k)
            order = np.concatenate([self._active[run.retained],
                                    self._active[run.removed[::-1]], self._constants])
            self._orders[k] = order
        return order

    def subset(self, m):
        """Exactly ``m`` features: the first ``m`` in retention order of the run at the
        bisection ``k`` (the run that keeps the fewest features still ``>= m``).

        Deterministic, and independent of the calls made before (only the runs on the
        bisection path decide; they are cached for the next ``m``).

        Parameters
        ----------
        m : int
            ``1 <= m <= n_features``.

        Returns
        -------
        ndarray of shape (m,), int
            Feature indices in retention order.
        """
        check_is_fitted(self)
        m = check_subset_size(m, self.n_features_in_)
        n_active = self._active.size
        if n_active < 2:
            return np.concatenate([self._active, self._constants])[:m].copy()
        k = _bisect_k(self._size, int(m), n_active - 1)
        return self._full_order(k)[:m].copy()

    def subset_k(self, m):
        """The ``k`` that :meth:`subset` uses for ``m`` (0 when fewer than two features vary)."""
        check_is_fitted(self)
        if self._active.size < 2:
            return 0
        return _bisect_k(self._size, int(m), self._active.size - 1)

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        if self.n_features_to_select is None:
            mask[self.subset_] = True
        else:
            mask[self.subset(self._n_selected())] = True
        return mask
