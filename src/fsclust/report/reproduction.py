"""The reproduction summary: every number and claim of the papers, reproduced, explained or not.

Each paper target writes ``paper_vs_ours.tsv`` files (:func:`fsclust.report.paper_vs_ours`):
a paper's number or text claim beside ours. This module classifies every row (:data:`STATUSES`):

- **reproduced**: our number lies within the tolerance of the paper's (:func:`tolerance`), or a
  text claim holds on our numbers (a note starting ``holds: yes``);
- **explained, tested**: it does not, and a cause in ``config/reproduction/<paper>.yaml`` of
  class ``tested`` names why, with a test that would fail if the paper's claim held: the test
  computes on the row's dataset, method and number of features, declared in the cause's
  ``tested_on`` (a row outside ``tested_on`` falls to the next class);
- **explained, causal link untested**: a cause of class ``untested`` names why, and its test
  shows the cause exists (the data differ, a setting is missing) but not that it makes the
  difference;
- **reconstruction choice**: a cause of class ``reconstruction-choice``: the difference comes
  from a choice of our reconstruction where the paper says nothing, not from the paper's
  method (a property of our code, shown by its test);
- **unexplained**: none of these.

Rows whose note starts with ``variant:`` (a sensitivity run, the paper as probably run, another
reading of an ambiguous sentence) are listed but not counted; rows without a paper number and
without a claim are context, not counted either.

The cause files read::

    paper: zhang2012
    causes:
      laplacian-keeps-worst-genes:
        kind: paper-error
        class: tested
        tested_on: {dataset: [armstrong], method: [Laplacian], data: [desouto-armstrong-2002-v2]}
        why: what was tried, what each reading gave, what stands
        test: tests/test_zhang2012.py::test_paper_as_run_laplacian_subset_sizes
    explain:                 # first match wins; a key left out matches any value
      - cause: laplacian-keeps-worst-genes
        where: {table_or_figure: Table 2, method: Laplacian score, metric: [NMI, ARI]}

``where`` and ``tested_on`` compare the columns of ``paper_vs_ours.tsv`` (a value or a list of
values); the key ``note_contains`` of ``where`` matches a substring of the note. ``tested_on``
declares the rows' ``dataset``, ``method`` and ``n_features`` the test computes on, and
``data``, the catalogue keys of the data the test loads (the test file must name them).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from fsclust._io import atomic_path
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS

__all__ = ["KINDS", "CLASSES", "STATUSES", "tolerance", "load_causes", "classify", "summarise_reproduction",
           "write_reproduction"]

#: What a named cause may be, and how the summary says it.
KINDS = {
    "paper-error": "an error in the paper (a wrong sign, a rule applied to the wrong end)",
    "substitute-dataset": "the paper's data are not public; a documented substitute is used",
    "documented-decision": "the paper is ambiguous; our reading is a documented decision",
    "paper-underspecified": "the paper omits a setting the result depends on (shown by a test)",
    "not-reproducible": "no reading of the paper we tried gives its number (readings recorded)",
    "dataset-unavailable": "the dataset cannot be obtained here (download-only, offline)",
}

#: How a cause explains its rows: the status its rows get (see the module docstring).
CLASSES = {
    "tested": "explained-tested",
    "untested": "explained-untested",
    "reconstruction-choice": "reconstruction-choice",
}

#: Row statuses; the first five are counted, and the summary says them as :data:`TITLES`.
STATUSES = ("reproduced", "explained-tested", "explained-untested", "reconstruction-choice",
            "unexplained", "variant", "context")
COUNTED = STATUSES[:5]
#: The share the targets count: reproduced, or explained by a test that would fail if the
#: paper's claim held.
DONE = STATUSES[:2]
TITLES = {
    "reproduced": "reproduced",
    "explained-tested": "explained, tested",
    "explained-untested": "explained, causal link untested",
    "reconstruction-choice": "reconstruction choice",
    "unexplained": "unexplained",
    "variant": "variant rows",
    "context": "context rows",
}

_SCORES = {"acc", "nmi", "ari"}
_CAUSE_KEYS = {"kind", "class", "why", "test"}
_TESTED_ON_KEYS = {"dataset", "method", "n_features", "data"}
_WHERE_KEYS = set(PAPER_VS_OURS_COLUMNS) - {"paper_value", "paper_sd", "ours_value", "ours_sd",
                                            "diff", "note"} | {"note_contains", "experiment"}


def tolerance(metric, paper_value, paper_sd=float("nan")):
    """How far ours may lie from the paper's number and still count as reproduced.

    - ACC, NMI, ARI on [0, 1]: ``max(2 * paper_sd, 0.05)``;
    - percentages (``ACC_percent``): ``max(2 * paper_sd, 5)``;
    - anything else (numbers of features, subset sizes, iterations): ``max(0.1 * |paper|, 0.5)``,
      i.e. 10 %, and a count of a few features must match after rounding.

    Examples
    --------
    >>> tolerance("NMI", 0.45), tolerance("ACC", 0.9, 0.04), tolerance("ACC_percent", 80.0)
    (0.05, 0.08, 5.0)
    >>> tolerance("n_selected_features", 335), tolerance("n_selected_features", 2)
    (33.5, 0.5)
    """
    sd = 0.0 if paper_sd is None or not math.isfinite(float(paper_sd)) else float(paper_sd)
    name = str(metric).lower()
    if name in _SCORES:
        return max(2 * sd, 0.05)
    if name.endswith("_percent"):
        return max(2 * sd, 5.0)
    return max(0.1 * abs(float(paper_value)), 0.5)


def _as_list(value):
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def load_causes(path):
    """Read and check one ``config/reproduction/<paper>.yaml``.

    Raises
    ------
    ValueError
        Naming the file and the entry: an unknown kind or class (listing the valid ones), a
        missing ``why``, ``test`` or ``class``, a ``tested`` cause without ``tested_on`` (its
        dataset, method, n_features and data), an ``explain`` entry naming an unknown cause or
        an unknown column.
    """
    path = Path(path)
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict) or "paper" not in data:
        raise ValueError(f"{path}: expected a mapping with 'paper', 'causes' and 'explain'")
    causes = data.get("causes") or {}
    for cid, cause in causes.items():
        where = f"{path}: cause {cid!r}"
        if not isinstance(cause, dict):
            raise ValueError(f"{where}: expected a mapping with kind, class, why and test")
        unknown = set(cause) - _CAUSE_KEYS - {"tested_on"}
        missing = _CAUSE_KEYS - set(cause)
        if unknown or missing:
            raise ValueError(f"{where}: keys must be kind, class, why, test and, for a tested "
                             f"cause, tested_on (unknown: {sorted(unknown)}, missing: "
                             f"{sorted(missing)})")
        if cause["kind"] not in KINDS:
            raise ValueError(f"{where}: unknown kind {cause['kind']!r}; valid kinds: "
                             f"{', '.join(KINDS)}")
        if cause["class"] not in CLASSES:
            raise ValueError(f"{where}: unknown class {cause['class']!r}; valid classes: "
                             f"{', '.join(CLASSES)}")
        tested_on = cause.get("tested_on")
        if cause["class"] == "tested":
            if not isinstance(tested_on, dict) or set(tested_on) != _TESTED_ON_KEYS:
                raise ValueError(f"{where}: a tested cause declares tested_on with exactly "
                                 f"{', '.join(sorted(_TESTED_ON_KEYS))}: the rows' dataset, "
                                 f"method and n_features its test computes on, and the data "
                                 f"it loads")
        elif tested_on is not None and not isinstance(tested_on, dict):
            raise ValueError(f"{where}: tested_on must be a mapping")
        if not str(cause["why"]).strip():
            raise ValueError(f"{where}: 'why' is empty; say what was tried and what stands")
        if "::" not in str(cause["test"]):
            raise ValueError(f"{where}: test must read tests/<file>.py::<test name>, got "
                             f"{cause['test']!r}")
    explain = data.get("explain") or []
    for k, entry in enumerate(explain):
        where = f"{path}: explain entry {k + 1}"
        if entry.get("cause") not in causes:
            raise ValueError(f"{where}: unknown cause {entry.get('cause')!r}; causes: "
                             f"{', '.join(causes) or '(none)'}")
        bad = set(entry.get("where") or {}) - _WHERE_KEYS
        if bad:
            raise ValueError(f"{where}: unknown column(s) {sorted(bad)} in 'where'; valid: "
                             f"{', '.join(sorted(_WHERE_KEYS))}")
    return {"paper": str(data["paper"]), "causes": causes, "explain": explain, "path": str(path)}


def rows_under_test(cause):
    """The ``where`` of the rows a cause's test computes on (``tested_on`` less ``data``)."""
    return {k: v for k, v in (cause.get("tested_on") or {}).items() if k != "data"}


