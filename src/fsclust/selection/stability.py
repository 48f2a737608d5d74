"""Label-free criteria for choosing the number of selected features m and of clusters K.

Pure functions of resampled results, the bricks of a selector that chooses m and K without
labels:

- the stability of the selected feature sets over ``M`` resamples, Nogueira, Sechidis &
  Brown's (2018) estimator with its variance and confidence interval
  (:func:`nogueira_stability`), and Kuncheva's (2007) consistency index beside it
  (:func:`kuncheva_index`);
- the stability of the clusterings of ``R`` subsamples on the samples two subsamples share
  (Ben-Hur, Elisseeff & Guyon 2002), with the adjusted Rand index or Lange et al.'s (2004)
  matched disagreement, normalised against random labellings with the same cluster sizes
  (:func:`clustering_stability`);
- consensus clustering's consensus matrix over subsamples (Monti et al. 2003;
  :func:`resampled_consensus_matrix`) and its proportion of ambiguous clustering (Şenbabaoğlu
  et al. 2014; :func:`proportion_ambiguous_clustering`);
- the number of clusters at the largest eigengap of a graph's normalised Laplacian
  (von Luxburg 2007; :func:`eigengap`).

A subsample is an array of distinct sample indices into the ``n`` samples, and its labels are
aligned with it (``labels[r][j]`` is the cluster of sample ``subsamples[r][j]``). Every
function is deterministic; the random labellings of :func:`clustering_stability` are drawn
from its ``random_state``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.stats import norm
from sklearn.utils import check_random_state

from fsclust.graphs import laplacian, smallest_eigenvectors
from fsclust.metrics import clustering_accuracy

__all__ = [
    "ClusteringStability",
    "FeatureSetStability",
    "clustering_stability",
    "eigengap",
    "jackknife_pac",
    "kuncheva_index",
    "matched_disagreement",
    "nogueira_stability",
    "proportion_ambiguous_clustering",
    "resampled_consensus_matrix",
]


# --- stability of the selected feature sets -------------------------------------------------


class FeatureSetStability(NamedTuple):
    """Nogueira et al.'s stability estimate, its variance and its confidence interval."""

    stability: float
    variance: float
    lower: float
    upper: float


def _selection_matrix(Z):
    Z = np.asarray(Z)
    if Z.ndim != 2 or Z.shape[0] < 2:
        raise ValueError(f"Z must be a binary matrix of M >= 2 feature sets (rows), "
                         f"got shape {Z.shape}.")
    if not np.isin(Z, (0, 1)).all():
        raise ValueError("Z must be binary: Z[i, f] = 1 when set i selects feature f.")
    return Z.astype(np.float64)


