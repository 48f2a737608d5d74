"""Jiang & Ren 2011 (EVSFSC): Figures 2-4 and the paper's claims checked on our
numbers.

The workflow's paper step is :func:`report` (rule ``jiang2011_figures``). The generic evaluate
step has ranked every dataset with FSFS, the Laplacian score, SPEC, MCFS and EVSFSC for each
Laplacian, and clustered the top-m features with the three spectral clusterings (EVSFSC with
the one of its Laplacian only); the experiment's ``summary.tsv`` holds the mean ACC over the
runs for every (dataset, method, clusterer, m).

The paper reports figures only, so the comparison with it is its text claims (section 4),
each a row of ``claims.tsv`` with our numbers and whether it holds. "EVSFSC is best" is judged
on the mean ACC over the sweep m = 100..2100 (where the curves are compared); the best point of
each curve is in the note.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fsclust.registry import ALL_FEATURES  # noqa: E402
from fsclust.report.figures import save_figure  # noqa: E402
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS  # noqa: E402
from fsclust.report.tables import write_tables  # noqa: E402

PAPER = "003_36a9d4b3820add06.txt"
#: Our dataset ids -> the names of the paper's Table 1.
DATASET_NAMES = {
    "skfeature-cll-sub-111": "CLL-SUB-111",
    "skfeature-orlraws10p": "ORL (orlraws10P)",
    "skfeature-pixraw10p": "PIX (pixraw10P)",
    "skfeature-tox-171": "TOX-171",
    "skfeature-warpar10p": "AR (warpAR10P)",
    "skfeature-warppie10p": "PIE (warpPIE10P)",
}
METHOD_NAMES = {"fsfs": "FSFS", "laplacian": "Laplacian score", "spec": "SPEC",
                "mcfs": "MCFS", ALL_FEATURES: "all features"}
STYLES = {"fsfs": dict(color="tab:green", marker="s"), "laplacian": dict(color="tab:orange",
                                                                         marker="^"),
          "spec": dict(color="tab:purple", marker="v"), "mcfs": dict(color="tab:brown",
                                                                     marker="D")}
FIGURE_TAGS = {"fig2": "Fig. 2", "fig3": "Fig. 3", "fig4": "Fig. 4"}
#: The text claim's threshold (section 4): "generally above 0.6 with fewer than 1000 features".
ACC_BAR, FEW_FEATURES = 0.6, 1000
#: "the best results with a few hundred features": the best m of EVSFSC at most this.
FEW_HUNDRED = 500


def _name(dataset):
    return DATASET_NAMES.get(dataset, dataset)


def curves(summary, dataset, clusterer, methods, metric="acc"):
    """``{method: (m, mean, sd)}`` of a dataset under one clusterer, the grid points only."""
    rows = summary[(summary["dataset"] == dataset) & (summary["clusterer"] == clusterer)
                   & (summary["metric"] == metric)]
    if "in_grid" in rows:
        rows = rows[rows["in_grid"].astype(bool)]
    out = {}
    for method in methods:
        part = rows[rows["method"] == method].sort_values("n_features")
        if not part.empty:
            out[method] = (part["n_features"].to_numpy(), part["mean"].to_numpy(),
                           part["sd"].to_numpy())
    return out


def _sweep(curve, d):
    """The part of a curve below all features (the compared sweep)."""
    m, mean, sd = curve
    keep = m < d
    return m[keep], mean[keep], sd[keep]


def plot_figure(summary, figure, spec, datasets, baselines, path, n_seeds, skipped=None):
    """One figure (one Laplacian): a panel per dataset, ACC against m for every method."""
    cols = 3
    rows = max(1, int(np.ceil(len(datasets) / cols)))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    methods = [*baselines, spec["evsfsc"]]
    for ax, ds in zip(axes.ravel(), datasets):
        found = curves(summary, ds, spec["clusterer"], [*methods, ALL_FEATURES])
        d = int(summary.loc[summary["dataset"] == ds, "n_features"].max())
        for method in methods:
            if method not in found:
                continue
            # the sweep only, as the paper's x axis; all features is the dashed line
            m, mean, sd = _sweep(found[method], d)
            style = STYLES.get(method, dict(color="tab:red", marker="o", lw=2.0))
            label = METHOD_NAMES.get(method, f"EVSFSC ({spec['laplacian']})")
            ax.plot(m, mean, ms=3, label=label, **style)
        if ALL_FEATURES in found:
            ax.axhline(found[ALL_FEATURES][1][-1], color="k", ls="--", lw=1, label="all features")
        ax.set_title(_name(ds), fontsize=9)
        ax.set_xlabel("number of selected features m")
        ax.set_ylabel("ACC")
        ax.set_ylim(0.0, 1.02)
    for ax in axes.ravel()[len(datasets):]:
        ax.axis("off")
    if datasets:
        axes.ravel()[0].legend(fontsize=7)
    note = f"; skipped: {', '.join(_name(d) for d in skipped)}" if skipped else ""
    fig.suptitle(f"Jiang & Ren 2011, {FIGURE_TAGS.get(figure, figure)}: spectral clustering "
                 f"with {spec['laplacian']} (mean of {n_seeds} runs){note}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def _row(dataset, figure, method, metric, ours, note, holds, n_features="",
         paper_value=np.nan):
    return {"paper": PAPER, "table_or_figure": figure, "dataset": dataset, "method": method,
            "n_features": n_features, "metric": metric, "paper_value": paper_value,
            "paper_sd": np.nan, "ours_value": ours, "ours_sd": np.nan,
            "diff": ours - paper_value if np.isfinite(paper_value) else np.nan,
            "note": f"holds: {'yes' if holds else 'no'}; {note}"}


def claims_table(summary, figures, datasets, baselines, skipped=None):
    """The paper's claims (section 4), each checked on our numbers.

    - L and L_rw (Figs. 2, 3): EVSFSC is best on all six datasets;
    - L_sym (Fig. 4): EVSFSC is best except on ORL and PIX, where FSFS and MCFS catch up as m
      grows (checked there as: at the largest m below d, FSFS or MCFS is at least EVSFSC);
    - L (Fig. 2): with fewer than 1000 features EVSFSC's ACC is generally above 0.6 on CLL,
      ORL and TOX (mean over m < 1000), and its best results come with a few hundred features
      on PIX, AR and PIE (best m <= 500: our reading of "a few hundred").
    """
    rows = []
    for figure, spec in figures.items():
        tag = FIGURE_TAGS.get(figure, figure)
        ev = spec["evsfsc"]
        for ds in datasets:
            found = curves(summary, ds, spec["clusterer"], [*baselines, ev, ALL_FEATURES])
            if ev not in found:
                continue
            d = int(summary.loc[summary["dataset"] == ds, "n_features"].max())
            means = {k: float(np.mean(_sweep(c, d)[1])) for k, c in found.items()
                     if k != ALL_FEATURES and _sweep(c, d)[0].size}
            best_other = max((k for k in means if k != ev), key=means.get, default=None)
            name = _name(ds)
            m_ev, acc_ev, _ = _sweep(found[ev], d)
            peak = f"best EVSFSC point {acc_ev.max():.3f} at m={int(m_ev[np.argmax(acc_ev)])}"
            exception = spec["laplacian"] == "L_sym" and ds in ("skfeature-orlraws10p",
                                                               "skfeature-pixraw10p")
            if not exception:
                holds = best_other is None or means[ev] > means[best_other]
                rows.append(_row(name, tag, f"EVSFSC ({spec['laplacian']}) best", "ACC",
                                 means[ev],
                                 f"claim: EVSFSC is the best of the five rankings with "
                                 f"{spec['laplacian']}; ours, mean ACC over m = "
                                 f"{int(m_ev.min())}..{int(m_ev.max())}: EVSFSC {means[ev]:.3f}"
                                 f" vs best other {METHOD_NAMES.get(best_other, best_other)} "
                                 f"{means.get(best_other, np.nan):.3f}; {peak}", holds,
                                 n_features="mean over the sweep"))
            else:
                last = {k: float(_sweep(c, d)[1][-1]) for k, c in found.items()
                        if k in ("fsfs", "mcfs", ev) and _sweep(c, d)[0].size}
                m_last = int(m_ev[-1])
                catch = max(last.get("fsfs", -1.0), last.get("mcfs", -1.0))
                rows.append(_row(name, tag, "FSFS/MCFS catch up with EVSFSC (L_sym)", "ACC",
                                 last[ev],
                                 f"claim: on ORL and PIX with L_sym, FSFS and MCFS catch up "
                                 f"with EVSFSC as m grows; ours at m={m_last}: EVSFSC "
                                 f"{last[ev]:.3f}, FSFS {last.get('fsfs', np.nan):.3f}, MCFS "
                                 f"{last.get('mcfs', np.nan):.3f}", catch >= last[ev],
                                 n_features=m_last))
            if spec["laplacian"] != "L":
                continue
            if ds in ("skfeature-cll-sub-111", "skfeature-orlraws10p", "skfeature-tox-171"):
                few = m_ev < FEW_FEATURES
                value = float(np.mean(acc_ev[few])) if few.any() else np.nan
                rows.append(_row(name, tag, "EVSFSC (L) under 1000 features", "ACC", value,
                                 f"claim: with fewer than {FEW_FEATURES} features EVSFSC's ACC "
                                 f"is generally above {ACC_BAR}; ours: mean {value:.3f} over "
                                 f"m < {FEW_FEATURES}, min {acc_ev[few].min():.3f}",
                                 value > ACC_BAR, n_features=f"m < {FEW_FEATURES}",
                                 paper_value=ACC_BAR))
            else:
                best_m = int(m_ev[np.argmax(acc_ev)])
                rows.append(_row(name, tag, "EVSFSC (L) best with a few hundred features",
                                 "n_features", best_m,
                                 f"claim: EVSFSC reaches its best results with a few hundred "
                                 f"features; ours: best mean ACC {acc_ev.max():.3f} at m = "
                                 f"{best_m}; yes if m <= {FEW_HUNDRED} (our reading)",
                                 best_m <= FEW_HUNDRED, n_features=best_m))
    for ds, reason in (skipped or {}).items():
        rows.append({"paper": PAPER, "table_or_figure": "Figs. 2-4", "dataset": _name(ds),
                     "method": "all", "n_features": "", "metric": "ACC",
                     "paper_value": np.nan, "paper_sd": np.nan, "ours_value": np.nan,
                     "ours_sd": np.nan, "diff": np.nan,
                     "note": f"not checked: dataset skipped ({reason})"})
    return pd.DataFrame(rows, columns=PAPER_VS_OURS_COLUMNS)


def report(inputs, outputs, *, figures, baselines, datasets, skipped=None, n_seeds=0):
    """Figures 2-4 and the checked claims (rule ``jiang2011_figures``).

    Parameters
    ----------
    inputs : dict
        ``summary``: the experiment's ``summary.tsv``.
    outputs : dict
        ``fig2``, ``fig3``, ``fig4``, ``claims``, ``claims_md``.
    figures : dict
        ``{fig2: {laplacian, clusterer, evsfsc}, ...}``.
    baselines : list of str
        Method keys drawn beside EVSFSC.
    datasets : list of str
        The panels the experiment could compute, in the paper's order.
    skipped : dict
        ``{dataset: reason}`` of the datasets the experiment could not get.
    """
    summary = pd.read_csv(inputs["summary"], sep="\t")
    for figure, spec in figures.items():
        plot_figure(summary, figure, spec, datasets, baselines, outputs[figure], n_seeds,
                    skipped=list(skipped or {}))
    claims = claims_table(summary, figures, datasets, baselines, skipped)
    held = claims["note"].str.startswith("holds: yes")
    checked = claims["note"].str.startswith("holds:")
    write_tables(claims, outputs["claims"], outputs["claims_md"],
                 title="Jiang & Ren 2011: paper claims vs ours",
                 note=f"The paper reports figures only: each row is one of its text claims "
                      f"checked on our numbers ({int(held.sum())} of {int(checked.sum())} hold).")
