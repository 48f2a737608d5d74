"""The files of one ranking run (``seed{S}.tsv``, ``.json``, ``.npz``) and the values a later
method reads from them (``{selected_by: ...}``, ``{from: ..., attribute: ...}``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from fsclust._io import atomic_path, write_text_atomic


def _jsonable(value):
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value.tolist()


def rank_sidecar(ranker, ds, *, dataset, method, seed, random_state, seconds, metrics):
    """What a ranking run reports besides the ranking: the attributes the ranker's class
    declares in ``reported_attributes`` (iterations, objective, ...), and its own clustering
    (``labels_``, ``labels_path_``) scored against the classes here, outside the method."""
    from fsclust.metrics import evaluate

    info = {"dataset": dataset, "method": method, "seed": seed, "random_state": random_state,
            "seconds": round(seconds, 3), "n_samples": int(ds.X.shape[0]),
            "n_features": int(ds.X.shape[1]),
            "classes": list(ds.class_names) if ds.class_names else None}
    for name in type(ranker).reported_attributes:
        if hasattr(ranker, name):
            info[name.rstrip("_")] = _jsonable(getattr(ranker, name))
    if hasattr(ranker, "labels_") and ds.y is not None:
        info["labels_metrics"] = evaluate(ds.y, ranker.labels_, metrics)
    if hasattr(ranker, "labels_path_") and ds.y is not None:
        # a method that re-clusters as it drops features (KP-Kmeans): its own partition at
        # each size, evaluated here, so the method itself never sees the labels
        info["path_metrics"] = [evaluate(ds.y, labels, metrics) for labels in ranker.labels_path_]
    return info


def _artifacts(ranker):
    """The arrays the ranker's class declares in ``stored_arrays`` (FRMV shares FRCM's
    ensemble; Zhang's Figure 3 reads FRCM's consensus matrix), for ``seed{S}.npz``."""
    arrays = {}
    for name in type(ranker).stored_arrays:
        if hasattr(ranker, name):
            arrays[name.rstrip("_")] = np.asarray(getattr(ranker, name))
    ensemble = arrays.get("ensemble")
    M = arrays.get("consensus_matrix")
    if M is not None and ensemble is not None:
        # A consensus (co-association) matrix is counts / T: stored as the integer counts it is
        # made of (8 times smaller than float64; pendigits' 3498 x 3498 over 40 trials), and
        # only when counts / T gives it back bit for bit.
        T = ensemble.shape[0]
        counts = np.rint(M * T)
        if T < 2**16 and np.array_equal(counts / T, M):
            arrays["consensus_matrix"] = counts.astype(np.uint8 if T < 256 else np.uint16)
            arrays["consensus_matrix_denominator"] = np.asarray(T)
    return arrays


def read_artifact(path, name):
    """An array a ranking run kept (``seed{S}.npz``), decoded (consensus counts -> matrix)."""
    with np.load(path) as data:
        if name not in data:
            raise KeyError(f"{path} holds no {name!r}; it holds {sorted(data.files)}")
        value = data[name]
        if name == "consensus_matrix" and "consensus_matrix_denominator" in data:
            value = value / int(data["consensus_matrix_denominator"])
    return value


def resolve_references(params, seed, references):
    """Parameters that name another method's result for the same dataset and seed.

    ``{selected_by: kpkmeans}`` is the number of features that method kept (at least 1: a
    filter needs one feature); ``{from: frcm, attribute: ensemble}`` is an array that method
    kept (its class's ``stored_arrays``) or a value of its sidecar JSON. ``references`` maps a
    method key to its rankings directory.
    """
    out = {}
    for key, value in (params or {}).items():
        if isinstance(value, dict) and ("selected_by" in value or "from" in value):
            out[key] = reference_value(value, seed, references)
        else:
            out[key] = value
    return out


def reference_value(ref, seed, references):
    """The value a ``{selected_by: ...}`` or ``{from: ..., attribute: ...}`` entry names."""
    source = ref.get("selected_by", ref.get("from"))
    if source not in references:
        raise ValueError(f"{ref}: method {source!r} is not an input of this job; "
                         f"known: {sorted(references)}")
    base = Path(references[source])
    if "selected_by" in ref:
        info = json.loads((base / f"seed{seed}.json").read_text())
        if "n_features_selected" not in info:
            raise ValueError(f"{ref}: method {source!r} selects no number of features itself")
        return max(int(info["n_features_selected"]), 1)
    attribute = ref["attribute"]
    npz = base / f"seed{seed}.npz"
    if npz.exists():
        with np.load(npz) as data:
            if attribute in data:
                return read_artifact(npz, attribute)
    info = json.loads((base / f"seed{seed}.json").read_text())
    if attribute not in info:
        raise ValueError(f"{ref}: method {source!r} kept no {attribute!r}")
    return info[attribute]


def _write_ranking_files(out, seed, ranker, ds, info, keep=None):
    """``seed{S}.tsv`` (the ranking), ``.json`` (``info``) and, when the method has arrays a
    later step reads, ``.npz`` (those named in ``keep``; None: all); returns the ranking."""
    from fsclust.ranking import ranking_table, write_ranking

    table = ranking_table(ranker, ds.feature_names, with_index=True)
    write_ranking(table, out / f"seed{seed}.tsv")
    write_text_atomic(out / f"seed{seed}.json", json.dumps(info, indent=1) + "\n")
    arrays = _artifacts(ranker)
    if keep is not None:
        wanted = set(keep) | ({"consensus_matrix_denominator"} if "consensus_matrix" in keep
                              else set())
        arrays = {k: a for k, a in arrays.items() if k in wanted}
    if arrays:
        with atomic_path(out / f"seed{seed}.npz") as tmp:
            np.savez_compressed(tmp, **arrays)
    return table
