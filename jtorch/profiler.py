"""`jtorch.profiler` (torch/profiler/profiler.py): `profile(activities=..., record_shapes=...)`,
`ProfilerActivity`, `record_function`, on top of the autograd profiler's recording
(jtorch.autograd.profiler). CPU activity only: jtorch has no device tracer."""
from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any

from .autograd import profiler as _ap
from .autograd.profiler import EventList, record_function

__all__ = ["profile", "ProfilerActivity", "ProfilerAction", "record_function", "schedule", "supported_activities"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0) -> Callable[[int], Any]:
    """torch.profiler.schedule: which action step number `step` is in."""
    def fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        span = wait + warmup + active
        if repeat > 0 and step // span >= repeat:
            return ProfilerAction.NONE
        mod = step % span
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < span - 1 else ProfilerAction.RECORD_AND_SAVE
    return fn


class profile:
    """`with jtorch.profiler.profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:`;
    without a schedule everything between start and stop is recorded (start()/stop() work too)."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None, acc_events: bool = False,
                 use_cuda: bool | None = None, custom_trace_id_callback: Any = None) -> None:
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.profiler: _ap.profile | None = None
        self._recording = False

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _begin(self) -> None:
        self.profiler = _ap.profile(record_shapes=self.record_shapes)
        self.profiler._start()
        self._recording = True

    def _end(self) -> None:
        if self._recording and self.profiler is not None:
            self.profiler._stop()
            self._recording = False
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _action(self) -> Any:
        return self.schedule(self.step_num) if self.schedule is not None else ProfilerAction.RECORD

    def start(self) -> None:
        if self._action() in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def stop(self) -> None:
        self._end()

    def step(self) -> None:
        """Advance the schedule: stop and save after a RECORD_AND_SAVE step, start on a recording one."""
        prev = self._action()
        self.step_num += 1
        cur = self._action()
        if prev == ProfilerAction.RECORD_AND_SAVE or (self._recording and cur in (ProfilerAction.NONE,
                                                                                   ProfilerAction.WARMUP)):
            self._end()
        if not self._recording and cur in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def _prof(self) -> _ap.profile:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler

    def events(self) -> EventList:
        return self._prof().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._prof().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        self._prof().export_chrome_trace(path)
