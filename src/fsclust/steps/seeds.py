"""Seeds: one integer per random choice, derived from the config seed and the job's names.

A job's randomness depends only on (seed, names), never on the order in which Snakemake runs
jobs, so the same config gives the same results whatever ``--cores``.
"""

from __future__ import annotations

import zlib

import numpy as np


def derive_seed(seed, *names):
    """Return a 31-bit integer seed for ``seed`` and a tuple of job names.

    Names are hashed with CRC-32 (stable across Python runs, unlike ``hash``) and fed with the
    seed into a :class:`numpy.random.SeedSequence`.

    Examples
    --------
    >>> derive_seed(0, "iris", "laplacian") == derive_seed(0, "iris", "laplacian")
    True
    >>> derive_seed(0, "iris") != derive_seed(1, "iris")
    True
    """
    entropy = [int(seed)] + [zlib.crc32(str(n).encode()) for n in names]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0] & 0x7FFFFFFF)
