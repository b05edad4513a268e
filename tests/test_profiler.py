"""The profiler (jtorch.autograd.profiler.profile, jtorch.profiler.profile): events per operator call
with nesting and self time, key_averages, the table in torch's format (compared with torch's own
output for the same code), record_function ranges, Chrome trace export."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import jtorch
from jtorch import dispatcher
from jtorch.autograd import profiler as ap
from jtorch.profiler import ProfilerActivity, profile, record_function
from _torch_oracle import live_torch


def workload(lib, rf):
    x = lib.tensor(np.arange(12.0).reshape(3, 4))
    y = lib.tensor(np.ones((3, 4)))
    with rf("mylabel"):
        z = x + y
        w = lib.mm(x, y.t())
        s = z.sum()
    return z, w, s


def structure(table: str) -> tuple:
    """The table's layout: separator and header lines verbatim, each row's column count, the footer's form."""
    lines = table.rstrip("\n").split("\n")
    sep = lines[0]
    assert lines[2] == sep and lines[-2] == sep
    widths = [len(c) for c in sep.split("  ") if c]
    header = [h.strip() for h in re.split(r"\s{2,}", lines[1].strip())]
    rows = lines[3:-2]
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", lines[-1])
    for r in rows:
        assert len(r) == len(sep)
        cells = re.split(r"\s{2,}", r.strip())
        assert len(cells) == len(header)
        assert re.fullmatch(r"\d+\.\d{2}%", cells[1]) and re.fullmatch(r"\d+\.\d{3}(us|ms|s)", cells[2])
    return header, len(widths), widths[1:7]


def test_table_format_and_names_match_torch():
    torch = live_torch("torch's table holds the timings of this run")
    workload(jtorch, record_function)  # compile first: the profile then times the calls, not Numba
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as jp:
        workload(jtorch, record_function)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as tp:
        workload(torch, torch.profiler.record_function)
    for kw in ({}, {"group_by_input_shape": True}):
        jt = jp.key_averages(**kw).table(sort_by="cpu_time_total", row_limit=10)
        tt = tp.key_averages(**kw).table(sort_by="cpu_time_total", row_limit=10)
        assert structure(jt) == structure(tt)
    # the operators the user's code called (the label's direct children) are torch's, in order
    def children(events):
        label = next(e for e in events if e.name == "mylabel")
        return [e.name for e in label.cpu_children]
    assert children(jp.events()) == children(tp.events()) == ["aten::add", "aten::t", "aten::mm", "aten::sum"]
    # input shapes of the same calls (schema defaults included, as RecordFunction sees them)
    jshape = {e.name: e.input_shapes for e in jp.events()}
    tshape = {e.name: e.input_shapes for e in tp.events()}
    for name in ("aten::add", "aten::mm", "aten::sum", "aten::t"):
        assert jshape[name] == tshape[name]


def test_nesting_self_time_counts_and_key_averages():
    x = jtorch.ones(4)
    x + x
    with ap.profile() as prof:
        with record_function("outer"):
            for _ in range(3):
                x + x
            with record_function("inner"):
                x * 2
    evs = prof.function_events
    assert [e.name for e in evs] == ["outer", "aten::add", "aten::add", "aten::add", "inner", "aten::mul"]
    outer = evs[0]
    assert outer.cpu_parent is None and [c.name for c in outer.cpu_children] == ["aten::add"] * 3 + ["inner"]
    assert evs[5].cpu_parent is evs[4]
    for e in evs:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total
        assert e.self_cpu_time_total == pytest.approx(e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children))
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["aten::add"].count == 3 and avg["outer"].count == 1
    assert avg["aten::add"].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in evs[1:4]))
    assert avg["aten::add"].cpu_time == pytest.approx(avg["aten::add"].cpu_time_total / 3)
    assert prof.self_cpu_time_total == pytest.approx(outer.cpu_time_total)
    # row_limit and sort_by
    t = prof.key_averages().table(sort_by="count", row_limit=2)
    rows = t.rstrip("\n").split("\n")[3:-2]
    assert len(rows) == 2 and rows[0].split()[0] == "aten::add"
    # no shapes recorded: no Input Shapes column
    assert "Input Shapes" not in t


def test_group_by_input_shape_and_record_shapes():
    with ap.profile(record_shapes=True) as prof:
        jtorch.ones(2) + jtorch.ones(2)
        jtorch.ones(3) + jtorch.ones(3)
        jtorch.ones(3) + jtorch.ones(3)
    groups = {(a.key, str(a.input_shapes)): a.count for a in prof.key_averages(group_by_input_shape=True)}
    assert groups[("aten::add", "[[2], [2], []]")] == 1 and groups[("aten::add", "[[3], [3], []]")] == 2
    assert {a.key: a.count for a in prof.key_averages()}["aten::add"] == 3
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()


def test_observer_removed_and_nothing_recorded_outside(tmp_path):
    before = len(dispatcher._observers)
    with ap.profile() as prof:
        assert len(dispatcher._observers) == before + 1
        jtorch.ones(1) * 2
    assert len(dispatcher._observers) == before
    n = len(prof.function_events)
    jtorch.ones(1) * 2
    assert len(prof.function_events) == n
    with record_function("not profiling"):  # no active profile: nothing to do, no error
        jtorch.ones(1)
    with ap.profile(enabled=False) as off:
        jtorch.ones(1)
    with pytest.raises(RuntimeError, match="^Profiler didn't finish running$"):
        off.function_events


def test_record_function_decorator_and_chrome_trace(tmp_path):
    @record_function("my_fn")
    def f(x):
        return x * 3

    x = jtorch.ones(2)
    with profile(record_shapes=True) as prof:
        f(x)
    names = [e.name for e in prof.events()]
    assert names[0] == "my_fn" and "aten::mul" in names
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    evs = data["traceEvents"]
    assert [e["name"] for e in evs] == names
    for e in evs:
        assert e["ph"] == "X" and e["dur"] >= 0 and isinstance(e["ts"], float)
    assert evs[0]["cat"] == "user_annotation" and evs[1]["cat"] == "cpu_op"


def test_profiler_start_stop_and_schedule():
    from jtorch.profiler import schedule

    p = profile()
    p.start()
    jtorch.ones(2) + 1
    p.stop()
    assert "aten::add" in [e.name for e in p.events()]
    ready = []
    with profile(schedule=schedule(wait=1, warmup=0, active=1), on_trace_ready=ready.append) as p:
        for i in range(2):
            jtorch.ones(2) * (i + 1)
            p.step()
    assert len(ready) == 1 and [e.name for e in ready[0].events()].count("aten::mul") == 1
