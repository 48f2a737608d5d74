"""The size bounds of the rankers: the policy's budget and rounding, and the refusal of data
whose smaller side is too large.

A ranker's bound (:class:`~fsclust.rankers.base.RankerTags` ``max_samples``, ``max_features``)
is the largest ``n`` (or ``d``) at which its simultaneous square float64 arrays, counted from
the measured peak memory, fit in :data:`MEMORY_BUDGET`, rounded down by :func:`round_down`;
lower where the time at the bound would exceed about 10 minutes on 2 cores; never below what a
shipped experiment fits it on (docs/measurements.md, "Size bounds of the rankers").

PCA, Q-alpha and UFF build ``min(n, d) x min(n, d)`` arrays (a Gram matrix of the samples when
``n <= d``, of the features otherwise, or an SVD of the data), so either side alone may be
large: wide expression tables (85 x 22,283) and tall single-cell ones (10^5 x 2,000) both fit.
A bound on one side would refuse one of them for nothing; these rankers declare
``RankerTags.max_smaller_side`` instead (docs/measurements.md, "Size bounds of the rankers").
"""

from __future__ import annotations

import math

import numpy as np

#: The memory the square arrays of one fit may take.
MEMORY_BUDGET = 4 * 2**30

_ROUND_STEPS = (1.0, 1.2, 1.5, 1.6, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def round_down(x):
    """The largest number ``step * 10^k <= x``, ``step`` in 1, 1.2, 1.5, 1.6, 2, 2.5, 3, 4, 5,
    6, 8: one ``n x n`` float64 array fits 4 GiB up to ``n = 23,170``, bound 20,000; two up to
    16,384, bound 16,000.

    Examples
    --------
    >>> round_down(23_170), round_down(16_384), round_down(9_459), round_down(1_000)
    (20000, 16000, 8000, 1000)
    """
    power = 10 ** math.floor(math.log10(x))
    return int(max(step * power for step in _ROUND_STEPS if step * power <= x))


def linear_bound(n_arrays, length, itemsize=8, budget=MEMORY_BUDGET):
    """The largest round ``n`` at which ``n_arrays`` arrays of ``n x length`` fit ``budget``.

    Examples
    --------
    >>> linear_bound(3, 1000)  # three n x 1000 float64 arrays: n <= 178,956
    160000
    """
    return round_down(budget / (itemsize * n_arrays * length))


def available_memory():
    """Bytes of memory this machine can still give without swapping (Linux's
    ``MemAvailable``), or None where it cannot be read (the memory check is then skipped).

    Examples
    --------
    >>> m = available_memory()
    >>> m is None or m > 0
    True
    """
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def sparse_nbytes(X):
    """Bytes of a scipy.sparse matrix's arrays (values, indices and row pointers; COO's
    coordinates): the size its fit's memory factor multiplies.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> sparse_nbytes(sp.csr_matrix(np.eye(3, dtype=np.float32)))  # 3 values, 3 indices, 4 pointers
    40
    """
    arrays = ("data", "indices", "indptr", "row", "col", "offsets")
    return int(sum(getattr(X, name).nbytes for name in arrays
                   if isinstance(getattr(X, name, None), np.ndarray)))
