"""Checksums and verified fetching (from the offline mirror, and from a URL)."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fsclust.datasets import (
    ChecksumError,
    DatasetEntry,
    catalog_status,
    fetch,
    file_checksum,
    get_entry,
    load_catalog,
    verify,
)
from fsclust.datasets import download as download_module

REPO = Path(__file__).resolve().parents[1]
from _mirror import MIRROR, needs_mirror  # noqa: E402
DESOUTO = ["desouto-armstrong-2002-v2", "desouto-tomlins-2006"]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(REPO / "config" / "datasets.tsv")


def _entry_for(tmp_path, content, kind="sha256", checksum=None):
    """A url entry whose mirror copy (in tmp_path/mirror) holds ``content``."""
    (tmp_path / "mirror" / "toy").mkdir(parents=True)
    (tmp_path / "mirror" / "toy" / "toy.txt").write_bytes(content)
    if checksum is None:
        checksum = hashlib.sha256(content).hexdigest()
    return DatasetEntry(
        id="toy",
        source="url",
        format="tsv",
        url="https://example.org/toy.txt",
        file="toy/toy.txt",
        checksum_type=kind,
        checksum=checksum,
        description="toy",
    )


# --- checksums ---------------------------------------------------------------------------------


def test_sha256_of_the_fips_test_vector(tmp_path):
    # FIPS 180-2 example: SHA-256("abc").
    p = tmp_path / "abc"
    p.write_bytes(b"abc")
    assert file_checksum(p, "sha256") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_sha256_equals_hashlib_on_large_file(tmp_path):
    content = os.urandom(3 * (1 << 20) + 17)  # spans several read chunks
    p = tmp_path / "big.bin"
    p.write_bytes(content)
    assert file_checksum(p, "sha256") == hashlib.sha256(content).hexdigest()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("content", [b"", b"hello\n", b"\x00\x01binary\r\n\xff" * 1000])
def test_git_blob_sha1_equals_git_hash_object(tmp_path, content):
    p = tmp_path / "blob"
    p.write_bytes(content)
    expected = subprocess.run(
        ["git", "hash-object", "--no-filters", str(p)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert file_checksum(p, "git_blob_sha1") == expected


def test_unknown_checksum_type_is_an_error(tmp_path):
    p = tmp_path / "x"
    p.write_bytes(b"x")
    with pytest.raises(ValueError, match="sha256"):
        file_checksum(p, "md5")


def test_verify_returns_checksum_or_raises(tmp_path):
    entry = _entry_for(tmp_path, b"data")
    good = tmp_path / "mirror" / "toy" / "toy.txt"
    assert verify(good, entry) == entry.checksum
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"date")
    with pytest.raises(ChecksumError, match=str(bad)):
        verify(bad, entry)


# --- fetching from the mirror ------------------------------------------------------------------


def _manifest():
    """The rows of the mirror's manifest and of its single-cell folder's (same columns, their
    files relative to the mirror)."""
    rows = []
    for path in (MIRROR / "MANIFEST.tsv", MIRROR / "singlecell" / "MANIFEST.tsv"):
        if path.is_file():
            with open(path, newline="") as fh:
                rows += list(csv.DictReader(fh, delimiter="\t"))
    return rows


@needs_mirror
def test_catalog_urls_and_checksums_match_the_manifest(catalog):
    by_url = {row["raw_url"]: row for row in _manifest() if row["raw_url"]}
    # files from a PyPI wheel have no raw URL in the manifest: the catalog pins the same bytes
    # in the source's GitHub repository (git blob ids checked equal); matched by their file
    by_file = {row["file"]: row for row in _manifest() if not row["raw_url"]}
    url_entries = [e for e in catalog.values() if e.source == "url"]
    assert {e.id for e in url_entries} >= set(DESOUTO)
    for entry in url_entries:
        assert len(entry.urls) == len(entry.files) == len(entry.checksums) >= 1
        for url, file, checksum in zip(entry.urls, entry.files, entry.checksums, strict=True):
            row = by_url[url] if url in by_url else by_file[file]
            # Download-only files have no mirror path in the manifest: the catalog lays them out
            # like the mirror would (its source path under the dataset's folder).
            assert file == row["file"] or (row["in_mirror"] == "no" and not row["file"])
            assert checksum == row[entry.checksum_type]  # manifest columns use the same names
            if row["in_mirror"] == "no":
                assert entry.checksum_type == "git_blob_sha1"


@needs_mirror
def test_every_data_file_of_the_mirror_is_in_the_catalog(catalog):
    urls = {url for e in catalog.values() for url in e.urls}
    files = {file for e in catalog.values() for file in e.files}
    data_rows = [r for r in _manifest() if "documentation" not in r["format"]]
    missing = [r["dataset_id"] + " " + (r["file"] or r["raw_url"]) for r in data_rows
               if r["raw_url"] not in urls and not (not r["raw_url"] and r["file"] in files)]
    assert missing == []


def _two_file_entry(tmp_path, contents, kind="sha256"):
    mirror = tmp_path / "mirror"
    files, sums = [], []
    for k, content in enumerate(contents):
        (mirror / "pair").mkdir(parents=True, exist_ok=True)
        (mirror / "pair" / f"part{k}.txt").write_bytes(content)
        files.append(f"pair/part{k}.txt")
        sums.append(file_checksum(mirror / files[-1], kind))
    entry = DatasetEntry(
        id="pair", source="url", format="uci", file=";".join(files), checksum_type=kind,
        checksum=";".join(sums), url=";".join(f"https://example.org/{f}" for f in files),
        description="two files",
    )
    return entry, mirror


@pytest.mark.parametrize("kind", ["sha256", "git_blob_sha1"])
def test_fetch_each_file_of_a_multi_file_dataset(tmp_path, kind):
    entry, mirror = _two_file_entry(tmp_path, [b"first\n", b"second\n"], kind)
    assert entry.files == ["pair/part0.txt", "pair/part1.txt"]
    for selector in ("pair/part1.txt", 1):
        dest = tmp_path / f"out-{selector!s:.1}" / "x.txt"
        fetch(entry, dest, mirror=mirror, file=selector)
        assert dest.read_bytes() == b"second\n"
    # Without file=..., the destination's path says which file it is (the workflow's layout).
    dest = tmp_path / "raw" / "pair" / "part0.txt"
    fetch(entry, dest, mirror=mirror)
    assert dest.read_bytes() == b"first\n"
    with pytest.raises(ValueError, match="has 2 files"):
        fetch(entry, tmp_path / "ambiguous.txt", mirror=mirror)
    with pytest.raises(ValueError, match="no file 'pair/other.txt'"):
        fetch(entry, tmp_path / "o.txt", mirror=mirror, file="pair/other.txt")
    verify(dest, entry, file=0)
    with pytest.raises(ChecksumError):
        verify(dest, entry, file=1)  # each file has its own checksum


def test_corrupted_second_file_is_refused_and_leaves_nothing(tmp_path):
    entry, mirror = _two_file_entry(tmp_path, [b"first\n", b"second\n"])
    (mirror / "pair" / "part1.txt").write_bytes(b"secnod\n")
    dest_dir = tmp_path / "raw"
    fetch(entry, dest_dir / "a.txt", mirror=mirror, file=0)
    with pytest.raises(ChecksumError) as info:
        fetch(entry, dest_dir / "b.txt", mirror=mirror, file=1)
    assert entry.checksums[1] in str(info.value) and "part1.txt" in str(info.value)
    assert [p.name for p in dest_dir.iterdir()] == ["a.txt"]


def test_catalog_row_with_unequal_file_and_checksum_lists_is_an_error(tmp_path):
    from fsclust.datasets import CatalogError

    lines = (REPO / "config" / "datasets.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    row = next(line.split("\t") for line in lines if line.startswith("uci-segmentation\t"))
    row[header.index("checksum")] = row[header.index("checksum")].split(";")[0]
    path = tmp_path / "datasets.tsv"
    path.write_text("\n".join([lines[0], "\t".join(row)]) + "\n")
    with pytest.raises(CatalogError, match="column 'checksum': 1 ';'-separated entries for 2"):
        load_catalog(path, schema=REPO / "workflow" / "schemas" / "datasets.schema.yaml")


# --- presence and checksums of the local files (fsclust datasets --check) -----------------------


def test_catalog_status_reports_ok_mismatch_and_absent(tmp_path):
    entry, mirror = _two_file_entry(tmp_path, [b"first\n", b"second\n"])
    data_dir = tmp_path / "data" / "raw"
    (data_dir / "pair").mkdir(parents=True)
    (data_dir / "pair" / "part0.txt").write_bytes(b"tampered\n")  # local copy wins over the mirror
    catalog = {"pair": entry}
    status = {s.file: s for s in catalog_status(catalog, data_dir, mirror, check=True)}
    assert status["pair/part0.txt"].status == "MISMATCH"
    assert status["pair/part0.txt"].location == "data"
    assert entry.checksums[0] in status["pair/part0.txt"].detail
    assert status["pair/part1.txt"].status == "OK"
    assert status["pair/part1.txt"].location == "mirror"
    (mirror / "pair" / "part1.txt").unlink()
    status = {s.file: s for s in catalog_status(catalog, data_dir, mirror, check=False)}
    assert status["pair/part0.txt"].status == "present"
    assert status["pair/part1.txt"].status == "absent"


def test_cli_datasets_check_exit_code(tmp_path, monkeypatch, capsys):
    from fsclust.cli import main

    entry, mirror = _two_file_entry(tmp_path, [b"first\n", b"second\n"])
    lines = (REPO / "config" / "datasets.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    cells = {c: "" for c in header}
    cells.update(id="pair", source="url", url=entry.url, file=entry.file,
                 checksum_type="sha256", checksum=entry.checksum, format="uci",
                 substitute="no", n_samples="2", n_features="1", n_classes="1",
                 description="two files")
    (tmp_path / "config").mkdir()
    sheet = tmp_path / "config" / "datasets.tsv"
    sheet.write_text(lines[0] + "\n" + "\t".join(cells[c] for c in header) + "\n")
    schema_dir = tmp_path / "workflow" / "schemas"
    schema_dir.mkdir(parents=True)
    shutil.copy(REPO / "workflow" / "schemas" / "datasets.schema.yaml", schema_dir)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FSCLUST_MIRROR", raising=False)
    assert main(["datasets", "--catalog", str(sheet), "--mirror", str(mirror), "--check"]) == 0
    out = capsys.readouterr().out
    assert "2 x 1 x 1" in out and "OK" in out
    (mirror / "pair" / "part1.txt").write_bytes(b"damaged\n")
    monkeypatch.setenv("FSCLUST_MIRROR", str(mirror))
    assert main(["datasets", "--catalog", str(sheet), "--check"]) == 1
    assert "MISMATCH pair  pair/part1.txt" in capsys.readouterr().out


@needs_mirror
@pytest.mark.parametrize("dataset_id", DESOUTO)
def test_fetch_from_mirror(catalog, tmp_path, dataset_id):
    entry = get_entry(catalog, dataset_id)
    dest = tmp_path / "raw" / entry.file
    assert fetch(entry, dest, mirror=MIRROR) == dest
    assert dest.read_bytes() == (MIRROR / entry.file).read_bytes()
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == entry.checksum
    assert sorted(p.name for p in dest.parent.iterdir()) == [dest.name]  # no temp file left


@needs_mirror
@pytest.mark.parametrize("damage", ["flip_byte", "truncate"])
def test_corrupted_mirror_raises_and_leaves_nothing(catalog, tmp_path, damage):
    entry = get_entry(catalog, "desouto-armstrong-2002-v2")
    bad_mirror = tmp_path / "mirror"
    copy = bad_mirror / entry.file
    copy.parent.mkdir(parents=True)
    content = bytearray((MIRROR / entry.file).read_bytes())
    if damage == "flip_byte":
        content[len(content) // 2] ^= 0x01
    else:
        del content[-100:]
    copy.write_bytes(bytes(content))
    actual = hashlib.sha256(bytes(content)).hexdigest()

    dest_dir = tmp_path / "raw"
    dest = dest_dir / "armstrong.txt"
    with pytest.raises(ChecksumError) as info:
        fetch(entry, dest, mirror=bad_mirror)
    message = str(info.value)
    assert "armstrong.txt" in message and str(copy) in message
    assert entry.checksum in message and actual in message
    assert "mirror" in message  # says where to look
    assert list(dest_dir.iterdir()) == []  # neither the file nor a temporary file


@needs_mirror
def test_failed_fetch_keeps_a_previous_good_file(catalog, tmp_path):
    entry = get_entry(catalog, "desouto-tomlins-2006")
    dest = tmp_path / "raw" / "tomlins.txt"
    fetch(entry, dest, mirror=MIRROR)
    bad_mirror = tmp_path / "mirror"
    (bad_mirror / entry.file).parent.mkdir(parents=True)
    (bad_mirror / entry.file).write_bytes(b"not the data")
    with pytest.raises(ChecksumError):
        fetch(entry, dest, mirror=bad_mirror)
    assert file_checksum(dest) == entry.checksum
    assert [p.name for p in dest.parent.iterdir()] == ["tomlins.txt"]


def test_missing_mirror_file_is_a_clear_error(tmp_path, catalog):
    entry = get_entry(catalog, "desouto-tomlins-2006")
    dest_dir = tmp_path / "raw"
    with pytest.raises(FileNotFoundError) as info:
        fetch(entry, dest_dir / "x.txt", mirror=tmp_path / "empty-mirror")
    message = str(info.value)
    assert str(tmp_path / "empty-mirror" / entry.file) in message
    assert entry.id in message
    assert not dest_dir.exists() or list(dest_dir.iterdir()) == []


def test_fetch_refuses_datasets_without_a_file(catalog, tmp_path):
    with pytest.raises(ValueError, match="no file to fetch"):
        fetch(get_entry(catalog, "iris"), tmp_path / "iris")


# --- fetching from a URL (urlopen replaced: this machine has no network) -----------------------


class _FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.mark.parametrize("served", [b"payload", b"tampered"])
def test_fetch_from_url_verifies_the_download(tmp_path, monkeypatch, served):
    entry = _entry_for(tmp_path, b"payload")
    requested = []

    def fake_urlopen(request, timeout):
        requested.append((request.full_url, timeout))
        return _FakeResponse(served)

    monkeypatch.setattr(download_module.urllib.request, "urlopen", fake_urlopen)
    dest = tmp_path / "raw" / "toy.txt"
    if served == b"payload":
        fetch(entry, dest, timeout=5)
        assert dest.read_bytes() == b"payload"
    else:
        with pytest.raises(ChecksumError, match=entry.url):
            fetch(entry, dest, timeout=5)
        assert list(dest.parent.iterdir()) == []
    assert requested == [(entry.url, 5)]


def test_network_failure_names_the_url(tmp_path, monkeypatch):
    entry = _entry_for(tmp_path, b"payload")

    def offline(request, timeout):
        raise download_module.urllib.error.URLError("no route to host")

    monkeypatch.setattr(download_module.urllib.request, "urlopen", offline)
    dest = tmp_path / "raw" / "toy.txt"
    with pytest.raises(OSError, match="mirror") as info:
        fetch(entry, dest)
    assert entry.url in str(info.value)
    assert list(dest.parent.iterdir()) == []


def test_a_full_disk_during_a_download_is_not_called_a_network_failure(tmp_path, monkeypatch):
    import errno

    entry = _entry_for(tmp_path, b"payload")

    class _FullDisk(_FakeResponse):
        def read(self, *args):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(download_module.urllib.request, "urlopen",
                        lambda request, timeout: _FullDisk(b"payload"))
    dest = tmp_path / "raw" / "toy.txt"
    with pytest.raises(OSError, match="no space left on device writing") as info:
        fetch(entry, dest)
    assert "network" not in str(info.value)
    assert list(dest.parent.iterdir()) == []
