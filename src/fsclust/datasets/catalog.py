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
``format``
    Loader: ``desouto``, ``sklearn``, ``synthetic``, ``tsv``, ``csv``.
``options``
    JSON object of loader options (an empty cell means ``{}``).
``preprocess``
    Recipe, see :mod:`fsclust.datasets.preprocess`; empty for none.
``substitute``
    ``yes`` when the data stands in for a paper's dataset that could not be obtained.
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

    __hash__ = None  # options is a dict


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
        )
    if problems:
        raise CatalogError(f"{path}: invalid dataset catalog:\n  " + "\n  ".join(problems))
    return catalog


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
