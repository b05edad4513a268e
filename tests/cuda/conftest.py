"""CUDA tests: run in a process of their own, under Numba's CUDA simulator on machines without a
GPU (`NUMBA_ENABLE_CUDASIM=1 python -m pytest -q tests/cuda`, what CI does) or on a real GPU
(`JTORCH_TEST_CUDA=1 python -m pytest -q tests/cuda`). The main test run leaves this directory
out (tests/conftest.py), because the simulator must be chosen before numba.cuda is imported.

Sizes stay tiny: the simulator runs one OS thread per CUDA thread, about 65 us each.
"""
from __future__ import annotations

import os
import sys

import pytest

import jtorch


def pytest_collection_modifyitems(config, items):
    if not jtorch.cuda.is_available():
        raise pytest.UsageError("tests/cuda needs a GPU or NUMBA_ENABLE_CUDASIM=1 (set before the run starts)")


_POISONED = ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_MISALIGNED_ADDRESS",
             "CUDA_ERROR_ILLEGAL_INSTRUCTION", "weakly-referenced object no longer exists")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a GPU, a kernel's bad memory access leaves the process's CUDA context unusable, and every
    later test of the process fails with it. Under pytest-xdist the worker then ends, so xdist names
    this test as the one it crashed in and starts a fresh worker for the rest (run with
    CUDA_LAUNCH_BLOCKING=1 so the error surfaces at the launch that caused it)."""
    yield
    exc = call.excinfo.value if call.excinfo is not None else None
    if exc is not None and os.environ.get("PYTEST_XDIST_WORKER") and any(p in str(exc) for p in _POISONED):
        text = f"\nCUDA context lost in {item.nodeid}:\n{call.excinfo.getrepr(style='short')}\n"
        sys.stderr.write(text)
        sys.stderr.flush()
        log = os.environ.get("JTORCH_TEST_CRASH_LOG")  # tools/cuda_check.sh collects these
        if log:
            with open(log, "a") as f:
                f.write(text)
        os._exit(3)


@pytest.fixture
def cuda():
    return jtorch.device("cuda")

# the CPU tests' support modules (tests/_*_support.py) are importable here too
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
