"""Catalog, loaders, synthetic data, preprocessing steps and the dataset file."""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits
from sklearn.metrics import adjusted_rand_score

from fsclust.datasets import (
    COLUMNS,
    STEPS,
    CatalogError,
    Dataset,
    DatasetEntry,
    apply_recipe,
    divide,
    get_entry,
    load_catalog,
    load_dataset,
    load_raw,
    log10,
    make_blobs_with_irrelevant,
    make_irrelevant_features,
    parse_recipe,
    prepare,
    read_desouto,
    read_table,
    save_dataset,
    standardize,
    threshold,
)

REPO = Path(__file__).resolve().parents[1]
CATALOG = REPO / "config" / "datasets.tsv"
SCHEMA = REPO / "workflow" / "schemas" / "datasets.schema.yaml"
from _mirror import MIRROR, needs_mirror  # noqa: E402


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(CATALOG)


def _manifest_row(file):
    with open(MIRROR / "MANIFEST.tsv", newline="") as fh:
        return next(r for r in csv.DictReader(fh, delimiter="\t") if r["file"] == file)


# --- catalog -----------------------------------------------------------------------------------


def test_catalog_has_the_required_datasets(catalog):
    required = {
        "iris",
        "wine",
        "breast_cancer",
        "digits-4v9",
        "digits-0v8",
        "synthetic-blobs",
        "desouto-armstrong-2002-v2",
        "desouto-tomlins-2006",
    }
    assert required <= set(catalog)
    for dataset_id, entry in catalog.items():
        assert entry.id == dataset_id
        assert entry.description
        assert isinstance(entry.options, dict)
        parse_recipe(entry.preprocess)  # every recipe parses


def test_default_catalog_is_found_from_a_subdirectory(monkeypatch, catalog):
    monkeypatch.chdir(REPO / "src")
    assert load_catalog() == catalog


def _write_catalog(tmp_path, edit_row, column, value):
    lines = CATALOG.read_text().splitlines()
    header = lines[0].split("\t")
    for i, line in enumerate(lines[1:], start=1):
        cells = line.split("\t")
        if cells[0] == edit_row:
            cells[header.index(column)] = value
            lines[i] = "\t".join(cells)
    path = tmp_path / "datasets.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("row", "column", "value"),
    [
        ("wine", "source", "ftp"),
        ("wine", "substitute", "maybe"),
        ("wine", "options", "{not json"),
        ("wine", "options", '{"name": "mnist"}'),
        ("wine", "preprocess", "standardise"),
        ("desouto-tomlins-2006", "checksum", "abc123"),
        ("desouto-tomlins-2006", "url", ""),
        ("desouto-tomlins-2006", "file", "../outside.txt"),
        ("iris", "id", "Iris Data"),
        ("iris", "description", ""),
    ],
)
def test_bad_row_is_an_error_naming_row_and_column(tmp_path, row, column, value):
    path = _write_catalog(tmp_path, row, column, value)
    with pytest.raises(CatalogError) as info:
        load_catalog(path, schema=SCHEMA)
    message = str(info.value)
    shown_id = value if column == "id" else row
    assert f"id {shown_id!r}" in message
    assert f"column {column!r}" in message
    # Only the edited row is reported.
    assert message.count("row ") == message.count(f"id {shown_id!r}")


def test_duplicate_id_and_ragged_row_are_errors(tmp_path):
    lines = CATALOG.read_text().splitlines()
    path = tmp_path / "datasets.tsv"
    path.write_text("\n".join([lines[0], lines[1], lines[1]]) + "\n")
    with pytest.raises(CatalogError, match="duplicate id"):
        load_catalog(path, schema=SCHEMA)
    path.write_text("\n".join([lines[0], lines[1].rsplit("\t", 1)[0]]) + "\n")
    with pytest.raises(CatalogError, match=f"{len(COLUMNS) - 1} cells, expected {len(COLUMNS)}"):
        load_catalog(path, schema=SCHEMA)


def test_missing_column_in_header_is_an_error(tmp_path):
    lines = CATALOG.read_text().splitlines()
    path = tmp_path / "datasets.tsv"
    path.write_text(lines[0].replace("checksum_type", "checksum_kind") + "\n")
    with pytest.raises(CatalogError, match="checksum_type"):
        load_catalog(path, schema=SCHEMA)


def test_unknown_id_lists_the_valid_ids(catalog):
    for error in (KeyError, ValueError):
        with pytest.raises(error) as info:
            get_entry(catalog, "irsi")
        message = str(info.value)
        assert "irsi" in message
        assert all(dataset_id in message for dataset_id in catalog)


