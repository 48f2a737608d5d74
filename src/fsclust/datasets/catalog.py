"""The dataset catalog: ``config/datasets.tsv``, one row per dataset, checked row by row.

Columns (the JSON schema ``workflow/schemas/datasets.schema.yaml`` describes each one):

``id``
    Dataset name used everywhere else (lower case, digits, ``.``, ``_``, ``-``).
``source``
    ``url`` (downloaded from ``url``), ``sklearn`` (bundled with scikit-learn), ``synthetic``
    (generated from ``options``) or ``local`` (a file the user provides at ``file``).
``url``
    Pinned raw URL (a commit, never a branch), for ``source = url``.
``file``
    Relative path of the raw file, the same layout as the offline mirror
    (``desouto-armstrong-2002-v2/armstrong-2002-v2_database.txt``).
``checksum_type``, ``checksum``
    ``sha256`` (64 hex digits) or ``git_blob_sha1`` (40 hex digits) of the raw file.

    A dataset made of several files (UCI Segmentation 2310 = ``segmentation.data`` +
    ``segmentation.test``) lists them ``;``-separated in ``url``, ``file`` and ``checksum``,
    in the same order; :attr:`DatasetEntry.files`, ``.urls`` and ``.checksums`` are the lists.
    Several datasets may share a file (a subset, another recipe).
``format``
    Loader: ``desouto``, ``sklearn``, ``synthetic``, ``tsv``, ``csv``, ``mat``, ``res``,
    ``rdata``, ``orange``, ``uci``, ``h5``, ``zptoy`` (see :mod:`fsclust.datasets.loaders`).
``options``
    JSON object of loader options (an empty cell means ``{}``).
``preprocess``
    Recipe, see :mod:`fsclust.datasets.preprocess`; empty for none.
``substitute``
    ``yes`` when the data stands in for a paper's dataset that could not be obtained.
``n_samples``, ``n_features``, ``n_classes``
    The size AFTER loading and preprocessing (blank when unknown); the tests check every
    mirrored dataset against them. For unlabelled data ``n_classes`` is the number of clusters.
``papers``, ``description``
    Free text: which papers use it; what it is and every preprocessing decision.

The file is tab-separated, one header line, no quoting: a cell may contain quotes, commas and
blanks but no tab.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

from fsclust.datasets.preprocess import parse_recipe

__all__ = [
    "COLUMNS",
    "CatalogError",
    "UnknownDatasetError",
    "DatasetEntry",
    "load_catalog",
    "get_entry",
    "find_repo_file",
]

COLUMNS = (
    "id",
    "source",
    "url",
    "file",
    "checksum_type",
    "checksum",
    "format",
    "options",
    "preprocess",
    "substitute",
    "n_samples",
    "n_features",
    "n_classes",
    "papers",
    "description",
)

CATALOG_PATH = Path("config") / "datasets.tsv"
SCHEMA_PATH = Path("workflow") / "schemas" / "datasets.schema.yaml"


class CatalogError(ValueError):
    """The catalog file is malformed; the message names the row id, column and problem."""


class UnknownDatasetError(KeyError, ValueError):
    """A dataset id that is not in the catalog (both a KeyError and a ValueError)."""

    def __str__(self):
        # KeyError's own str() quotes its message as a repr.
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class DatasetEntry:
    """One row of the dataset catalog (see the module docstring for the columns)."""

    id: str
    source: str
    format: str
    url: str = ""
    file: str = ""
    checksum_type: str = ""
    checksum: str = ""
    options: dict = field(default_factory=dict)
    preprocess: str = ""
    substitute: bool = False
    papers: str = ""
    description: str = ""
    n_samples: int | None = None
    n_features: int | None = None
    n_classes: int | None = None

    __hash__ = None  # options is a dict

    @property
    def files(self):
        """The raw files (relative paths), in order; empty for sklearn / synthetic data."""
        return _split(self.file)

    @property
    def urls(self):
        """The pinned URLs, one per file."""
        return _split(self.url)

    @property
    def checksums(self):
        """The checksums (all of type ``checksum_type``), one per file."""
        return _split(self.checksum)


def _split(cell):
    return [part.strip() for part in cell.split(";") if part.strip()] if cell else []


def find_repo_file(relative, start=None):
    """Return ``start/relative`` or the same path under the nearest parent directory holding it.

    Raises FileNotFoundError naming every directory searched when none holds it.
    """
    start = Path.cwd() if start is None else Path(start)
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / relative
        if candidate.exists():
            return candidate
    raise FileNotFoundError(
        f"{relative} not found in {start} or any parent directory; run from the fsclust "
        "project directory or pass the path explicitly"
    )


def _schema_for(catalog_path):
    # The schema lives in the project holding the catalog (config/.. = project root); fall back
    # to the source tree this package was installed from (editable install).
    project = catalog_path.resolve().parent.parent
    for candidate in (project / SCHEMA_PATH, Path(__file__).resolve().parents[3] / SCHEMA_PATH):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(
        f"catalog schema {SCHEMA_PATH} not found next to {catalog_path}; pass schema=..."
    )


def load_catalog(path=None, schema=None):
    """Read and validate the dataset catalog.

    Parameters
    ----------
    path : str or Path, optional
        The catalog TSV. Default: ``config/datasets.tsv`` in the current directory or its
        nearest parent that has one.
    schema : str or Path, optional
        The JSON schema (YAML) of one row. Default: ``workflow/schemas/datasets.schema.yaml``
        of the project holding the catalog.

    Returns
    -------
    dict of str -> DatasetEntry
        In file order.

    Raises
    ------
    CatalogError
        Listing every bad row as ``row <line> (id '<id>'), column '<column>': <problem>``.
    """
    path = find_repo_file(CATALOG_PATH) if path is None else Path(path)
    schema_path = _schema_for(path) if schema is None else Path(schema)
    with open(schema_path, encoding="utf-8") as fh:
        validator = jsonschema.Draft202012Validator(yaml.safe_load(fh))

    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows:
        raise CatalogError(f"{path}: empty file; expected a header line: {' '.join(COLUMNS)}")
    header = rows[0]
    missing = [c for c in COLUMNS if c not in header]
    extra = [c for c in header if c not in COLUMNS]
    if missing or extra or len(set(header)) != len(header):
        raise CatalogError(
            f"{path}: bad header line: missing columns {missing}, unknown columns {extra}; "
            f"expected the tab-separated columns {list(COLUMNS)}"
        )

    problems = []
    catalog = {}
    for lineno, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue  # blank line
        row_id = cells[0] if cells else ""
        where = f"row {lineno} (id {row_id!r})"
        if len(cells) != len(header):
            problems.append(
                f"{where}: {len(cells)} cells, expected {len(header)} (a missing or extra tab?)"
            )
            continue
        row = dict(zip(header, cells, strict=True))
        row_problems = []
        options = row["options"].strip() or "{}"
        try:
            row["options"] = json.loads(options)
        except json.JSONDecodeError as err:
            row_problems.append(f"{where}, column 'options': not valid JSON ({err.msg})")
        for err in sorted(validator.iter_errors(row), key=lambda e: [str(p) for p in e.path]):
            column = err.path[0] if err.path else _column_of(err)
            if column == "options" and row_problems:
                continue  # the JSON error above already says what is wrong with options
            inside = ".".join(str(p) for p in err.path)
            detail = f" (at {inside})" if len(err.path) > 1 else ""
            row_problems.append(f"{where}, column {column!r}{detail}: {_message(err)}")
        if not row_problems:
            try:
                parse_recipe(row["preprocess"])
            except ValueError as err:
                row_problems.append(f"{where}, column 'preprocess': {err}")
            if row["id"] in catalog:
                row_problems.append(f"{where}, column 'id': duplicate id {row['id']!r}")
            row_problems.extend(_count_problems(row, where))
        if row_problems:
            problems.extend(row_problems)
            continue
        catalog[row["id"]] = DatasetEntry(
            id=row["id"],
            source=row["source"],
            format=row["format"],
            url=row["url"],
            file=row["file"],
            checksum_type=row["checksum_type"],
            checksum=row["checksum"],
            options=row["options"],
            preprocess=row["preprocess"].strip(),
            substitute=row["substitute"] == "yes",
            papers=row["papers"],
            description=row["description"],
            n_samples=_int_or_none(row["n_samples"]),
            n_features=_int_or_none(row["n_features"]),
            n_classes=_int_or_none(row["n_classes"]),
        )
    if problems:
        raise CatalogError(f"{path}: invalid dataset catalog:\n  " + "\n  ".join(problems))
    return catalog


def _int_or_none(cell):
    return int(cell) if cell.strip() else None


def _count_problems(row, where):
    # url, file and checksum list the same files in the same order.
    files, urls, sums = _split(row["file"]), _split(row["url"]), _split(row["checksum"])
    problems = []
    for column, values in (("url", urls), ("checksum", sums)):
        if values and len(values) != len(files):
            problems.append(
                f"{where}, column {column!r}: {len(values)} ';'-separated entries for "
                f"{len(files)} file(s); give one per file, in the order of 'file'"
            )
    if len(set(files)) != len(files):
        problems.append(f"{where}, column 'file': a file is listed twice")
    return problems


def _column_of(err):
    # 'required' and 'additionalProperties' errors sit on the row object itself.
    if err.validator == "required":
        return err.message.split("'")[1] if "'" in err.message else "?"
    return "?"


def _message(err):
    # The schema's own description of a rule reads better than jsonschema's generic message.
    hint = err.schema.get("description") if isinstance(err.schema, dict) else None
    return f"{err.message} ({hint})" if hint else err.message


def get_entry(catalog, dataset_id):
    """Return ``catalog[dataset_id]``; an unknown id raises UnknownDatasetError listing the ids.

    UnknownDatasetError is both a KeyError and a ValueError.

    Examples
    --------
    >>> get_entry({"iris": "entry"}, "iris")
    'entry'
    >>> get_entry({"iris": "entry"}, "irsi")
    Traceback (most recent call last):
    ...
    fsclust.datasets.catalog.UnknownDatasetError: unknown dataset 'irsi'; valid ids: iris
    """
    try:
        return catalog[dataset_id]
    except KeyError:
        raise UnknownDatasetError(
            f"unknown dataset {dataset_id!r}; valid ids: {', '.join(sorted(catalog))}"
        ) from None
