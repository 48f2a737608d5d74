"""The variance score of sparse input: the dense variance, in blocks of stored values."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsclust.rankers import VarianceScore
from fsclust.rankers import variance


def _counts(n=300, d=40, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.poisson(rng.gamma(0.5, 2.0, size=d), size=(n, d)).astype(np.float64)
    X[:, 3] = 0.0  # a column with no stored value
    X[:, 5] = 7.0  # a constant, fully stored one
    return X


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("block", [1, 7, 2**22])
def test_sparse_variance_is_the_dense_one_whatever_the_block(monkeypatch, dtype, block):
    # the block of stored values bounds the temporaries (4.7x the CSR matrix without it, at
    # 10^5 cells); a block of 1 or 7 values crosses rows and columns everywhere
    X = _counts()
    monkeypatch.setattr(variance, "_VALUE_BLOCK", block)
    sparse = variance.sparse_column_variance(sp.csr_matrix(X.astype(dtype)))
    np.testing.assert_allclose(sparse, np.var(X.astype(dtype).astype(np.float64), axis=0),
                               rtol=1e-12, atol=1e-12)
    fitted = VarianceScore().fit(sp.csr_matrix(X.astype(dtype)))
    np.testing.assert_array_equal(fitted.scores_, sparse)
    assert fitted.constant_mask_[[3, 5]].all()
