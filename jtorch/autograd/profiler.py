"""The autograd profiler (torch/autograd/profiler.py, profiler_util.py): `profile`, `record_function`.

While a `profile` is active, a dispatcher observer (`jtorch.dispatcher.add_observer`, PyTorch's
RecordFunction callbacks) opens an event when an operator call starts and closes it when it
returns; events opened meanwhile are its children, so self time = total - children's totals. User
ranges (`record_function("label")`) are events too. `key_averages()` groups events by name (and
input shapes), `table()` prints them with torch's columns and number formats, and
`export_chrome_trace` writes Chrome trace JSON. A front-end module (layer 0): it uses the
dispatcher's observers. Times are wall-clock (perf_counter_ns) in microseconds, as torch reports.
"""
from __future__ import annotations

import functools
import itertools
import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import dispatcher as _dispatcher
from ..tensor import Tensor
from . import engine as _engine

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList", "emit_nvtx"]

_now_us = lambda: time.perf_counter_ns() / 1000.0  # noqa: E731  # a one-line clock
_ids = itertools.count()


class _CpuOnly:
    """What a CPU-only profile reports for the fields torch fills from devices, memory and flops."""

    is_async = False
    is_legacy = False
    device_type = "CPU"
    self_device_time_total = device_time_total = 0.0
    self_device_memory_usage = device_memory_usage = 0
    self_cpu_memory_usage = cpu_memory_usage = 0
    node_id = -1
    stack = None
    flops = 0
    overload_name = ""
    use_device = None


