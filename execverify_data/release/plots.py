"""Deterministic PNG plots for the dataset card (matplotlib, Agg backend; same data, same bytes).

No version string in the PNG (``metadata={"Software": None}``), a fixed figure size, DPI and ``svg.hashsalt``.
"""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

__all__ = ["PLOTS", "write_plots"]

PLOTS = {
    "level": "images/level_distribution.png",
    "difficulty": "images/difficulty_distribution.png",
    "trace_length": "images/trace_length_distribution.png",
    "coverage": "images/catalog_coverage.png",
}


def _matplotlib():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("plots need matplotlib: pip install 'execverify-data[release]'") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({"svg.hashsalt": "execverify", "path.simplify": True, "font.family": "DejaVu Sans"})
    return plt


@contextmanager
def _figure(plt, path: Path, write_atomic: Callable, title: str, xlabel: str, ylabel: str | None = None):
    """Axes of a 6 x 3.5 in figure, titled and labelled, written to ``path`` (PNG, 100 dpi) on leaving.

    A ``ylabel`` names a count axis, whose ticks are whole numbers only (no 0.5 programs).
    """
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(6, 3.5))
    yield ax
    if ylabel is not None:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, lambda p: fig.savefig(p, format="png", dpi=100, metadata={"Software": None}))
    plt.close(fig)


def write_plots(out: Path, stats: dict, write_atomic: Callable) -> dict[str, str]:
    """Write the card's plots from ``stats`` (:func:`.builder.statistics`); return name -> path."""
    plt = _matplotlib()
    try:
        with _figure(plt, out / PLOTS["level"], write_atomic, "Programs per level", "level (ConstraintSpec)",
                     "programs") as ax:
            by_level = stats["programs_by_level"]
            levels = sorted(by_level, key=int)
            bars = ax.bar([str(lv) for lv in levels], [by_level[lv] for lv in levels], color="#4c72b0")
            ax.bar_label(bars, fmt="{:,.0f}", padding=2)
            ax.margins(y=0.12)
        with _figure(plt, out / PLOTS["difficulty"], write_atomic, "Difficulty",
                     "heuristic difficulty score (trace config)", "rows") as ax:
            ax.hist(stats["difficulty_values"], bins=[i / 40 for i in range(41)], color="#dd8452")
        with _figure(plt, out / PLOTS["trace_length"], write_atomic, "Trace length",
                     "line events per traced call (log scale)", "rows") as ax:
            edges = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584]
            ax.hist(stats["trace_length_values"], bins=edges, color="#55a868")
            ax.set_xscale("log")
        cov = stats["coverage_by_kind"]
        with _figure(plt, out / PLOTS["coverage"], write_atomic,
                     f"Catalog coverage ({stats['coverage']['used']}/{stats['coverage']['total']})",
                     "share of catalog entries used") as ax:
            kinds = sorted(cov)
            bars = ax.barh(kinds, [cov[k]["used"] / cov[k]["total"] for k in kinds], color="#8172b3")
            # every bar says used/total, so a kind with no entry used reads "0/12", not as a missing bar
            labels = [f"{cov[k]['used']}/{cov[k]['total']}" + ("" if cov[k]["used"] else " (none used)") for k in kinds]
            ax.bar_label(bars, labels=labels, padding=3, fontsize=8)
            ax.set_xlim(0, 1.1)
            ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    finally:
        plt.close("all")
    return dict(PLOTS)


def coverage_by_kind(used: set[str]) -> dict[str, dict[str, int]]:
    from execverify_data import catalog

    out: dict[str, Counter] = {}
    for e in catalog.ENTRIES:
        kind = e.id.split(".")[0]
        c = out.setdefault(kind, Counter())
        c["total"] += 1
        c["used"] += e.id in used
    return {k: dict(v) for k, v in sorted(out.items())}