# --- loaders -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dataset_id", "shape", "n_classes"),
    # Published sizes of the UCI data sets (n x d x c).
    [("iris", (150, 4), 3), ("wine", (178, 13), 3), ("breast_cancer", (569, 30), 2)],
)
def test_sklearn_sets_have_their_published_sizes(catalog, dataset_id, shape, n_classes):
    ds = prepare(get_entry(catalog, dataset_id))
    assert ds.X.shape == shape
    assert ds.n_classes == n_classes
    assert sorted(np.unique(ds.y)) == list(range(n_classes))
    assert len(ds.feature_names) == shape[1] and len(ds.sample_names) == shape[0]
    assert ds.provenance["dataset"] == dataset_id
    assert ds.provenance["recipe_steps"] == ["standardize"]


@pytest.mark.parametrize(("dataset_id", "digits"), [("digits-4v9", (4, 9)), ("digits-0v8", (0, 8))])
def test_digit_pairs_keep_exactly_the_two_digits(catalog, dataset_id, digits):
    ds = prepare(get_entry(catalog, dataset_id))
    reference = load_digits()
    counts = [int(np.sum(reference.target == d)) for d in digits]
    assert ds.n_classes == 2
    assert ds.class_names == [str(d) for d in digits]
    assert np.bincount(ds.y).tolist() == counts
    assert ds.X.shape == (sum(counts), 64)
    assert ds.X.min() >= 0 and ds.X.max() <= 1  # divide(16) of 0..16 pixels
    # Each kept sample is the reference image of its digit.
    index = [int(name.split("_")[-1]) for name in ds.sample_names]
    np.testing.assert_array_equal(ds.X * 16, reference.data[index])
    np.testing.assert_array_equal(np.array(digits)[ds.y], reference.target[index])


def test_sklearn_classes_by_name_and_unknown_class():
    entry = DatasetEntry(
        id="iris2", source="sklearn", format="sklearn",
        options={"name": "iris", "classes": ["virginica", "setosa"]},
    )
    ds = load_raw(entry)
    assert ds.class_names == ["virginica", "setosa"]
    assert np.bincount(ds.y).tolist() == [50, 50]
    bad = DatasetEntry(id="x", source="sklearn", format="sklearn",
                       options={"name": "iris", "classes": ["rose", "setosa"]})
    with pytest.raises(ValueError, match="setosa, versicolor, virginica"):
        load_raw(bad)


# Class sizes as printed in Zhang et al. 2012, Table 1 (spec 5.6).
DESOUTO_CLASSES = {
    "desouto-armstrong-2002-v2": {"ALL": 24, "MLL": 20, "AML": 28},
    "desouto-tomlins-2006": {"EPI": 27, "MET": 20, "PCA": 32, "PIN": 13, "STROMA": 12},
}


@needs_mirror
@pytest.mark.parametrize("dataset_id", sorted(DESOUTO_CLASSES))
def test_desouto_sets_load_to_the_manifest_sizes(catalog, dataset_id):
    entry = get_entry(catalog, dataset_id)
    raw_file = MIRROR / entry.file
    row = _manifest_row(entry.file)
    ds = load_raw(entry, raw_file)
    assert ds.X.shape == (int(row["n_samples"]), int(row["n_features"]))
    assert ds.n_classes == int(row["n_classes"])
    sizes = {name: int(np.sum(ds.y == k)) for k, name in enumerate(ds.class_names)}
    assert sizes == DESOUTO_CLASSES[dataset_id]
    # Samples in rows: the matrix is the transpose of the file read by pandas.
    table = pd.read_csv(raw_file, sep="\t", index_col=0, skiprows=[1])
    np.testing.assert_array_equal(ds.X, table.to_numpy(dtype=float).T)
    assert ds.sample_names == [str(c) for c in table.columns]
    assert ds.feature_names == [str(g) for g in table.index]
    assert ds.provenance["checksum"] == entry.checksum and not ds.provenance["substitute"]


@needs_mirror
def test_prepare_desouto_standardizes_each_gene(catalog):
    entry = get_entry(catalog, "desouto-tomlins-2006")
    ds = prepare(entry, MIRROR / entry.file)
    assert ds.provenance["recipe_steps"] == ["standardize"]
    np.testing.assert_allclose(ds.X.mean(0), 0, atol=1e-10)
    np.testing.assert_allclose(ds.X.std(0), 1, atol=1e-10)


