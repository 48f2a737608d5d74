"""Haar wavelet features of face images (Zeng & Cheung 2008, PIE C27: 1280 features).

Zeng & Cheung (2008), PRICAI, LNAI 5351, section 4.1, compute 1280 wavelet features from each
32 x 32 PIE image without saying how. Our reading: one level of the 2-D orthonormal Haar
transform gives four 16 x 16 sub-bands cA1, cH1, cV1, cD1 (1024 coefficients); the same
transform of cA1 gives four 8 x 8 sub-bands cA2, cH2, cV2, cD2 (256 coefficients); 1024 + 256 =
1280, which is only possible when all four level-1 sub-bands, cA1 included, are kept.

DECISION (the paper's "normalizing the wavelet coefficients from each level by the average value
in each corresponding level" is ambiguous): each level is divided by ITS OWN per-image mean
absolute value (the level-1 block by the mean |coefficient| of the 1024 level-1 coefficients,
the level-2 block by that of the 256 level-2 coefficients). A signed mean of detail coefficients
is close to 0 and would blow up; dividing per image removes the global illumination scale, the
stated motivation. An image whose level is all zeros keeps zeros.
"""

from __future__ import annotations

import numpy as np
import pywt

__all__ = ["haar_levels", "haar_features", "haar_feature_names", "haar1280", "SUBBANDS"]

#: Order of the sub-bands in the feature vector.
SUBBANDS = ("cA1", "cH1", "cV1", "cD1", "cA2", "cH2", "cV2", "cD2")


def haar_levels(images):
    """Two-level Haar sub-bands of a stack of images, level 2 computed from cA1.

    Parameters
    ----------
    images : array-like of shape (n_images, h, w) or (h, w)
        ``h`` and ``w`` divisible by 4.

    Returns
    -------
    dict of str -> ndarray
        ``SUBBANDS`` -> arrays of shape (n_images, h/2, w/2) for level 1 and (n_images, h/4,
        w/4) for level 2 (no leading axis when a single image was given). Sub-bands as
        ``pywt.dwt2(image, "haar")`` names them: ``cA, (cH, cV, cD)``.
    """
    images = np.asarray(images, dtype=np.float64)
    single = images.ndim == 2
    if single:
        images = images[None]
    if images.ndim != 3 or images.shape[1] % 4 or images.shape[2] % 4:
        raise ValueError(
            f"haar_levels: expected images of shape (n, h, w) with h and w divisible by 4, got "
            f"{images.shape}"
        )
    cA1, (cH1, cV1, cD1) = pywt.dwt2(images, "haar", axes=(-2, -1))
    cA2, (cH2, cV2, cD2) = pywt.dwt2(cA1, "haar", axes=(-2, -1))
    bands = dict(zip(SUBBANDS, (cA1, cH1, cV1, cD1, cA2, cH2, cV2, cD2), strict=True))
    return {k: v[0] for k, v in bands.items()} if single else bands


def _per_image_unit_mean_abs(block):
    scale = np.mean(np.abs(block), axis=1, keepdims=True)
    scale[scale == 0] = 1.0
    return block / scale


def haar_features(images, normalize=True):
    """Concatenated two-level Haar features ``[cA1, cH1, cV1, cD1, cA2, cH2, cV2, cD2]``.

    Parameters
    ----------
    images : array-like of shape (n_images, h, w)
    normalize : bool
        Divide each level by its own per-image mean absolute value (module DECISION).

    Returns
    -------
    ndarray of shape (n_images, 5 * h * w / 4)
        Each sub-band flattened row-major; 1280 features for 32 x 32 images.

    Examples
    --------
    >>> F = haar_features(np.random.default_rng(0).random((3, 32, 32)))
    >>> F.shape
    (3, 1280)
    >>> np.allclose(np.abs(F[:, :1024]).mean(axis=1), 1.0)
    True
    """
    bands = haar_levels(np.asarray(images, dtype=np.float64).reshape(-1, *np.shape(images)[-2:]))
    n = bands["cA1"].shape[0]
    level1 = np.hstack([bands[k].reshape(n, -1) for k in SUBBANDS[:4]])
    level2 = np.hstack([bands[k].reshape(n, -1) for k in SUBBANDS[4:]])
    if normalize:
        level1 = _per_image_unit_mean_abs(level1)
        level2 = _per_image_unit_mean_abs(level2)
    return np.hstack([level1, level2])


def haar1280(X):
    """Recipe step: rows of ``X`` are square images flattened row-major -> Haar features.

    ``X`` of shape (n, s*s) with ``s`` divisible by 4 (1024 pixels -> 1280 features).

    Examples
    --------
    >>> haar1280(np.ones((2, 1024))).shape
    (2, 1280)
    """
    X = np.asarray(X, dtype=np.float64)
    side = int(round(np.sqrt(X.shape[1]))) if X.ndim == 2 else 0
    if X.ndim != 2 or side * side != X.shape[1] or side % 4:
        raise ValueError(
            f"haar1280: expected rows that are square images flattened row-major with a side "
            f"divisible by 4 (e.g. 1024 = 32 x 32 pixels), got shape {X.shape}"
        )
    return haar_features(X.reshape(-1, side, side))


def haar_feature_names(n_pixels):
    """Names of the :func:`haar1280` features of square images of ``n_pixels`` pixels.

    ``"cH1[r,c]"`` is row ``r``, column ``c`` of sub-band cH1.

    Examples
    --------
    >>> names = haar_feature_names(1024)
    >>> len(names), names[0], names[256], names[-1]
    (1280, 'cA1[0,0]', 'cH1[0,0]', 'cD2[7,7]')
    """
    side = int(round(np.sqrt(n_pixels)))
    names = []
    for band in SUBBANDS:
        s = side // 2 if band.endswith("1") else side // 4
        names.extend(f"{band}[{r},{c}]" for r in range(s) for c in range(s))
    return names


# apply_recipe names the new columns of a step that changes the number of features with this.
haar1280.feature_names = haar_feature_names
