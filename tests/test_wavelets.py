"""Haar wavelet features of the PIE images (spec 1.6): properties of the transform."""

from __future__ import annotations

import numpy as np
import pytest
import pywt

from fsclust.datasets import Dataset, apply_recipe
from fsclust.datasets.wavelets import (
    SUBBANDS,
    haar1280,
    haar_feature_names,
    haar_features,
    haar_levels,
)


@pytest.fixture
def images():
    return np.random.default_rng(0).random((4, 32, 32))


def test_1280_features_for_a_32x32_image(images):
    F = haar_features(images)
    assert F.shape == (4, 1280)
    assert len(haar_feature_names(1024)) == 1280
    assert len(set(haar_feature_names(1024))) == 1280


def test_level1_subbands_reconstruct_the_image(images):
    bands = haar_levels(images[0])
    back = pywt.idwt2((bands["cA1"], (bands["cH1"], bands["cV1"], bands["cD1"])), "haar")
    assert np.allclose(back, images[0])
    cA1 = pywt.idwt2((bands["cA2"], (bands["cH2"], bands["cV2"], bands["cD2"])), "haar")
    assert np.allclose(cA1, bands["cA1"])  # level 2 is the transform of cA1


def test_orthonormal_haar_keeps_the_energy_and_matches_the_2x2_formula(images):
    bands = haar_levels(images[0])
    level1 = sum(np.sum(bands[k] ** 2) for k in SUBBANDS[:4])
    assert np.isclose(level1, np.sum(images[0] ** 2))  # Parseval
    (a, b), (c, d) = images[0][:2, :2]
    assert np.isclose(bands["cA1"][0, 0], (a + b + c + d) / 2)  # spec 1.6
    assert np.isclose(bands["cD1"][0, 0], (a - b - c + d) / 2)


def test_each_level_has_mean_absolute_value_one_per_image(images):
    F = haar_features(images)
    assert np.allclose(np.abs(F[:, :1024]).mean(axis=1), 1)
    assert np.allclose(np.abs(F[:, 1024:]).mean(axis=1), 1)


def test_features_are_the_subbands_in_order_divided_by_their_level_scale(images):
    raw = haar_levels(images)
    F = haar_features(images)
    level1 = np.hstack([raw[k].reshape(4, -1) for k in SUBBANDS[:4]])
    level2 = np.hstack([raw[k].reshape(4, -1) for k in SUBBANDS[4:]])
    # Each level is a positive multiple of the raw coefficients, row-major, in SUBBANDS order.
    ratio1 = F[:, :1024] / level1
    ratio2 = F[:, 1024:] / level2
    assert np.allclose(ratio1, ratio1[:, :1]) and np.all(ratio1 > 0)
    assert np.allclose(ratio2, ratio2[:, :1]) and np.all(ratio2 > 0)


def test_features_ignore_the_brightness_scale(images):
    assert np.allclose(haar_features(images), haar_features(7.5 * images))


def test_transposed_image_swaps_horizontal_and_vertical_details(images):
    a, b = haar_levels(images[0]), haar_levels(images[0].T)
    assert np.allclose(a["cH1"], b["cV1"].T) and np.allclose(a["cV1"], b["cH1"].T)


def test_blank_image_gives_zeros_not_nan():
    F = haar_features(np.zeros((1, 32, 32)))
    assert np.all(F == 0)


def test_recipe_step_reads_row_major_images_and_renames_the_features(images):
    X = images.reshape(4, 1024)
    assert np.array_equal(haar1280(X), haar_features(images))
    ds = Dataset(X=X * 255, y=[0, 0, 1, 1], feature_names=[f"p{j}" for j in range(1024)],
                 sample_names=list("abcd"), class_names=["s1", "s2"])
    out = apply_recipe(ds, "divide(255);haar1280")
    assert out.X.shape == (4, 1280)
    assert out.feature_names[:2] == ["cA1[0,0]", "cA1[0,1]"]
    assert out.provenance["recipe_steps"] == ["divide(divisor=255)", "haar1280"]
    with pytest.raises(ValueError, match="square images"):
        haar1280(np.ones((2, 1000)))