DESOUTO_TOY = '\t"s1"\t"s2"\t"s3"\n\t"B"\t"A"\t"B"\n"g1"\t1\t2\t3\n"g2"\t4\t5\t6\n'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty file"),
        (DESOUTO_TOY[: DESOUTO_TOY.rindex("\t")], "ragged"),  # truncated download
        (DESOUTO_TOY.replace('\t"B"\t"A"\t"B"\n', ""), "label row missing"),
        (DESOUTO_TOY.replace("\t5\t", "\tfive\t"), "non-numeric"),
        (DESOUTO_TOY.replace("\t5\t", "\tNA\t"), "missing value"),
        (DESOUTO_TOY.replace("\t5\t", "\t\t"), "missing value"),
    ],
)
def test_malformed_desouto_file_is_an_error_naming_the_file(tmp_path, text, problem):
    path = tmp_path / "broken_database.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=problem) as info:
        read_desouto(path)
    assert str(path) in str(info.value)


def test_read_table_with_labels_and_separators(tmp_path):
    rows = [
        ("id", "a", "class", "b"),
        ("x", "1", "10", "2"),
        ("y", "3", "2", "4"),
        ("z", "5", "10", "6"),
    ]
    for suffix, sep in ((".csv", ","), (".tsv", "\t"), (".txt", "\t")):
        path = tmp_path / f"mine{suffix}"
        path.write_text("\n".join(sep.join(r) for r in rows) + "\n")
        ds = read_table(path, label_column="class")
        assert ds.feature_names == ["a", "b"]
        assert ds.sample_names == ["x", "y", "z"]
        np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
        assert ds.class_names == ["2", "10"]  # numeric labels sort as numbers
        assert ds.y.tolist() == [1, 0, 1]
    unlabelled = read_table(tmp_path / "mine.csv")
    assert unlabelled.y is None and unlabelled.X.shape == (3, 3)


def test_read_table_labelling_ignores_sample_order(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("id,f,type\n1,0.5,tumour\n2,0.1,normal\n3,0.7,tumour\n")
    b.write_text("id,f,type\n3,0.7,tumour\n2,0.1,normal\n1,0.5,tumour\n")
    da, db = read_table(a, "type"), read_table(b, "type")
    assert da.class_names == db.class_names
    assert dict(zip(da.sample_names, da.y)) == dict(zip(db.sample_names, db.y))


@pytest.mark.parametrize(
    ("text", "label", "problem"),
    [
        ("", None, "empty file"),
        ("id,a,b\n", None, "no samples"),
        ("id,a,b\nx,1,2\ny,3\n", None, "ragged"),
        ("id,a,b\nx,1,2\ny,3,high\n", None, "column 'b' is not numeric"),
        ("id,a,b\nx,1,2\ny,3,\n", None,
         "the first is line 3, sample 'y', feature 'b' .''.; fix them or pass missing=\"nan\""),
        ("id,a,b\nx,1,inf\ny,3,4\n", None, "line 2, sample 'x', feature 'b' .'inf'."),
        ("id,a,b\nx,1,2\ny,3,4\n", "class", "label_column 'class' is not a column of"),
    ],
)
def test_malformed_table_is_an_error_naming_the_file(tmp_path, text, label, problem):
    path = tmp_path / "broken.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=problem) as info:
        read_table(path, label_column=label)
    assert str(path) in str(info.value)


def test_read_table_missing_nan_keeps_missing_cells_and_unique_rejects_duplicates(tmp_path):
    path = tmp_path / "holes.tsv"
    path.write_text("id\ta\ta\nx\t1\tNA\ny\t-inf\t4\nx\t5\t6\n")
    X = read_table(path, missing="nan").X
    assert np.isnan(X[0, 1]) and np.isnan(X[1, 0]) and X[2].tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match=r"1 duplicate feature name\(s\): 'a' \(2x\)"):
        read_table(path, missing="nan", unique=True)
    path.write_text("id\ta\tb\nx\t1\t2\nx\t3\t4\n")
    with pytest.raises(ValueError, match=r"1 duplicate sample id\(s\): 'x' \(2x\)"):
        read_table(path, unique=True)
    with pytest.raises(ValueError, match="missing must be 'error' or 'nan'"):
        read_table(path, missing="drop")


def test_read_table_unknown_extension_needs_sep(tmp_path):
    path = tmp_path / "data.dat"
    path.write_text("id;a\nx;1\n")
    with pytest.raises(ValueError, match="sep"):
        read_table(path)
    assert read_table(path, sep=";").X.tolist() == [[1.0]]


