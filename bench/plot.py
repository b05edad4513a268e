"""Draw bench/results/results.json as a horizontal bar chart: jtorch's speed relative to the
reference each row's target names (higher is better), with the target marked.

    python bench/plot.py [results.json [out.png]]

A time ratio (jtorch time / reference time, lower is better) is drawn inverted, so every bar
reads "how fast jtorch is, relative to the reference", on a log axis; 1 is parity.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any

COLORS = {"PASS": "#2e7d32", "MISS": "#c62828"}
OTHER = "#78909c"


def _speed(row: dict) -> "tuple[float, float | None] | None":
    """(relative speed, target as relative speed) of a row, or None if it has no ratio."""
    r = row.get("ratio")
    if not isinstance(r, (int, float)) or isinstance(r, bool) or r <= 0:
        return None
    t = row.get("target")
    # an absolute target (a time budget) is not a ratio: draw no marker for it
    tv = t.get("value") if isinstance(t, dict) and not t.get("absolute") else None
    if row.get("better", "lower") == "lower":  # a time ratio
        return 1 / r, (1 / tv if tv else None)
    return r, tv


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
        ref = row.get("ratio_vs") or "ref"
        items.append((f"{row.get('name')}  [vs {ref}]", sp[0], sp[1], row.get("status", "")))
    if not items:
        return None
    items.reverse()  # first row on top
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(items) + 1.6))
    ys = range(len(items))
    ax.barh(ys, [s for _, s, _, _ in items], color=[COLORS.get(st, OTHER) for *_, st in items])
    for y, (_, s, tgt, st) in zip(ys, items):
        if tgt:
            ax.plot([tgt, tgt], [y - 0.42, y + 0.42], color="black", lw=2)
        ax.text(s * 1.04, y, f"{s:.2f}" + (f"  {st}" if st in COLORS else ""), va="center", fontsize=8)
    ax.set_yticks(list(ys), [n for n, *_ in items], fontsize=8)
    ax.set_xscale("log")
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    lo = min(min(s, t or s) for _, s, t, _ in items)
    hi = max(max(s, t or s) for _, s, t, _ in items)
    ax.set_xlim(lo / 1.6, hi * 2.5)
    ax.set_xlabel("jtorch speed relative to the reference (higher is better; black bar = target)")
    m = result.get("machine", {})
    ax.set_title(f"jtorch benchmarks - {m.get('cpu', '?')}, {m.get('cores', '?')} cores, "
                 f"{str(m.get('date', ''))[:10]}", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
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