def explained_status(row, cause):
    """The status a cause gives a row it explains (:data:`CLASSES`).

    A ``tested`` cause whose test does not compute on the row's dataset, method and number of
    features (``tested_on``) has not tested the row's claim: the row is explained, causal link
    untested.
    """
    status = CLASSES[cause["class"]]
    if status == "explained-tested" and not _matches(row, rows_under_test(cause)):
        return "explained-untested"
    return status


def _cell(value):
    """A cell as the text a ``where`` value is compared with (4.0 -> '4', NaN -> '')."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _matches(row, where):
    for key, value in (where or {}).items():
        if key == "note_contains":
            if not any(v in str(row.get("note", "")) for v in _as_list(value)):
                return False
        elif _cell(row.get(key)) not in _as_list(value):
            return False
    return True


def _status(row):
    """(status before causes, scaled size of the difference) of one paper_vs_ours row."""
    note = str(row.get("note", "") or "")
    if note.startswith("variant:"):
        return "variant", np.nan
    if note.startswith("holds: yes"):
        return "reproduced", np.nan
    if note.startswith("holds: no"):
        return "differs", np.nan
    paper, ours = float(row["paper_value"]), float(row["ours_value"])
    if math.isnan(paper):
        return "context", np.nan
    if math.isnan(ours):
        return "differs", np.inf
    tol = tolerance(row["metric"], paper, row["paper_sd"])
    size = abs(ours - paper) / tol
    return ("reproduced" if size <= 1 else "differs"), size


def classify(table, causes=None):
    """Classify every row of a paper's ``paper_vs_ours`` rows.

    Parameters
    ----------
    table : DataFrame
        ``paper_vs_ours.tsv`` rows (any number of files concatenated), with an optional
        ``experiment`` column.
    causes : dict, optional
        :func:`load_causes` of the paper.

    Returns
    -------
    DataFrame
        The rows with ``status`` (one of :data:`STATUSES`), ``tolerance``, ``excess`` (the
        difference over the tolerance; inf where we have no number), ``cause``, ``kind`` and
        ``class`` (the cause's declared class; the status may be weaker, see
        :func:`explained_status`).
        Identical rows from several files are kept once.
    """
    table = table.drop_duplicates(subset=[c for c in PAPER_VS_OURS_COLUMNS if c in table])
    causes = causes or {"causes": {}, "explain": []}
    out = []
    for _, row in table.iterrows():
        status, excess = _status(row)
        tol = np.nan
        if status in ("reproduced", "differs") and not math.isnan(float(row["paper_value"])):
            tol = tolerance(row["metric"], float(row["paper_value"]), row["paper_sd"])
        cause = kind = declared = ""
        if status == "differs":
            status = "unexplained"
            for entry in causes["explain"]:
                if _matches(row, entry.get("where")):
                    cause = entry["cause"]
                    kind = causes["causes"][cause]["kind"]
                    declared = causes["causes"][cause]["class"]
                    status = explained_status(row, causes["causes"][cause])
                    break
        out.append({**row.to_dict(), "status": status, "tolerance": tol, "excess": excess,
                    "cause": cause, "kind": kind, "class": declared})
    columns = [*table.columns, "status", "tolerance", "excess", "cause", "kind", "class"]
    return pd.DataFrame(out, columns=columns)


def _is_large_score_gap(rows, limit):
    """Rows whose ACC or NMI differs from the paper's by more than ``limit`` (on [0, 1])."""
    metric = rows["metric"].astype(str).str.lower()
    diff = pd.to_numeric(rows["diff"], errors="coerce").abs()
    scale = np.where(metric.str.endswith("_percent"), 100.0, 1.0)
    is_score = metric.isin(["acc", "nmi", "acc_percent"])
    return is_score & (diff / scale > limit)


