"""Provenance of an experiment: what produced ``results/{experiment}/`` and from what.

:func:`provenance_record` builds one JSON-able record: the versions of the packages whose
numbers could change the results, the Python version, the experiment's config block and its
sha256 (of canonical JSON), the git commit of the workflow (and whether tracked files were
modified), the checksums of the datasets (the catalog's checksums of the raw files and the
sha256 of each prepared ``.npz``), the seeds, and when the results were made.

Times, and what they mean (no output file records when an evaluate job started):

``start``
    The earliest modification time of the experiment's evaluate outputs (the sweep files),
    i.e. when the first of its evaluate jobs finished. Rerunning only this record keeps it:
    the results are as old as the sweeps.
``end``
    The latest modification time of those outputs (when the last evaluate job finished).
``recorded``
    When this record was written.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from fsclust._io import write_text_atomic

__all__ = [
    "PACKAGES",
    "catalog_entries",
    "package_versions",
    "canonical_json",
    "config_sha256",
    "file_sha256",
    "git_state",
    "provenance_record",
    "write_provenance",
]

#: Distributions whose versions are recorded (the numbers depend on these).
PACKAGES = ("fsclust", "numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "snakemake",
            "PyWavelets")


def package_versions(packages=PACKAGES):
    """Installed version of each distribution, or None when it is not installed."""
    versions = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def canonical_json(value):
    """JSON with sorted keys, no blanks and UTF-8 characters kept: equal values give equal
    strings whatever the order of their keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)


def config_sha256(block):
    """sha256 (hex) of the canonical JSON of a config block.

    Examples
    --------
    >>> config_sha256({"a": 1, "b": [1, 2]}) == config_sha256({"b": [1, 2], "a": 1})
    True
    """
    return hashlib.sha256(canonical_json(block).encode("utf-8")).hexdigest()


def file_sha256(path, chunk=1 << 20):
    """sha256 (hex) of a file's bytes, or None when it does not exist."""
    path = Path(path)
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def git_state(repo_dir, timeout=10):
    """``{"commit": sha or None, "dirty": bool or None}`` of the checkout at ``repo_dir``.

    None when ``repo_dir`` is not the top of a git work tree (a copy of the workflow, even one
    that sits inside another repository, is not that repository's commit), when git is absent
    or when it does not answer within ``timeout`` seconds. ``dirty``: a tracked file differs
    from the commit (untracked files, e.g. results, do not count).
    """
    repo_dir = Path(repo_dir).resolve()

    def git(*args):
        proc = subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True,
                              timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        return proc.stdout.strip()

    try:
        top = git("rev-parse", "--show-toplevel")
        if Path(top).resolve() != repo_dir:
            return {"commit": None, "dirty": None}
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, RuntimeError, subprocess.TimeoutExpired):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def catalog_entries(catalog, datasets, prepared="data/prepared/{}.npz"):
    """dataset -> its source, the catalog's checksums of its raw files, and the path of its
    prepared file: the ``datasets`` argument of :func:`provenance_record`."""
    return {
        ds: {
            "source": catalog[ds].source,
            "checksum_type": catalog[ds].checksum_type,
            "checksums": list(catalog[ds].checksums),
            "files": list(catalog[ds].files),
            "prepared": prepared.format(ds),
        }
        for ds in datasets
    }


def _iso(timestamp):
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat(timespec="seconds")


def provenance_record(experiment, config_block, datasets, evaluate_outputs=(), repo_dir=".",
                      recorded=None):
    """The provenance of one experiment, as a JSON-able dict.

    Parameters
    ----------
    experiment : str
        The experiment's name.
    config_block : dict
        Its block of the config (``experiments.<experiment>``).
    datasets : dict
        dataset -> ``{"source": ..., "checksum_type": ..., "checksums": [...], "files": [...],
        "prepared": path of the prepared .npz}`` (the catalog's entry and the prepared file).
    evaluate_outputs : list of path
        The experiment's evaluate outputs (sweep files): their modification times are the
        record's ``start`` and ``end``.
    repo_dir : path
        The workflow's directory (its git commit).
    recorded : float, optional
        POSIX time of the record (default: now).
    """
    mtimes = [os.stat(p).st_mtime for p in evaluate_outputs if Path(p).exists()]
    return {
        "experiment": experiment,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "platform": sys.platform,
        "packages": package_versions(),
        "config": config_block,
        "config_sha256": config_sha256(config_block),
        "git": git_state(repo_dir),
        "datasets": {
            name: {
                "source": entry.get("source"),
                "checksum_type": entry.get("checksum_type") or None,
                "raw_files": [
                    {"file": f, "checksum": c}
                    for f, c in zip(entry.get("files", []), entry.get("checksums", []))
                ],
                "prepared": str(entry["prepared"]),
                "prepared_sha256": file_sha256(entry["prepared"]),
            }
            for name, entry in datasets.items()
        },
        "seeds": list(config_block.get("seeds", [])),
        "times": {
            "start": _iso(min(mtimes)) if mtimes else None,
            "end": _iso(max(mtimes)) if mtimes else None,
            "recorded": _iso(recorded if recorded is not None
                             else datetime.now(timezone.utc).timestamp()),
            "meaning": "start and end: first and last modification of the experiment's "
                       "evaluate outputs (when its first and last evaluate jobs finished); "
                       "recorded: when this file was written",
        },
    }


def write_provenance(out_path, *args, **kwargs):
    """Build :func:`provenance_record` and write it as indented JSON, atomically."""
    record = provenance_record(*args, **kwargs)
    write_text_atomic(out_path, json.dumps(record, indent=2, sort_keys=False, default=str)
                      + "\n")
    return record