# --- the two readings of the paper's per-level normalisation (Zeng & Cheung 2008, Sec. 4.1)
def test_dataset_normaliser_gives_each_level_mean_abs_one_over_the_dataset(images):
    # one face under four flash intensities
    bright = images[:1] * np.array([1.0, 2.0, 0.5, 3.0])[:, None, None]
    F = haar_features(bright, normalize="dataset")
    assert np.isclose(np.abs(F[:, :1024]).mean(), 1.0)
    assert np.isclose(np.abs(F[:, 1024:]).mean(), 1.0)
    # one scale per level for the whole dataset: each image keeps its own brightness
    per_image = np.abs(F[:, :1024]).mean(axis=1)
    assert not np.allclose(per_image, 1.0)
    assert np.allclose(per_image / per_image[0], [1.0, 2.0, 0.5, 3.0])
    # and the whole feature matrix is a per-level multiple of the raw coefficients
    raw = haar_features(bright, normalize=None)
    assert np.allclose(F[:, :1024] / raw[:, :1024], F[0, 0] / raw[0, 0])
    assert np.allclose(F[:, 1024:] / raw[:, 1024:], F[0, 1024] / raw[0, 1024])


def test_per_image_normaliser_gives_each_level_mean_abs_one_per_image(images):
    bright = images * np.array([1.0, 2.0, 0.5, 3.0])[:, None, None]
    F = haar_features(bright, normalize="per_image")
    assert np.allclose(np.abs(F[:, :1024]).mean(axis=1), 1.0)
    assert np.allclose(np.abs(F[:, 1024:]).mean(axis=1), 1.0)
    # the flash intensity is gone: the four images' features equal the unscaled ones
    assert np.allclose(F, haar_features(images, normalize="per_image"))
    assert np.array_equal(F, haar_features(bright))  # the default (and True) is per image
    assert np.array_equal(F, haar_features(bright, normalize=True))


def test_dataset_normaliser_of_blank_images_gives_zeros():
    assert np.all(haar_features(np.zeros((2, 32, 32)), normalize="dataset") == 0)


def test_recipe_chooses_the_normaliser_and_records_it(images):
    X = (images * np.array([1.0, 2.0, 0.5, 3.0])[:, None, None]).reshape(4, 1024)
    ds = Dataset(X=X, y=[0, 0, 1, 1], feature_names=[f"p{j}" for j in range(1024)],
                 sample_names=list("abcd"), class_names=["s1", "s2"])
    out = apply_recipe(ds, "haar1280(dataset)")
    assert np.array_equal(out.X, haar1280(X, normalizer="dataset"))
    assert out.provenance["recipe_steps"] == ["haar1280(normalizer=dataset)"]
    assert np.array_equal(apply_recipe(ds, "haar1280(per_image)").X, apply_recipe(ds, "haar1280").X)
    # the keyword override of apply_recipe reaches the step too
    assert np.array_equal(apply_recipe(ds, "haar1280", haar1280={"normalizer": "dataset"}).X,
                          out.X)


@pytest.mark.parametrize("recipe, message", [
    ("haar1280(global)", r"normalizer='global' of step 'haar1280' must be one of per_image, "
                         r"dataset"),
    ("haar1280(1)", r"must be one of per_image, dataset, e.g. 'haar1280\(dataset\)'"),
    ("haar1280(dataset, per_image)", r"takes at most 1 arguments \(normalizer\), got 2"),
    ("divide(dataset)", r"argument divisor='dataset' of step 'divide' is not a number"),
])
def test_recipe_normaliser_errors_are_clear(recipe, message):
    from fsclust.datasets import parse_recipe
    with pytest.raises(ValueError, match=message):
        parse_recipe(recipe)


def test_unknown_normaliser_in_python_names_the_choices(images):
    with pytest.raises(ValueError, match="unknown normalizer 'mean'.*per_image, dataset"):
        haar_features(images, normalize="mean")
    with pytest.raises(ValueError, match="haar1280: unknown normalizer"):
        haar1280(images.reshape(4, 1024), normalizer="mean")


def test_pie_catalog_rows_are_the_two_readings_of_one_file():
    from fsclust.datasets import load_catalog
    rows = {k: e for k, e in load_catalog().items() if k.startswith("pie-c27")}
    assert set(rows) == {"pie-c27", "pie-c27-dataset-norm"}
    a, b = rows["pie-c27"], rows["pie-c27-dataset-norm"]
    assert (a.files, a.checksums, a.options) == (b.files, b.checksums, b.options)
    assert a.preprocess == "divide(255);haar1280"
    assert b.preprocess == "divide(255);haar1280(dataset)"