class FunctionEvent(_CpuOnly):
    """One operator call or user range: its interval, thread, input shapes and children."""

    count = 1

    def __init__(self, name: str, thread: int, start_us: float, input_shapes: list | None,
                 is_user_annotation: bool = False) -> None:
        self.id = next(_ids)
        self.name = name
        self.thread = thread
        self.time_range_start = start_us
        self.time_range_end = start_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.is_user_annotation = is_user_annotation

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range_end - self.time_range_start

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"cpu_children={[c.id for c in self.cpu_children]} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_CpuOnly):
    """The events of one key summed up (key_averages' rows)."""

    cpu_parent = None
    is_user_annotation = False

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: list | None = None

    def add(self, other: Any) -> FunctionEventAvg:
        if self.key is None:
            self.key, self.input_shapes = other.key, other.input_shapes
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __iadd__(self, other: Any) -> FunctionEventAvg:
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of events with torch's summaries."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for k in ("use_device", "profile_memory", "with_flops"):
            kwargs.pop(k, None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        stats: dict[tuple, FunctionEventAvg] = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else (e.key,)
            stats.setdefault(key, FunctionEventAvg()).add(e)
        avgs = EventList(stats.values())
        if not group_by_input_shape:
            for a in avgs:
                a.input_shapes = None
        return avgs

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        return build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Chrome trace JSON (chrome://tracing, Perfetto): one complete ('X') event per call."""
        pid = os.getpid()
        events = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                continue
            ev: dict[str, Any] = {
                  "ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.name,
                  "pid": pid, "tid": e.thread, "ts": e.time_range_start, "dur": e.cpu_time_total, "args": {}}
            if e.input_shapes:
                ev["args"]["Input Dims"] = e.input_shapes
            events.append(ev)
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms", "traceName": path}, f)


# ---- the table (profiler_util._build_table, CPU columns) -------------------------------------------
def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _unit(time_us: float, time_unit: str | None) -> str:
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def build_table(events: list, sort_by: str | None = None, header: str | None = None, row_limit: int = 100,
                max_name_column_width: int | None = 55, max_shapes_column_width: int | None = 80,
                top_level_events_only: bool = False, time_unit: str | None = None) -> str:
    """torch's profiler table for a CPU-only profile, character for character in layout."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by), reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_w] + [12] * 6
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_w)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    header_sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)
    out: list[str] = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_events_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total), _unit(e.self_cpu_time_total, time_unit),
               _format_time_share(e.cpu_time_total, total), _unit(e.cpu_time_total, time_unit),
               _unit(e.cpu_time, time_unit), e.count]
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        out.append(row_format.format(*row))
    out += [header_sep, f"Self CPU time total: {_unit(total, time_unit)}"]
    return "".join(s + "\n" for s in out)


# ---- recording ------------------------------------------------------------------------------------
class _Stack(threading.local):
    open: list = []


_stack = _Stack()
_active: list[profile] = []  # the profiles recording now (record_function feeds them all)
_schemas: dict[str, Any] = {}
_observer: list = []  # the one dispatcher observer while any profile is active


def _obs_start(name: str, keyset: Any, args: tuple, kwargs: dict) -> None:
    shapes = _input_shapes(name, args, kwargs) if any(p.record_shapes for p in _active) else None
    _open(name.partition(".")[0], shapes, False)  # torch names the event without the overload


def _obs_end(name: str, keyset: Any, args: tuple, kwargs: dict) -> None:
    st = _stack.__dict__.get("open")
    if st:  # calls nest: this thread's innermost open event is this call's
        _close(st[-1])


def _node_start(name: str, grads: Any) -> FunctionEvent:
    """A backward node's run (the engine's events); its inputs are the gradients it gets."""
    shapes = [_shape_of(g) for g in grads] if any(p.record_shapes for p in _active) else None
    return _open(name, shapes, False)


def _activate(p: profile) -> None:
    _active.append(p)
    if not _observer:
        _observer.append(_dispatcher.add_observer(_obs_start, _obs_end))
        _engine.node_observers.append((_node_start, _close))


def _deactivate(p: profile) -> None:
    if p in _active:
        _active.remove(p)
    if not _active and _observer:
        _observer.pop().remove()
        _engine.node_observers.clear()


def _shape_of(v: Any) -> list:
    if isinstance(v, Tensor):
        return list(v._size)
    if isinstance(v, (list, tuple)) and v and all(isinstance(t, Tensor) for t in v):
        return [list(t._size) for t in v]
    return []


def _input_shapes(name: str, args: tuple, kwargs: dict) -> list:
    """One entry per schema argument, defaults included (what RecordFunction sees in C++)."""
    schema = _schemas.get(name, 0)
    if schema == 0:
        e = _dispatcher.singleton.find_op(name)
        schema = _schemas[name] = e.schema if e is not None else None
    if schema is None:
        return [_shape_of(a) for a in args] + [_shape_of(v) for v in kwargs.values()]
    res = []
    for i, a in enumerate(schema.arguments):
        if not a.kwarg_only and i < len(args):
            v = args[i]
        else:
            v = kwargs.get(a.name, a.default_value if a.has_default else None)
        res.append(_shape_of(v))
    return res


def _open(name: str, shapes: list | None, user: bool) -> FunctionEvent:
    st = _stack.__dict__.setdefault("open", [])
    e = FunctionEvent(name, threading.get_ident(), _now_us(), shapes, user)
    if st:
        e.cpu_parent = st[-1]
        st[-1].cpu_children.append(e)
    st.append(e)
    for p in _active:
        p._record(e)
    return e


def _close(e: FunctionEvent) -> None:
    e.time_range_end = _now_us()
    st = _stack.__dict__.get("open")
    if st and st[-1] is e:
        st.pop()
    elif st and e in st:
        st.remove(e)


class profile:
    """Record every operator call (and record_function range) made while active.

    `with profile(record_shapes=True) as prof: ...` then `prof.key_averages().table(...)`."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Any = None) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.entered = False
        self._events: list[FunctionEvent] = []
        self._function_events: EventList | None = None

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.enabled:
            return
        self._stop()

    def _start(self) -> None:
        self._events = []
        self._function_events = None
        _activate(self)

    def _stop(self) -> None:
        _deactivate(self)
        evs = sorted(self._events, key=lambda e: (e.time_range_start, e.id))
        self._function_events = EventList(evs)

    def _record(self, e: FunctionEvent) -> None:
        self._events.append(e)

    def _check_finish(self) -> None:
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self) -> EventList:
        self._check_finish()
        return self._function_events  # type: ignore[return-value]  # a list of FunctionEvents, as torch's EventList is

    def events(self) -> EventList:
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only)

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        self.function_events.export_chrome_trace(path)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """A user range shown in the profile (`with record_function("label"):` or as a decorator)."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event: FunctionEvent | None = None

    def __enter__(self) -> record_function:
        if _active:
            self._event = _open(self.name, [], True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._event is not None:
            _close(self._event)
            self._event = None

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


class emit_nvtx:
    """No NVTX here: a context manager that does nothing (torch's API shape)."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self) -> emit_nvtx:
        return self

    def __exit__(self, *exc: object) -> None:
        return None