def nogueira_stability(Z, *, alpha=0.05):
    """Stability of ``M`` selected feature sets, with its variance and (1 - alpha) interval.

    With ``Z`` the ``M x d`` binary matrix of the selections (``z_if = 1`` when the i-th run
    selects feature f), ``p_f`` the frequency of feature f, ``k_i`` the size of the i-th set
    and ``kbar`` their mean, the estimator (Nogueira et al., Definition 4) is

        Phi = 1 - (1/d) sum_f s_f^2 / ((kbar/d) (1 - kbar/d)),
        s_f^2 = M/(M-1) p_f (1 - p_f),

    the unbiased variances of the selection indicators over the variance they would have if
    sets of the same mean size were drawn at random. Phi = 1 for identical sets, its
    expectation is 0 for sets of a fixed size drawn uniformly at random, and
    ``-1/(M-1) <= Phi <= 1``. Phi is asymptotically normal; its variance estimate is
    ``v = 4/M^2 sum_i (phi_i - mean(phi))^2`` with

        phi_i = [ (1/d) sum_f z_if p_f - k_i kbar/d^2
                  + Phi/2 (2 k_i kbar/d^2 - k_i/d - kbar/d + 1) ] / ((kbar/d)(1 - kbar/d)),

    and the interval is ``Phi -+ z_{1-alpha/2} sqrt(v)`` (Corollary 9), ``z`` the standard
    normal quantile.

    When every set has the same size, Phi is the mean over pairs of Kuncheva's index
    (:func:`kuncheva_index`): with ``r_ij = |S_i & S_j|``, ``sum_f p_f^2 = (1/M^2) sum_ij r_ij``
    gives ``Phi = (mean_{i != j} r_ij - kbar^2/d) / (kbar - kbar^2/d)`` (our derivation, for
    any sizes), Kuncheva's expression when every ``k_i = kbar``.

    Parameters
    ----------
    Z : array-like of shape (M, d), binary
        One row per selected set, ``M >= 2``.
    alpha : float, default=0.05
        The interval's level is ``1 - alpha``.

    Returns
    -------
    FeatureSetStability
        ``(stability, variance, lower, upper)``.

    Raises
    ------
    ValueError
        When every set is empty or every set is all the features (``kbar`` in ``{0, d}``):
        random selection then has no variance and Phi is undefined.

    References
    ----------
    Nogueira, Sechidis & Brown (2018), "On the stability of feature selection algorithms",
    JMLR 18(174): Definition 4 (the estimator), its asymptotic normal law with the variance
    estimate, and Corollary 9 (the interval), as the authors' code (github.com/nogueirs/JMLR2018)
    numbers them; that code computes the same ``phi_i``.

    Examples
    --------
    Three sets of two among five features: ``p = (1, 2/3, 1/3, 0, 0)``,
    ``(1/5)(3/2)(4/9) = 2/15`` over ``(2/5)(3/5) = 6/25`` gives ``1 - 5/9 = 4/9``.

    >>> Z = [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]]
    >>> round(nogueira_stability(Z).stability * 9, 12)
    4.0
    >>> nogueira_stability([[1, 0, 1], [1, 0, 1]])
    FeatureSetStability(stability=1.0, variance=0.0, lower=1.0, upper=1.0)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    Z = _selection_matrix(Z)
    M, d = Z.shape
    p = Z.mean(axis=0)
    k = Z.sum(axis=1)
    kbar = p.sum()
    random_variance = (kbar / d) * (1.0 - kbar / d)
    if random_variance <= 0.0:
        raise ValueError(f"mean set size {kbar:g} of d={d} features: every set is empty or "
                         f"every set is all the features, and the stability is undefined.")
    stability = 1.0 - (M / (M - 1)) * np.mean(p * (1.0 - p)) / random_variance
    phi = (Z @ p / d - k * kbar / d**2
           + stability / 2.0 * (2.0 * k * kbar / d**2 - k / d - kbar / d + 1.0)) / random_variance
    variance = 4.0 / M**2 * np.sum((phi - phi.mean()) ** 2)
    half_width = norm.ppf(1.0 - alpha / 2.0) * np.sqrt(variance)
    return FeatureSetStability(float(stability), float(variance),
                               float(stability - half_width), float(stability + half_width))


def kuncheva_index(Z):
    """Kuncheva's consistency index averaged over the pairs of ``M`` sets of equal size ``k``.

    For two sets of ``k`` among ``d`` features sharing ``r``, ``I_C = (r d - k^2) / (k (d - k))``:
    their overlap corrected for the ``k^2/d`` features two random sets share on average, so
    ``-1 <= I_C <= 1``, with 1 for identical sets. Undefined for ``k = 0`` and ``k = d``
    (every pair of sets is then identical by necessity).

    Parameters
    ----------
    Z : array-like of shape (M, d), binary
        One row per selected set, every row with the same number ``k`` of ones; ``M >= 2``.

    Returns
    -------
    float
        The mean of ``I_C`` over the ``M (M - 1) / 2`` pairs.

    Raises
    ------
    ValueError
        For sets of different sizes, or ``k`` in ``{0, d}``.

    References
    ----------
    Kuncheva (2007), "A stability index for feature selection", Proceedings of the 25th IASTED
    International Multi-Conference on Artificial Intelligence and Applications, 390-395 (the
    consistency index and its mean over all pairs of sets).

    Examples
    --------
    Pairs of the sets ``{0, 1}, {0, 1}, {0, 2}`` of 5 features share 2, 1 and 1 features:
    ``((10 - 4) + (5 - 4) + (5 - 4)) / 6 / 3 = 4/9``.

    >>> round(kuncheva_index([[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]]) * 9, 12)
    4.0
    """
    Z = _selection_matrix(Z)
    M, d = Z.shape
    sizes = Z.sum(axis=1)
    if np.any(sizes != sizes[0]):
        raise ValueError(f"Kuncheva's index needs sets of one size; got sizes "
                         f"{sorted(set(sizes.astype(int).tolist()))}.")
    k = sizes[0]
    if k == 0 or k == d:
        raise ValueError(f"Kuncheva's index is undefined for sets of k={k:g} of d={d} features "
                         f"(k must be in 1..d-1).")
    shared = (Z @ Z.T)[np.triu_indices(M, 1)]
    return float(np.mean((shared * d - k**2) / (k * (d - k))))


# --- stability of the clusterings of subsamples ------------------------------------------


class ClusteringStability(NamedTuple):
    """The pairwise agreement of subsample clusterings, and that of random labellings.

    ``normalized`` is Lange et al.'s normalised instability: the instability (``1 - ARI``,
    or the matched disagreement) over the same for random labellings; 0 for perfectly stable
    clusterings, about 1 for clusterings no more stable than random labels of the same sizes.
    """

    score: float
    std_error: float
    random_score: float
    normalized: float
    normalized_std_error: float
    pairwise: np.ndarray


def matched_disagreement(labels_a, labels_b):
    """Lange et al.'s distance between two labellings of the same samples.

    ``d(a, b) = min_pi (1/n) sum_i [pi(a_i) != b_i]``, the fraction of samples on which the
    labellings disagree under the best one-to-one map ``pi`` of the clusters (the Hungarian
    algorithm): ``1 - ACC`` with one labelling as the classes.

    References
    ----------
    Lange, Roth, Braun & Buhmann (2004), "Stability-based validation of clustering solutions",
    Neural Computation 16(6), 1299-1323.

    Examples
    --------
    >>> matched_disagreement([0, 0, 1, 1], [1, 1, 0, 2])  # cluster 2 matches nothing
    0.25
    """
    return 1.0 - clustering_accuracy(labels_a, labels_b)


def _incidence(table):
    """Sparse one-hot ``H (n, sum_r K_r)`` of a label table: ``H[i, c] = 1`` when sample i is
    in cluster c of its subsample (each subsample's clusters side by side, from ``offsets[r]``;
    a sample not drawn has no entry in that subsample's columns)."""
    R, n = table.shape
    sizes = table.max(axis=1) + 1
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    drawn = table.T >= 0
    rows, subsample = np.nonzero(drawn)
    H = sp.csr_matrix((np.ones(rows.size), (rows, table.T[drawn] + offsets[subsample])),
                      shape=(n, int(offsets[-1])))
    return H, offsets[:-1]


def _pair_contingencies(table):
    """All pairs' contingency tables at once: block ``(r, s)`` of ``H^T H`` counts the samples
    in cluster i of subsample r and cluster j of subsample s, i.e. on the samples both hold."""
    H, offsets = _incidence(table)
    return (H.T @ H).toarray(), offsets


def _comb2(x):
    return x * (x - 1.0) / 2.0


def _pairwise_ari(table):
    """``(R, R)`` adjusted Rand index of each pair on its shared samples (NaN diagonal).

    scikit-learn's ``adjusted_rand_score`` from its pair confusion matrix (``tn, fp, fn, tp``
    in pairs of samples), computed for every pair of subsamples from one matrix product:
    one call per pair cost 12 s for 30 subsamples and 20 random labellings (measured), the
    selector asks it for every (m, K).
    """
    T, offsets = _pair_contingencies(table)
    # together in r and in s; in r (per pair: cluster sizes of r restricted to s's samples)
    both = np.add.reduceat(np.add.reduceat(_comb2(T), offsets, axis=0), offsets, axis=1)
    restricted = np.add.reduceat(T, offsets, axis=1)  # (sum K, R)
    in_r = np.add.reduceat(_comb2(restricted), offsets, axis=0)
    shared = np.add.reduceat(restricted, offsets, axis=0)
    in_s = in_r.T
    tp, fn, fp = both, in_r - both, in_s - both
    tn = _comb2(shared) - in_r - in_s + both
    with np.errstate(invalid="ignore", divide="ignore"):
        ari = 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    ari[(fn == 0) & (fp == 0)] = 1.0  # identical partitions, scikit-learn's special case
    np.fill_diagonal(ari, np.nan)
    return ari, shared


def _pairwise_disagreement(table):
    """``(R, R)`` matched disagreement of each pair on its shared samples (NaN diagonal): the
    Hungarian matching of each block of ``H^T H``, as :func:`matched_disagreement` does."""
    T, offsets = _pair_contingencies(table)
    bounds = np.append(offsets, T.shape[0])
    R = table.shape[0]
    out = np.full((R, R), np.nan)
    shared = np.zeros((R, R))
    for r, s in zip(*np.triu_indices(R, 1)):
        block = T[bounds[r]:bounds[r + 1], bounds[s]:bounds[s + 1]]
        rows, cols = linear_sum_assignment(block, maximize=True)
        shared[r, s] = shared[s, r] = block.sum()
        out[r, s] = out[s, r] = 1.0 - block[rows, cols].sum() / block.sum()
    return out, shared


#: Pairwise scores of :func:`clustering_stability`, and whether each is an agreement (the
#: instability is then ``1 - score``) or already a disagreement.
_PAIR_SCORES = {"ari": (_pairwise_ari, True), "disagreement": (_pairwise_disagreement, False)}


def _label_table(subsamples, labels, n_samples):
    """``(R, n)`` table of cluster codes, ``-1`` where a sample is not in the subsample."""
    table = np.full((len(subsamples), n_samples), -1, dtype=np.intp)
    for r, (index, lab) in enumerate(zip(subsamples, labels)):
        index = np.asarray(index, dtype=np.intp)
        lab = np.asarray(lab)
        if index.ndim != 1 or index.size == 0 or lab.shape != index.shape:
            raise ValueError(f"subsample {r}: {lab.size} labels for {index.size} sample "
                             f"indices (a non-empty 1-d array of each is needed).")
        if index.min() < 0 or index.max() >= n_samples:
            raise ValueError(f"subsample {r} indexes outside 0..{n_samples - 1}.")
        if np.unique(index).size != index.size:
            raise ValueError(f"subsample {r} draws a sample twice; subsamples are drawn "
                             f"without replacement (a repeated sample would be compared with "
                             f"itself).")
        table[r, index] = np.unique(lab, return_inverse=True)[1]
    return table


def _pairwise_scores(table, score):
    pairwise, shared = _PAIR_SCORES[score][0](table)
    few = np.argwhere(np.triu(shared < 2, 1))
    if few.size:
        r, s = few[0]
        raise ValueError(f"subsamples {r} and {s} share {int(shared[r, s])} sample(s); "
                         f"at least 2 are needed to compare their clusterings.")
    return pairwise


def _u_statistic(pairwise):
    """Mean over pairs and its standard error ``sqrt(4/R^2 sum_r (h_r - mean h)^2)``."""
    h = np.nanmean(pairwise, axis=1)
    R = h.size
    return float(h.mean()), float(np.sqrt(4.0 / R**2 * np.sum((h - h.mean()) ** 2)))


def clustering_stability(subsamples, labels, n_samples, *, score="ari", n_random=20,
                         random_state=None):
    """How much the clusterings of ``R`` subsamples agree on the samples they share.

    For each pair of subsamples, the two clusterings are compared on the samples both
    contain (Ben-Hur et al.'s pairwise-overlap form), with the adjusted Rand index or Lange et
    al.'s matched disagreement (:func:`matched_disagreement`); ``score`` is the mean over the
    ``R (R - 1) / 2`` pairs. The same is computed for ``n_random`` random labellings, each a
    random permutation of every subsample's labels (the same cluster sizes), and the
    instability is divided by theirs (Lange et al.'s normalisation), so that criteria for
    different K compare.

    Parameters
    ----------
    subsamples : sequence of R array-likes of distinct ints
        The sample indices of each subsample (drawn without replacement), ``R >= 2``.
    labels : sequence of R array-likes
        The clustering of each subsample, aligned with its indices.
    n_samples : int
        ``n``, the number of samples indexed.
    score : {"ari", "disagreement"}, default="ari"
    n_random : int, default=20
        Random labellings averaged for the normalisation.
    random_state : int, RandomState instance or None, default=None
        The random labellings; an int makes the result deterministic.

    Returns
    -------
    ClusteringStability
        ``score`` (mean ARI, higher is more stable; or mean disagreement, lower is more
        stable), ``std_error``, ``random_score`` (the mean over the random labellings),
        ``normalized`` (instability over that of the random labellings: ``(1 - score) /
        (1 - random_score)`` for the ARI, ``score / random_score`` for the disagreement),
        ``normalized_std_error`` and ``pairwise`` (``(R, R)``, NaN diagonal).

    Notes
    -----
    The pairs share subsamples, so their scores are not independent and ``std / sqrt(#pairs)``
    would understate the error. The mean over pairs is a U-statistic of the subsamples; its
    standard error here is the first-order (Hoeffding) one, ``sqrt(4/R^2 sum_r (h_r - h)^2)``
    with ``h_r`` the mean score of subsample r against the others, the form Nogueira et al.
    (2018) use for their feature-set stability; with few subsamples it is somewhat optimistic
    (measured: 0.86 of the observed spread of the score for R = 10 subsamples of a noisy
    3-group partition). The normalised error ignores the Monte Carlo
    error of the random labellings (``n_random`` makes it small).

    Decisions: Lange et al. transfer a clustering to a second sample with a classifier and
    draw random labels uniformly among K; comparing on the shared samples (Ben-Hur et al.) needs
    no classifier, and random labellings with each subsample's own cluster sizes give the
    disagreement expected of these sizes by chance, also when K differs between subsamples.

    References
    ----------
    Ben-Hur, Elisseeff & Guyon (2002), "A stability based method for discovering structure in
    clustered data", Pacific Symposium on Biocomputing 7, 6-17 (the similarity of two
    subsample clusterings on their intersection).
    Lange, Roth, Braun & Buhmann (2004), "Stability-based validation of clustering solutions",
    Neural Computation 16(6), 1299-1323 (the matched disagreement, and the instability
    normalised by that of random labellings).

    Examples
    --------
    Two subsamples of five samples that share three, clustered alike on them:

    >>> result = clustering_stability([[0, 1, 2, 3], [1, 2, 3, 4]],
    ...                               [[0, 0, 1, 1], [5, 7, 7, 7]], 5, random_state=0)
    >>> result.score, float(result.pairwise[0, 1])
    (1.0, 1.0)
    >>> result.normalized
    0.0
    """
    if score not in _PAIR_SCORES:
        raise ValueError(f"score must be one of {sorted(_PAIR_SCORES)}, got {score!r}.")
    if len(subsamples) != len(labels) or len(subsamples) < 2:
        raise ValueError(f"{len(subsamples)} subsamples and {len(labels)} labellings: give "
                         f"one labelling per subsample, at least 2.")
    is_agreement = _PAIR_SCORES[score][1]
    table = _label_table(subsamples, labels, int(n_samples))
    pairwise = _pairwise_scores(table, score)
    mean, std_error = _u_statistic(pairwise)

    rng = check_random_state(random_state)
    drawn = table >= 0
    random_means = np.empty(int(n_random))
    for t in range(random_means.size):
        shuffled = np.full_like(table, -1)
        for r in range(table.shape[0]):
            shuffled[r, drawn[r]] = rng.permutation(table[r, drawn[r]])
        random_means[t] = _u_statistic(_pairwise_scores(shuffled, score))[0]
    random_score = float(random_means.mean())

    def instability(value):
        return 1.0 - value if is_agreement else value

    random_instability = instability(random_score)
    if random_instability <= 0.0:
        # one cluster in every subsample: random labels agree perfectly too, nothing to compare
        return ClusteringStability(mean, std_error, random_score, np.nan, np.nan, pairwise)
    return ClusteringStability(mean, std_error, random_score,
                               float(instability(mean) / random_instability),
                               float(std_error / random_instability), pairwise)


# --- consensus clustering ------------------------------------------------------------------


def resampled_consensus_matrix(subsamples, labels, n_samples):
    """Monti et al.'s consensus matrix: how often two samples are clustered together when
    both are drawn.

    ``C_ij = sum_r [i, j in subsample r and clustered together] / sum_r [i, j in subsample r]``,
    computed as two matrix products of sparse one-hot indicators (co-clustered counts
    ``H H^T``, co-sampled counts ``I I^T``), never a loop over pairs. Memory: two dense
    ``n x n`` matrices, fine for the ``n`` of a few thousand samples this criterion serves.

    Parameters
    ----------
    subsamples : sequence of R array-likes of distinct ints
    labels : sequence of R array-likes
        Aligned with ``subsamples`` (see :func:`clustering_stability`).
    n_samples : int

    Returns
    -------
    consensus : ndarray of shape (n, n)
        In ``[0, 1]``; NaN for pairs never drawn together (and on the diagonal of samples
        never drawn).
    co_sampled : ndarray of shape (n, n), int
        The number of subsamples that hold both samples.

    References
    ----------
    Monti, Tamayo, Mesirov & Golub (2003), "Consensus clustering: a resampling-based method
    for class discovery and visualization of gene expression microarray data", Machine
    Learning 52, 91-118 (the consensus matrix ``M``).

    Examples
    --------
    >>> C, counts = resampled_consensus_matrix([[0, 1, 2], [0, 1]], [[0, 0, 1], [0, 1]], 3)
    >>> C
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0. ],
           [0. , 0. , 1. ]])
    >>> counts
    array([[2, 2, 1],
           [2, 2, 1],
           [1, 1, 1]])
    """
    table = _label_table(subsamples, labels, int(n_samples))
    clustered, _ = _incidence(table)
    sampled = sp.csr_matrix((table >= 0).T.astype(np.float64))
    together = (clustered @ clustered.T).toarray()
    co_sampled = np.rint((sampled @ sampled.T).toarray()).astype(np.intp)
    with np.errstate(invalid="ignore", divide="ignore"):
        consensus = np.where(co_sampled > 0, together / co_sampled, np.nan)
    return consensus, co_sampled


def proportion_ambiguous_clustering(consensus, u1=0.1, u2=0.9):
    """PAC: the fraction of sample pairs whose consensus is ambiguous, in ``(u1, u2]``.

    ``PAC = CDF(u2) - CDF(u1)`` with ``CDF(c)`` the fraction of pairs ``i < j`` whose consensus
    is at most ``c`` (Şenbabaoğlu et al.), over the pairs drawn together at least once (NaN
    entries of :func:`resampled_consensus_matrix` are left out). 0 for a consensus of zeros
    and ones only (a crisp, stable clustering); the K of lowest PAC is their choice.

    Parameters
    ----------
    consensus : array-like of shape (n, n)
        A symmetric consensus matrix.
    u1, u2 : float, default=0.1, 0.9
        The paper's bounds of the ambiguous interval.

    Returns
    -------
    float

    References
    ----------
    Şenbabaoğlu, Michailidis & Li (2014), "Critical limitations of consensus clustering in
    class discovery", Scientific Reports 4, 6207 (the PAC, with ``(u1, u2) = (0.1, 0.9)``).

    Examples
    --------
    Of the three pairs, one has consensus 0.5, ambiguous:

    >>> proportion_ambiguous_clustering([[1.0, 0.5, 0.0], [0.5, 1.0, 1.0], [0.0, 1.0, 1.0]])
    0.3333333333333333
    """
    consensus = np.asarray(consensus, dtype=np.float64)
    if not 0.0 <= u1 < u2 <= 1.0:
        raise ValueError(f"need 0 <= u1 < u2 <= 1, got u1={u1}, u2={u2}.")
    pairs = consensus[np.triu_indices(consensus.shape[0], 1)]
    pairs = pairs[~np.isnan(pairs)]
    if pairs.size == 0:
        raise ValueError("no pair of samples was drawn together: the PAC is undefined.")
    return float(np.mean((pairs > u1) & (pairs <= u2)))


def jackknife_pac(subsamples, labels, n_samples, u1=0.1, u2=0.9, *, max_pairs=None,
                  random_state=None):
    """The PAC of the consensus over all subsamples and its jackknife standard error.

    Leaving subsample r out subtracts its co-clustered and co-sampled counts from the totals
    of :func:`resampled_consensus_matrix`, so the ``R`` leave-one-out PACs are one ``R x P``
    array operation over the ``P`` pairs, not ``R`` new consensus matrices. The error is the
    jackknife's, ``sqrt((R - 1) / R * sum_r (PAC_(r) - mean PAC_(.))^2)`` (Efron & Stein
    1981).

    The PAC is a mean over the ``n (n - 1) / 2`` pairs of samples. When there are more than
    ``max_pairs``, it is the mean over ``max_pairs`` pairs drawn uniformly (with replacement)
    under ``random_state``: an unbiased estimate whose own standard error is at most
    ``0.5 / sqrt(max_pairs)`` (0.0016 for 100 000 pairs), while the exact form costs
    ``R n^2`` (321 of the 372 s of a selector fit on uci-waveform's 5000 samples, six
    subsamples) and ``2 R n^2`` bytes. The same ``random_state`` draws the same pairs, so the
    PACs of every (m, K) of a selector are computed on the same pairs.

    Parameters
    ----------
    subsamples, labels, n_samples
        As for :func:`resampled_consensus_matrix`; ``R >= 2``.
    u1, u2 : float, default=0.1, 0.9
        As for :func:`proportion_ambiguous_clustering`.
    max_pairs : int, default=None
        None: every pair.
    random_state : int, RandomState instance or None, default=None
        Draws the pairs when there are more than ``max_pairs``.

    Returns
    -------
    pac : float
    std_error : float

    Examples
    --------
    Three subsamples of three samples that always cluster samples 0 and 1 together:

    >>> jackknife_pac([[0, 1, 2]] * 3, [[0, 0, 1], [1, 1, 0], [0, 0, 1]], 3)
    (0.0, 0.0)
    """
    table = _label_table(subsamples, labels, int(n_samples))
    R, n = table.shape
    if R < 2:
        raise ValueError(f"the jackknife needs at least 2 subsamples, got {R}.")
    if max_pairs is not None and max_pairs < n * (n - 1) // 2:
        rng = check_random_state(random_state)
        first = rng.randint(n, size=int(max_pairs))
        # a uniform second sample among the n - 1 others: a uniform unordered pair
        second = (first + 1 + rng.randint(n - 1, size=int(max_pairs))) % n
    else:
        first, second = np.triu_indices(n, 1)
    a, b = table[:, first], table[:, second]
    drawn = (a >= 0) & (b >= 0)
    same = drawn & (a == b)
    together = same.sum(axis=0)
    sampled = drawn.sum(axis=0)

    if not (sampled > 0).any():
        raise ValueError("no pair of samples was drawn together: the PAC is undefined.")

    def pac(t, c):
        # t, c: (..., P) counts; the PAC of each row over its pairs drawn together
        keep = c > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            values = t / c
        ambiguous = keep & (values > u1) & (values <= u2)
        return ambiguous.sum(axis=-1) / np.maximum(keep.sum(axis=-1), 1)

    full = float(pac(together, sampled))
    left_out = pac(together - same, sampled - drawn)
    return full, float(np.sqrt((R - 1) / R * np.sum((left_out - left_out.mean()) ** 2)))


# --- K from the spectrum ------------------------------------------------------------------


def eigengap(W, max_clusters, *, min_clusters=2):
    """The number of clusters K at the largest gap of the normalised Laplacian's spectrum.

    With ``lambda_1 <= ... <= lambda_{K_max+1}`` the smallest eigenvalues of
    ``L_sym = I - D^-1/2 W D^-1/2`` (those of ``L_rw`` too), ``K = argmax_k (lambda_{k+1} -
    lambda_k)`` over ``min_clusters <= k <= max_clusters``: a graph of K well separated
    groups has K eigenvalues near 0 and a gap after them.

    Parameters
    ----------
    W : ndarray or scipy.sparse matrix of shape (n, n)
        A symmetric non-negative affinity (e.g. :func:`fsclust.graphs.knn_graph`) without
        isolated nodes.
    max_clusters : int
        ``K_max``, at most ``n - 1``.
    min_clusters : int, default=2
        The smallest K considered: 2, as one cluster is no clustering.

    Returns
    -------
    n_clusters : int
    gaps : ndarray of shape (max_clusters,)
        ``gaps[k - 1] = lambda_{k+1} - lambda_k`` for ``k = 1, ..., K_max``.
    eigenvalues : ndarray of shape (max_clusters + 1,)
        ``lambda_1, ..., lambda_{K_max+1}``, ascending.

    References
    ----------
    von Luxburg (2007), "A tutorial on spectral clustering", Statistics and Computing 17,
    section 8.3 (the eigengap heuristic).

    Examples
    --------
    Two disconnected triangles: eigenvalues ``0, 0, 1.5, 1.5, ...``, the gap after the second.

    >>> triangle = np.ones((3, 3)) - np.eye(3)
    >>> W = np.block([[triangle, np.zeros((3, 3))], [np.zeros((3, 3)), triangle]])
    >>> k, gaps, values = eigengap(W, 3)
    >>> k, np.round(gaps, 12)
    (2, array([0. , 1.5, 0. ]))
    """
    n = W.shape[0]
    if not 1 <= min_clusters <= max_clusters <= n - 1:
        raise ValueError(f"need 1 <= min_clusters <= max_clusters <= n - 1 = {n - 1}, got "
                         f"min_clusters={min_clusters}, max_clusters={max_clusters}.")
    L, _ = laplacian(W, "sym")
    eigenvalues, _ = smallest_eigenvectors(L, max_clusters + 1)
    gaps = np.diff(eigenvalues)
    n_clusters = min_clusters + int(np.argmax(gaps[min_clusters - 1:]))
    return n_clusters, gaps, eigenvalues
