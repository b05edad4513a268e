"""Draw bench/results/results.json as a horizontal bar chart: jtorch's speed relative to the
reference each row's target names (higher is better), with the target marked.

    python bench/plot.py [results.json [out.png]]

A time ratio (jtorch time / reference time, lower is better) is drawn inverted, so every bar
reads "how fast jtorch is, relative to the reference", on a log axis; 1 is parity. A row whose
target is a time budget is drawn as budget / time.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any

COLORS = {"PASS": "#2e7d32", "MISS": "#c62828"}
OTHER = "#78909c"
FLOOR = 0.01  # bars below are drawn at the floor (the label keeps the true value)


def _speed(row: dict) -> "tuple[float, float | None, str] | None":
    """(relative speed, target as relative speed, reference) of a row, or None if it has none.

    A row with an absolute target (a time budget in seconds) is drawn against its budget
    (budget / jtorch's time, target 1); other rows against the reference their ratio names."""
    t = row.get("target")
    jt = row.get("jtorch")
    if isinstance(t, dict) and t.get("absolute"):
        if isinstance(jt, dict) and jt.get("median_s"):
            return t["value"] / jt["median_s"], 1.0, "budget"
        return None
    r = row.get("ratio")
    if not isinstance(r, (int, float)) or isinstance(r, bool) or r <= 0:
        return None
    tv = t.get("value") if isinstance(t, dict) else None
    ref = row.get("ratio_vs") or "ref"
    if row.get("better", "lower") == "lower":  # a time ratio
        return 1 / r, (1 / tv if tv else None), ref
    return r, tv, ref


def plot(result: dict, path: str) -> str | None:
    """Write the chart to `path`; None when matplotlib is not importable or nothing to draw."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    items: list[tuple[str, float, float | None, str]] = []
    for row in result.get("rows", []):
        sp = _speed(row)
        if sp is None:
            continue
        items.append((f"{row.get('name')}  [vs {sp[2]}]", sp[0], sp[1], row.get("status", "")))
    if not items:
        return None
    items.reverse()  # first row on top
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(items) + 1.6))
    ys = range(len(items))
    ax.barh(ys, [max(s, FLOOR) for _, s, _, _ in items], color=[COLORS.get(st, OTHER) for *_, st in items])
    for y, (_, s, tgt, st) in zip(ys, items):
        if tgt:
            ax.plot([tgt, tgt], [y - 0.42, y + 0.42], color="black", lw=2)
        ax.text(max(s, FLOOR) * 1.04, y, f"{s:.2g}" if s < 0.01 else f"{s:.2f}" + (f"  {st}" if st in COLORS else ""), va="center", fontsize=8)
    ax.set_yticks(list(ys), [n for n, *_ in items], fontsize=8)
    ax.set_xscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    ticks = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    lo = max(FLOOR, min(min(s, t or s) for _, s, t, _ in items))
    hi = max(max(s, t or s) for _, s, t, _ in items)
    ax.set_xlim(lo / 1.6, hi * 2.5)
    ax.set_xlabel("jtorch speed relative to the reference named in each label (higher is better, log scale)")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=COLORS["PASS"], label="meets its target"),
                       Patch(color=COLORS["MISS"], label="misses its target"),
                       Patch(color=OTHER, label="reported (no target)"),
                       Line2D([], [], color="black", lw=2, label="target"),
                       Line2D([], [], color="grey", lw=0.8, ls="--", label="parity (1x)")],
              loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=5, fontsize=8, frameon=False)
    m = result.get("machine", {})
    ax.set_title(f"jtorch benchmarks - {m.get('cpu', '?')}, {m.get('cores', '?')} cores, "
                 f"{str(m.get('date', ''))[:10]}", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")  # keeps the legend below the axes
    plt.close(fig)
    return path


def main(argv: list[str]) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    src = argv[0] if argv else os.path.join(here, "results", "results.json")
    dst = argv[1] if len(argv) > 1 else os.path.splitext(src)[0] + ".png"
    with open(src) as f:
        res: Any = json.load(f)
    out = plot(res, dst)
    print(f"wrote {out}" if out else "nothing drawn (matplotlib missing or no ratios)")


if __name__ == "__main__":
    main(sys.argv[1:])