def test_local_tsv_entry_reads_its_file(tmp_path):
    path = tmp_path / "own.tsv"
    path.write_text("sample\tg1\tg2\tgroup\ns1\t1\t2\tA\ns2\t3\t4\tB\n")
    entry = DatasetEntry(id="own", source="local", format="tsv", file=str(path),
                         options={"label_column": "group"}, preprocess="standardize",
                         description="user data")
    ds = prepare(entry)
    assert ds.class_names == ["A", "B"] and ds.X.tolist() == [[-1, -1], [1, 1]]
    assert ds.provenance["dataset"] == "own" and ds.provenance["loader"] == "tsv"


# --- synthetic ---------------------------------------------------------------------------------


def _mean_offdiagonal_correlation(Z):
    C = np.corrcoef(Z, rowvar=False)
    return C[~np.eye(C.shape[0], dtype=bool)].mean()


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.7])
def test_irrelevant_features_have_the_requested_correlation(rho):
    Z = make_irrelevant_features(4000, 10, correlation=rho, random_state=1)
    assert Z.shape == (4000, 10)
    assert abs(_mean_offdiagonal_correlation(Z) - rho) < 0.05
    np.testing.assert_allclose(Z.mean(0), 0, atol=0.1)  # N(0, 1) marginals
    np.testing.assert_allclose(Z.std(0), 1, atol=0.1)


def test_negative_correlation_is_refused():
    with pytest.raises(ValueError, match="correlation"):
        make_irrelevant_features(10, 3, correlation=-0.2)


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("rho", [0.0, 0.3])
def test_blobs_carry_clusters_only_in_the_relevant_features(shuffle, rho):
    ds = make_blobs_with_irrelevant(
        n_samples=600, n_irrelevant=10, correlation=rho, shuffle_features=shuffle, random_state=3
    )
    assert ds.X.shape == (600, 12) and ds.n_classes == 3
    assert len(ds.relevant_features) == 2
    if not shuffle:
        assert ds.relevant_features == [0, 1]
    assert all(ds.feature_names[j].startswith("relevant") for j in ds.relevant_features)
    irrelevant = [j for j in range(12) if j not in ds.relevant_features]
    assert abs(_mean_offdiagonal_correlation(ds.X[:, irrelevant]) - rho) < 0.05

    def ari(columns):
        km = KMeans(3, n_init=10, random_state=0).fit(ds.X[:, columns])
        return adjusted_rand_score(ds.y, km.labels_)

    assert ari(ds.relevant_features) > 0.95
    assert ari(irrelevant) < 0.1


def test_blobs_are_reproducible(catalog):
    a = make_blobs_with_irrelevant(random_state=7)
    b = make_blobs_with_irrelevant(random_state=7)
    c = make_blobs_with_irrelevant(random_state=8)
    assert a == b
    assert not np.array_equal(a.X, c.X)
    ds = prepare(get_entry(catalog, "synthetic-blobs"))
    assert ds.X.shape == (150, 12) and ds.n_classes == 3 and ds.relevant_features == [0, 1]
    assert ds.provenance["generator_params"]["correlation"] == 0.3


# --- preprocessing -----------------------------------------------------------------------------


