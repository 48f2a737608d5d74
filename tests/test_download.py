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
    fetch,
    file_checksum,
    get_entry,
    load_catalog,
    verify,
)
from fsclust.datasets import download as download_module

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "MANIFEST.tsv").is_file(),
    reason=f"offline data mirror not found at {MIRROR} (set FSCLUST_MIRROR to its directory)",
)
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


@needs_mirror
def test_catalog_urls_and_checksums_match_the_manifest(catalog):
    with open(MIRROR / "MANIFEST.tsv", newline="") as fh:
        manifest = {row["file"]: row for row in csv.DictReader(fh, delimiter="\t") if row["file"]}
    url_entries = [e for e in catalog.values() if e.source == "url"]
    assert {e.id for e in url_entries} >= set(DESOUTO)
    for entry in url_entries:
        row = manifest[entry.file]
        assert entry.url == row["raw_url"]
        assert entry.checksum == row[entry.checksum_type]  # manifest columns use the same names


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
