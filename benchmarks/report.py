"""The runner's output: the terminal table and the chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SHOWN_FAILURES = 3
BUSY_LOAD = 0.5  # a 1-minute load average above this before the run: other work shared the machine
COLUMNS = ("measure", "total s", "× floor", "median ms", "worst query", "worst ms", "failed", "runs")


def table(result: dict[str, Any]) -> str:
    """One block per workload: every measure with its figures, then the agreement line."""
    lines: list[str] = []
    for workload in result["workloads"].values():
        lines.append(f"{workload['label']}: {workload['queries']} queries, {workload['fields']} output fields")
        rows = [COLUMNS] + [_row(measure) for measure in workload["measures"].values()]
        # A row that was not measured holds its status alone: it sets no column's width.
        widths = [max(len(row[i]) for row in rows if len(row) > 2 or i == 0) for i in range(len(COLUMNS))]
        for n, row in enumerate(rows):
            if len(row) == 2:
                lines.append(f"  {row[0].ljust(widths[0])}  {row[1]}")
                continue
            cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
            lines.append("  " + "  ".join(cells).rstrip())
            if n == 0:
                lines.append("  " + "  ".join("-" * w for w in widths))
        agreement = workload.get("agreement")
        if agreement:
            lines.append(
                f"  value lineage = sqlglot's on {agreement['agreed']} of {agreement['fields']} fields; "
                f"{len(agreement['disagreements'])} differ (listed in the JSON, judged in docs/agreement.md)"
            )
        for measure in workload["measures"].values():
            failures = sorted(measure.get("failures", {}).items())
            for query, error in failures[:SHOWN_FAILURES]:
                lines.append(f"  failed: {measure['label']}: {query}: {error}")
            if len(failures) > SHOWN_FAILURES:
                lines.append(f"  failed: {measure['label']}: … and {len(failures) - SHOWN_FAILURES} more (see the JSON)")
        lines.append("")
    lines.append(
        f"median of up to {result['repeat']} runs after a warm-up, gc outside the timed part; "
        f"floor = the row marked (floor); {result['machine']}"
    )
    # The load before the run: the run itself adds about one to the load after it.
    busy = (result.get("load_average_before") or [0])[0]
    if busy >= BUSY_LOAD:
        lines.append(f"note: the machine was busy (load average {busy:.2f}): absolute times are noisy; the "
                     "ratios, from interleaved runs, less so")
    return "\n".join(lines) + "\n"


def _row(measure: dict[str, Any]) -> tuple[str, ...]:
    label = measure["label"]
    if measure.get("status") != "measured":
        return (label, measure.get("status", "?"))
    ratio = measure.get("ratio_to_floor")
    return (
        label,
        f"{measure['total_s']:.3f}",
        f"{ratio:.2f}" if ratio is not None else "",
        f"{measure['median_query_s'] * 1000:.2f}" if measure["median_query_s"] is not None else "",
        measure["worst_query"] or "",
        f"{measure['worst_query_s'] * 1000:.1f}" if measure["worst_query_s"] is not None else "",
        str(len(measure["failures"])),
        str(measure["runs"]),
    )


def chart(result: dict[str, Any], path: Path) -> None:
    """Total time per measure (log scale), one panel per workload, the floor as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(result["workloads"].values())
    fig, axes = plt.subplots(1, len(workloads), figsize=(7 * len(workloads), 4.8), squeeze=False)
    for ax, workload in zip(axes[0], workloads):
        measured = [m for m in workload["measures"].values() if m.get("status") == "measured"]
        labels = [m["label"] for m in measured]
        totals = [m["total_s"] for m in measured]
        colours = ["tab:green" if m["key"].startswith("prism") else
                   "tab:blue" if m["key"].startswith("sqlglot") else "tab:gray" for m in measured]
        bars = ax.barh(range(len(measured)), totals, color=colours)
        ax.set_yticks(range(len(measured)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("seconds for all queries (log scale)")
        ax.set_title(f"{workload['label']}: {workload['queries']} queries, {workload['fields']} fields")
        floor = workload["measures"].get(result["floor"], {})
        if floor.get("status") == "measured":
            ax.axvline(floor["total_s"], color="tab:blue", linestyle="--", linewidth=1)
        for bar, measure in zip(bars, measured):
            ratio = measure.get("ratio_to_floor")
            text = f" {measure['total_s']:.3g} s" + (f"  ({ratio:.2f}×)" if ratio is not None else "")
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, text, va="center", fontsize=7)
        ax.set_xlim(right=max(totals) * 20 if totals else 1)
    fig.suptitle("Lineage of every output field — time for the whole workload (dashed: sqlglot parse + qualify)",
                 fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