def summarise_reproduction(classified, target_papers=(), max_unexplained=0.15):
    """Counts per paper and the issue's two targets.

    Returns
    -------
    counts : DataFrame
        Per paper: counted rows, the rows of each status (:data:`STATUSES`) and their share of
        the counted rows (``share: <status>``), explained rows per kind of cause, and
        ``share``, the share reproduced or explained by a tested cause (:data:`DONE`).
    targets : dict
        ``share`` of the target papers' counted rows reproduced or explained by a tested
        cause, and ``large_unexplained``, the number of unexplained ACC or NMI differences
        above ``max_unexplained``.
    """
    rows = []
    for paper, part in classified.groupby("paper_key", sort=False):
        status = part["status"].value_counts()
        counted = int(sum(status.get(s, 0) for s in COUNTED))
        row = {"paper": paper, "counted": counted}
        for s in STATUSES:
            row[s] = int(status.get(s, 0))
        for s in COUNTED:
            row[f"share: {s}"] = row[s] / counted if counted else np.nan
        explained = part["status"].isin(COUNTED[1:4])
        for kind in KINDS:
            row[f"explained: {kind}"] = int((explained & (part["kind"] == kind)).sum())
        done = sum(row[s] for s in DONE)
        row["share"] = done / counted if counted else np.nan
        rows.append(row)
    counts = pd.DataFrame(rows)
    in_target = classified[classified["paper_key"].isin(list(target_papers))]
    counted = in_target["status"].isin(COUNTED)
    done = in_target["status"].isin(DONE)
    unexplained = classified[classified["status"] == "unexplained"]
    targets = {
        "target_papers": list(target_papers),
        "share": float(done.sum() / counted.sum()) if counted.sum() else float("nan"),
        "counted": int(counted.sum()),
        "max_unexplained": max_unexplained,
        "large_unexplained": int(_is_large_score_gap(unexplained, max_unexplained).sum()),
    }
    return counts, targets


