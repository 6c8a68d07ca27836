"""The one form of the A/B experiments that time ``bench.mmq``'s entries of exact labels from a tree's kernel cache
(``in_bounds_ab``, ``guarded_copies_ab``): ``--prepare`` compiles them (and the quantize kernels) into
``$QDOT_KERNEL_CACHE``; without it, ``bench.mmq``'s ``measure`` times them from that cache on the GPU machine."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import bench.mmq as bm


def every_entry() -> list:
    """Every (label, config, stages) entry of ``bench.mmq``'s tables."""
    return bm.PREFILL + bm.DECODE + bm.OTHER_WEIGHTS


def selection(labels: Sequence[str]) -> list:
    """``bench.mmq``'s entries whose label is one of ``labels`` exactly (``--only`` would match substrings), and
    for a label ``… unguarded`` the entry of ``…`` through ``qdot-pipeline{guard-copies=false}``
    (``bm.unguarded``), for ``… padrows`` / ``… swfold`` / ``… padrows swfold`` through
    ``qdot-accelerate-matmul``'s ``pad-block-rows`` / ``swizzle-fold-buffers`` (``bm.padded_rows``; ``… unguarded
    padrows`` is both), in the order of ``labels``: ``bench.mmq`` times every entry at one shape before the next
    shape, so a label beside its ``… unguarded`` one is timed next to it (run 291 timed all the guarded entries of
    a shape first, and a control whose two forms are the same PTX came out 1.6–2.4 % apart at one shape)."""
    table = {entry[0]: entry for entry in every_entry()}
    return [entry for label in labels for entry in _entries(label, table)]


def _entries(label: str, table: dict) -> list:
    """The entry ``label`` names (``selection``), or none."""
    if label in table:
        return [table[label]]
    both = f"{bm.PADDED_ROWS_WORD} {bm.SWIZZLED_FOLDS_WORD}"
    for words in (both, bm.PADDED_ROWS_WORD, bm.SWIZZLED_FOLDS_WORD):
        if label.endswith(f" {words}"):
            return bm.padded_rows(_entries(label.removesuffix(f" {words}"), table), words)
    if label.endswith(" unguarded") and label.removesuffix(" unguarded") in table:
        return bm.unguarded([table[label.removesuffix(" unguarded")]])
    return []


def chosen_from_args(labels: Sequence[str], description: str,
                     other: dict[str, tuple[str, Sequence[str]]] | None = None,
                     argv: Sequence[str] | None = None) -> tuple[list, bool]:
    """The entries ``main`` times (or compiles, with ``--prepare``: the bool) for the command line ``argv``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    for name, (text, _) in (other or {}).items():
        parser.add_argument(f"--{name}", action="store_true", help=text)
    parser.add_argument("--label", action="append", metavar="LABEL",
                        help="time only these labels of the set (repeat it; '… unguarded' for that form), in the "
                             "order given")
    parser.add_argument("--reverse", action="store_true",
                        help="time the entries in the reverse order (an A/B's second round: each form goes first "
                             "in one of the two)")
    args = parser.parse_args(argv)
    labels = next((more for name, (_, more) in (other or {}).items() if getattr(args, name)), labels)
    if args.label:
        unknown = [label for label in args.label if label not in labels]
        if unknown:
            parser.error(f"not a label of this set: {unknown[0]!r} (the set has {len(labels)}, e.g. {labels[0]!r})")
        labels = args.label
    chosen = selection(labels)
    return (chosen[::-1] if args.reverse else chosen), args.prepare


def main(labels: Sequence[str], description: str, other: dict[str, tuple[str, Sequence[str]]] | None = None) -> None:
    """``other``: flags (``--NAME``) that time another set of labels instead, each with its help text."""
    chosen, prepare = chosen_from_args(labels, description, other)
    if prepare:
        from bench.prepare import fill_cache

        fingerprint = fill_cache(lambda: (bm.compile_kernels(chosen), bm.compile_quantizers()))
        print(f"prepared {len(chosen)} kernels, fingerprint {fingerprint}")
        return
    bm.selected = lambda only=None, labels=(): chosen  # the exact labels, whatever ``run`` passes
    bm.run(False, None)
