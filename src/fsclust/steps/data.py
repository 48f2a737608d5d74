"""The data steps: fetch a dataset's file, prepare it, and load one repeat's view of it."""

from __future__ import annotations

import logging

from fsclust.steps.seeds import derive_seed

log = logging.getLogger("fsclust")


def download(entry_id, sheet, out_path, mirror=None):
    """Fetch dataset ``entry_id``'s file (pinned URL or mirror), verify its checksum."""
    from fsclust.datasets import fetch, get_entry, load_catalog

    entry = get_entry(load_catalog(sheet), entry_id)
    log.info("fetching %s (%s) from %s", out_path, entry.id, mirror or "its pinned URL")
    fetch(entry, out_path, mirror=mirror)
    log.info("verified %s (%s %s)", out_path, entry.checksum_type, entry.checksum)


def prepare(dataset, sheet, out_path, raw_path=None):
    """Load and preprocess ``dataset`` (from one file or a list, in the entry's file order)
    into the standard ``.npz`` file."""
    from fsclust.datasets import get_entry, load_catalog, prepare as prepare_entry, save_dataset

    entry = get_entry(load_catalog(sheet), dataset)
    ds = prepare_entry(entry, raw_path)
    log.info("%s: %d samples x %d features, %s classes", dataset, ds.X.shape[0], ds.X.shape[1],
             ds.n_classes if ds.y is not None else "no")
    save_dataset(ds, out_path)


def load_view(data_path, dataset, seed, class_draw=None):
    """The prepared dataset as one repeat sees it: all of it, or ``class_draw`` classes drawn
    with the repeat's seed (the same draw for every method and clusterer of that repeat)."""
    from fsclust.datasets import draw_classes, load_dataset

    ds = load_dataset(data_path)
    if class_draw:
        ds = draw_classes(ds, class_draw, derive_seed(seed, dataset, "class_draw"))
        log.info("%s seed %d: drew classes %s", dataset, seed, ", ".join(ds.class_names))
    return ds