def _fmt(value, digits=3):
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if abs(value) >= 100:
            return f"{value:.1f}".rstrip("0").rstrip(".")
        return f"{value:.{digits}g}"
    return str(value)


def _row_line(r):
    ours = _fmt(r["ours_value"])
    paper = _fmt(r["paper_value"])
    diff = _fmt(r["diff"])
    note = str(r.get("note", "") or "").replace("|", "/")
    if len(note) > 160:
        note = note[:157] + "..."
    return (f"| {r['paper_key']} | {r['table_or_figure']} | {r['dataset']} | {r['method']} | "
            f"{_cell(r['n_features'])} | {r['metric']} | {paper} | {ours} | {diff} | "
            f"{r['cause']} | {note} |")


def render_markdown(classified, counts, targets, causes_by_paper, target_share=0.8):
    """The summary as Markdown: counts, targets, causes, and the differences largest first."""
    share = targets["share"]
    lines = [
        "# Reproduction summary",
        "",
        "Every number and text claim the papers report (`config/paper-results.tsv`), beside "
        "ours in each experiment's `paper_vs_ours.tsv`, classified as **reproduced** (within "
        "tolerance; a claim that holds on our numbers); **explained, tested** (a named cause "
        "in `config/reproduction/<paper>.yaml` whose test computes on the row's dataset, method "
        "and number of features and would fail if the paper's claim held); **explained, causal "
        "link untested** (the cause's test shows the cause exists, not that it makes the "
        "difference); **reconstruction choice** (the difference comes from a choice of our "
        "reconstruction the paper does not make or state); or **unexplained**. "
        "Tolerances: ACC, NMI, ARI within max(2 sd of the paper, 0.05); percentages within "
        "max(2 sd, 5 points); numbers of features, subset sizes and other counts within "
        "max(10 %, 0.5). Variant rows (sensitivity runs, the paper as probably run, other "
        "readings) are listed, not counted. The full list: `results/reproduction.tsv`.",
        "",
        "## Counts per paper",
        "",
        "Rows, and in brackets their share of the paper's counted rows.",
        "",
        "| paper | counted | " + " | ".join(TITLES[s] for s in COUNTED)
        + " | reproduced or explained, tested | variant rows | context rows |",
        "|---|---|" + "---|" * (len(COUNTED) + 3),
    ]
    for _, c in counts.iterrows():
        cells = [f"{c[s]} ({_fmt(100 * c[f'share: {s}'], 3)} %)" for s in COUNTED]
        lines.append(f"| {c['paper']} | {c['counted']} | " + " | ".join(cells)
                     + f" | {_fmt(100 * c['share'], 3)} % | {c['variant']} | {c['context']} |")
    lines += ["", "Explained (tested, untested or a reconstruction choice), by kind of cause:", "",
              "| paper | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
    for _, c in counts.iterrows():
        lines.append(f"| {c['paper']} | " + " | ".join(str(c[f"explained: {k}"]) for k in KINDS)
                     + " |")
    verdict = "met" if share >= target_share else "NOT met"
    large = targets["large_unexplained"]
    lines += [
        "",
        "## Targets",
        "",
        f"- Reproduced or explained, tested, {', '.join(targets['target_papers'])}: "
        f"**{_fmt(100 * share, 3)} %** of {targets['counted']} counted rows (target "
        f"{int(100 * target_share)} %: {verdict}).",
        f"- Unexplained ACC or NMI differences above {targets['max_unexplained']}: **{large}** "
        f"(target 0: {'met' if large == 0 else 'NOT met'}).",
        "",
        "## Causes",
        "",
    ]
    for paper, causes in causes_by_paper.items():
        for cid, cause in causes["causes"].items():
            mine = classified[(classified["paper_key"] == paper) & (classified["cause"] == cid)]
            why = " ".join(str(cause["why"]).split())
            lines.append(f"- **{paper} / {cid}** ({cause['kind']}; {_class_line(cause, mine)}; "
                         f"test `{cause['test']}`): {why}")
    order = classified.assign(_x=classified["excess"].fillna(-1)).sort_values(
        "_x", ascending=False, kind="stable")
    header = ["| paper | table | dataset | method | m | metric | paper | ours | diff | cause | note |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for status, title in (("unexplained", "Unexplained differences, largest first"),
                          ("explained-tested", "Explained differences, tested, largest first"),
                          ("explained-untested",
                           "Explained differences, causal link untested, largest first"),
                          ("reconstruction-choice",
                           "Differences from a reconstruction choice, largest first"),
                          ("variant", "Variant rows (not counted)")):
        part = order[order["status"] == status]
        lines += ["", f"## {title}", ""]
        if part.empty:
            lines.append("None.")
            continue
        lines += header + [_row_line(r) for _, r in part.iterrows()]
    unused = [(paper, k + 1, e["cause"]) for paper, causes in causes_by_paper.items()
              for k, e in enumerate(causes["explain"])
              if not _explain_used(classified[classified["paper_key"] == paper], e)]
    if unused:
        lines += ["", "## Explanations that matched no row", ""]
        lines += [f"- {paper}: entry {k} ({cause})" for paper, k, cause in unused]
    return "\n".join(lines) + "\n"


def _class_line(cause, rows):
    """How a cause's rows are classed: its class, its rows, and any its test does not touch."""
    line = f"{TITLES[CLASSES[cause['class']]]}; {len(rows)} row(s)"
    if cause["class"] == "tested":
        on = ", ".join(f"{k} {_as_list(v)}" for k, v in rows_under_test(cause).items())
        outside = int((rows["status"] != "explained-tested").sum())
        line += f"; tested on {on}"
        if outside:
            line += f"; {outside} row(s) outside it, counted as causal link untested"
    return line


def _explain_used(rows, entry):
    return any(_matches(r, entry.get("where")) for _, r in rows.iterrows())


def write_reproduction(tables, causes_files, out_md, out_tsv, target_papers=(),
                       target_share=0.8, max_unexplained=0.15):
    """Read the papers' ``paper_vs_ours.tsv`` files and write the summary (Markdown and TSV).

    Parameters
    ----------
    tables : dict
        Paper key -> list of ``paper_vs_ours.tsv`` paths.
    causes_files : dict
        Paper key -> its ``config/reproduction/<paper>.yaml`` (a paper without one has no
        explained rows).
    """
    parts, causes_by_paper = [], {}
    for paper, paths in tables.items():
        causes = load_causes(causes_files[paper]) if causes_files.get(paper) else None
        if causes is not None:
            causes_by_paper[paper] = causes
        frames = []
        for path in paths:
            frame = pd.read_csv(path, sep="\t", dtype={"n_features": str, "note": str},
                                keep_default_na=True)
            frame["note"] = frame["note"].fillna("")
            frames.append(frame.assign(experiment=Path(path).parent.name))
        if not frames:
            continue
        rows = classify(pd.concat(frames, ignore_index=True), causes)
        parts.append(rows.assign(paper_key=paper))
    classified = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=[*PAPER_VS_OURS_COLUMNS, "experiment", "status", "tolerance", "excess", "cause",
                 "kind", "class", "paper_key"])
    counts, targets = summarise_reproduction(classified, target_papers, max_unexplained)
    text = render_markdown(classified, counts, targets, causes_by_paper, target_share)
    front = ["paper_key", "experiment", "status", "cause", "kind", "class", "tolerance",
             "excess"]
    columns = front + [c for c in classified.columns if c not in front]
    with atomic_path(out_tsv) as tmp:
        classified[columns].to_csv(tmp, sep="\t", index=False)
    with atomic_path(out_md) as tmp:
        Path(tmp).write_text(text)
    return classified, counts, targets
