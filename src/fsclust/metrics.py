"""External clustering metrics: ACC (Kuhn-Munkres matching), NMI and ARI.

The headline NMI is the geometric (sqrt) normalisation of Strehl & Ghosh (2002), which
Zhang et al. (2012) cite; decision: it is used for every paper, as Zeng & Cheung (2008) do not
say which one they used. scikit-learn's default has been the arithmetic mean since 0.22, so
the normalisation is always passed explicitly here.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

__all__ = [
    "METRICS",
    "clustering_accuracy",
    "normalized_mutual_info",
    "adjusted_rand",
    "evaluate",
]

_NMI_AVERAGES = ("geometric", "arithmetic", "max")


def clustering_accuracy(y_true, y_pred):
    """Clustering accuracy: the fraction of samples on the best one-to-one cluster-class map.

    ``ACC = max_perm (1/n) sum_i [y_i = perm(p_i)]``, the map found by the Hungarian algorithm on
    the contingency table. The numbers of classes and clusters may differ: clusters left
    unmatched count as errors.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Class labels (any hashable values).
    y_pred : array-like of shape (n,)
        Cluster labels.

    Returns
    -------
    acc : float in [0, 1]

    References
    ----------
    Kuhn (1955), "The Hungarian method for the assignment problem", Naval Research Logistics
    Quarterly 2.

    Examples
    --------
    >>> clustering_accuracy([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]) == 4 / 6
    True
    >>> clustering_accuracy([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    y_true, y_pred = _check_labels(y_true, y_pred)
    C = contingency_matrix(y_true, y_pred)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return float(C[rows, cols].sum() / y_true.shape[0])


def normalized_mutual_info(y_true, y_pred, average_method="geometric"):
    """Normalised mutual information between two partitions.

    ``NMI = MI / norm(H(U), H(V))`` with ``norm`` the geometric mean (Strehl & Ghosh, the
    default here), the arithmetic mean, or the max (Deng Cai's ``MutualInfo.m``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    average_method : {"geometric", "arithmetic", "max"}, default="geometric"

    Returns
    -------
    nmi : float in [0, 1]

    References
    ----------
    Strehl & Ghosh (2002), "Cluster ensembles", JMLR 3, eq. (2).

    Examples
    --------
    >>> round(normalized_mutual_info([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.529541
    """
    if average_method not in _NMI_AVERAGES:
        raise ValueError(
            f"average_method must be one of {_NMI_AVERAGES}, got {average_method!r}."
        )
    y_true, y_pred = _check_labels(y_true, y_pred)
    return float(normalized_mutual_info_score(y_true, y_pred, average_method=average_method))


def adjusted_rand(y_true, y_pred):
    """Adjusted Rand index of Hubert & Arabie: pair-counting agreement corrected for chance.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)

    Returns
    -------
    ari : float in [-1, 1]; 1 for identical partitions, about 0 for random ones

    References
    ----------
    Hubert & Arabie (1985), "Comparing partitions", J. Classification 2; Zhang et al. (2012)
    eqs. (9)-(10).

    Examples
    --------
    >>> adjusted_rand([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]) == 8 / 33
    True
    """
    y_true, y_pred = _check_labels(y_true, y_pred)
    return float(adjusted_rand_score(y_true, y_pred))


def _nmi_arithmetic(y_true, y_pred):
    return normalized_mutual_info(y_true, y_pred, average_method="arithmetic")


def _nmi_max(y_true, y_pred):
    return normalized_mutual_info(y_true, y_pred, average_method="max")


#: Metric name -> function ``f(y_true, y_pred) -> float``. "nmi" is the geometric NMI.
METRICS = {
    "acc": clustering_accuracy,
    "nmi": normalized_mutual_info,
    "nmi_arithmetic": _nmi_arithmetic,
    "nmi_max": _nmi_max,
    "ari": adjusted_rand,
}


def evaluate(y_true, y_pred, metrics=("acc", "nmi", "ari")):
    """Several metrics of one clustering at once.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    metrics : sequence of str, default=("acc", "nmi", "ari")
        Names from :data:`METRICS`.

    Returns
    -------
    scores : dict
        Metric name -> float, in the order asked.

    Examples
    --------
    >>> evaluate([0, 0, 1, 1], [1, 1, 0, 0])
    {'acc': 1.0, 'nmi': 1.0, 'ari': 1.0}
    """
    if isinstance(metrics, str):
        metrics = (metrics,)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"Unknown metric(s) {unknown}; valid names are {sorted(METRICS)}.")
    return {m: METRICS[m](y_true, y_pred) for m in metrics}


def _check_labels(y_true, y_pred):
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.ndim != 1:
        raise ValueError("Labels must be 1-D arrays.")
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"y_true and y_pred have different lengths: {y_true.shape[0]} and {y_pred.shape[0]}."
        )
    if y_true.shape[0] == 0:
        raise ValueError("Empty label arrays.")
    return y_true, y_pred