def test_standardize_gives_mean_0_sd_1_and_zeros_for_constant_features():
    rng = np.random.default_rng(0)
    X = rng.normal(5, 3, size=(40, 6))
    X[:, 2] = 0.1  # constant (0.1 is not exact in binary: the mean may round)
    Z = standardize(X)
    live = [0, 1, 3, 4, 5]
    np.testing.assert_allclose(Z[:, live].mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(Z[:, live].std(0), 1, atol=1e-12)
    assert np.all(Z[:, 2] == 0)
    assert not np.array_equal(X[:, 2], Z[:, 2])  # input untouched, output new


def test_standardize_is_invariant_to_positive_affine_maps():
    X = np.random.default_rng(1).normal(size=(30, 4))
    np.testing.assert_allclose(standardize(3.5 * X - 7), standardize(X), atol=1e-12)


def test_threshold_log10_divide():
    X = np.array([[0.2, 50.0, 20000.0]])
    np.testing.assert_array_equal(threshold(X, 1, 16000), [[1, 50, 16000]])
    np.testing.assert_array_equal(threshold(X, ceiling=100), [[0.2, 50, 100]])
    np.testing.assert_allclose(log10(10.0 ** np.arange(-2, 4)[None]), [np.arange(-2, 4)])
    np.testing.assert_array_equal(divide([[8.0, 16.0]], 16), [[0.5, 1.0]])
    with pytest.raises(ValueError, match="threshold"):
        log10([[0.0, 1.0]])
    with pytest.raises(ValueError, match="floor"):
        threshold(X, 10, 1)


def test_recipe_parsing_and_errors():
    assert parse_recipe(" threshold(1,16000) ;log10; standardize") == [
        ("threshold", {"floor": 1.0, "ceiling": 16000.0}),
        ("log10", {}),
        ("standardize", {}),
    ]
    assert parse_recipe("threshold(,5)") == [("threshold", {"ceiling": 5.0})]
    assert parse_recipe(None) == parse_recipe("  ") == []
    with pytest.raises(ValueError, match="valid steps: " + ", ".join(STEPS)):
        parse_recipe("log10;zscore")
    for bad in ("log10;;standardize", "threshold(1,2,3)", "threshold(a)", "log10("):
        with pytest.raises(ValueError, match="recipe"):
            parse_recipe(bad)


def test_apply_recipe_equals_the_steps_in_order_and_records_them():
    rng = np.random.default_rng(2)
    X = rng.uniform(-100, 30000, size=(25, 5))
    X[0, 0] = -5.0  # below every floor used here
    ds = Dataset(X=X, y=None, feature_names=list("abcde"),
                 sample_names=[f"s{i}" for i in range(25)], provenance={"dataset": "toy"})
    out = apply_recipe(ds, "threshold(1,16000);log10;standardize")
    np.testing.assert_allclose(out.X, standardize(log10(threshold(X, 1, 16000))))
    assert out.provenance["recipe_steps"] == [
        "threshold(floor=1, ceiling=16000)", "log10", "standardize"
    ]
    assert out.provenance["dataset"] == "toy"
    np.testing.assert_array_equal(ds.X, X)  # the input dataset is unchanged
    assert "recipe_steps" not in ds.provenance
    # Keyword parameters override the recipe's own.
    floor20 = apply_recipe(ds, "threshold(1,16000)", threshold={"floor": 20})
    assert floor20.X.min() == 20
    with pytest.raises(ValueError, match="no parameter"):
        apply_recipe(ds, "log10", log10={"base": 2})


# --- the dataset file --------------------------------------------------------------------------


def _toy(**changes):
    fields = dict(
        X=np.arange(12.0).reshape(4, 3) / 7,
        y=np.array([1, 0, 2, 1]),
        feature_names=["gène α", "b", "c"],
        sample_names=["s0", "s1", "s2", "s3"],
        class_names=["x", "y", "z"],
        provenance={
            "dataset": "toy",
            "recipe_steps": ["standardize"],
            "seed": 3,
            "nested": {"a": [1, 2]},
        },
        relevant_features=[0, 2],
    )
    fields.update(changes)
    return Dataset(**fields)


@pytest.mark.parametrize(
    "ds",
    [
        _toy(),
        _toy(y=None, class_names=None, relevant_features=None),
        _toy(X=np.empty((4, 0)), feature_names=[], relevant_features=None),
    ],
    ids=["labelled", "unlabelled", "no-features"],
)
def test_save_load_round_trip(tmp_path, ds):
    path = tmp_path / "out" / "toy.npz"
    save_dataset(ds, path)
    back = load_dataset(path)
    assert back == ds
    assert back.X.dtype == np.float64
    assert back.y is None or back.y.dtype.kind == "i"
    assert [p.name for p in path.parent.iterdir()] == ["toy.npz"]


def test_dataset_file_holds_no_pickled_objects(tmp_path):
    path = tmp_path / "toy.npz"
    save_dataset(_toy(), path)
    with np.load(path, allow_pickle=False) as z:
        assert all(z[key].dtype != object for key in z.files)
        assert json.loads(str(z["provenance"]))["dataset"] == "toy"
    with zipfile.ZipFile(path) as zf:
        assert all(name.endswith(".npy") for name in zf.namelist())


def test_save_dataset_keeps_the_given_name(tmp_path):
    path = tmp_path / "toy.dataset"
    save_dataset(_toy(), path)
    assert [p.name for p in tmp_path.iterdir()] == ["toy.dataset"]
    assert load_dataset(path) == _toy()


def test_dataset_validates_its_parts():
    with pytest.raises(ValueError, match="feature names"):
        _toy(feature_names=["a"])
    with pytest.raises(ValueError, match="class names"):
        _toy(class_names=["x"])
    with pytest.raises(ValueError, match="relevant_features"):
        _toy(relevant_features=[5])
    assert _toy(class_names=None).n_classes == 3
    assert _toy(y=None, class_names=None).n_classes is None
